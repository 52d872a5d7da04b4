import type { EventStore, RecordedEvent } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import type { WorkflowEngine } from '../../infra/ports/workflows.ts';
import { STEPS, type DeploymentEvent } from '../../domain/deployments/deployment.ts';
import {
  DEPLOYMENT_DEACTIVATION_WORKFLOW,
  DEPLOYMENT_PROVISIONING_WORKFLOW,
  deactivationWorkflowId,
  provisioningWorkflowId,
  type ProvisioningStart,
} from './process.ts';

/** Checkpoint name of the starter in the read-model store. */
export const STARTER_CHECKPOINT = 'deployment-starter';

export interface DeploymentStarter {
  /** Resolves once every request in the log when called has started its workflow. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts workflows from the log (an outbox processor with a checkpoint, never in-process after a write):
 * `deployment.provisioning.requested` -> a `deployment-provisioning` run; `deployment.deactivated` -> the
 * `deployment-deactivation` workflow. Starts are idempotent by workflow id, so re-reading events after a
 * crash before the checkpoint was saved starts nothing twice.
 */
export async function startDeploymentStarter(deps: { eventStore: EventStore; readModels: ReadModelStore; engine: WorkflowEngine }): Promise<DeploymentStarter> {
  const from = await deps.readModels.getCheckpoint(STARTER_CHECKPOINT);
  const sub = deps.eventStore.subscribeToAll({
    fromPosition: from,
    types: ['deployment.provisioning.requested', 'deployment.deactivated'],
    batchSize: 200,
    async onEvents(batch: RecordedEvent[]) {
      for (const e of batch) {
        const ev = { type: e.type, data: e.data } as DeploymentEvent;
        if (ev.type === 'deployment.provisioning.requested') {
          const d = ev.data;
          const start: ProvisioningStart = { deploymentId: d.deployment_id, ownerTenantId: d.tenant_id, run: d.run, steps: STEPS.slice(STEPS.indexOf(d.from_step)) };
          await deps.engine.start(DEPLOYMENT_PROVISIONING_WORKFLOW, provisioningWorkflowId(d.deployment_id, d.run), start, {
            tenantId: d.tenant_id,
            summary: `Provisioning of deployment ${d.deployment_id} (run ${d.run}, from step ${d.from_step})`,
          });
        } else if (ev.type === 'deployment.deactivated') {
          await deps.engine.start(DEPLOYMENT_DEACTIVATION_WORKFLOW, deactivationWorkflowId(ev.data.deployment_id), { deploymentId: ev.data.deployment_id }, {
            tenantId: ev.data.tenant_id,
            summary: `Deactivation of deployment ${ev.data.deployment_id}: its keys revoked`,
          });
        }
      }
      const last = batch.at(-1);
      if (last) await deps.readModels.setCheckpoint(STARTER_CHECKPOINT, last.globalPosition);
    },
  });
  return { caughtUp: () => sub.caughtUp(), stop: () => sub.stop() };
}
