import type { RecordedEvent } from '../../infra/ports/event-store.ts';
import type { Collection, ReadModelStore } from '../../infra/ports/read-models.ts';
import { DEPLOYMENT_EVENT_TYPES, evolve, type DeploymentEvent, type DeploymentState } from '../../domain/deployments/deployment.ts';
import type { Projection } from '../projection.ts';

/**
 * Read model of a deployment (collection `deployments`): the aggregate's state folded from its stream,
 * plus top-level fields for filtering (`tenant_id` = owner, `provisioned_tenant_id`, `domain`, `status`,
 * `created_at`) and the global position last applied (idempotence on replay). No secret is ever in it.
 */
export interface DeploymentDoc {
  [k: string]: unknown;
  id: string;
  tenant_id: string;
  provisioned_tenant_id: string | null;
  domain: string;
  status: string;
  created_at: string;
  has_branding: boolean;
  state: DeploymentState;
  position: number;
}

export const DEPLOYMENTS_COLLECTION = 'deployments';

export async function deploymentsCollection(store: ReadModelStore): Promise<Collection<DeploymentDoc>> {
  return store.collection<DeploymentDoc>(DEPLOYMENTS_COLLECTION, {
    indexes: [['tenant_id', 'created_at'], 'provisioned_tenant_id', 'domain'],
  });
}

/** Projection `deployments`: folds each deployment event into its document. */
export const deploymentsProjection: Projection = {
  name: 'deployments',
  collections: [DEPLOYMENTS_COLLECTION],
  eventTypes: DEPLOYMENT_EVENT_TYPES,
  async apply(events: readonly RecordedEvent[], { store }) {
    const docs = await deploymentsCollection(store);
    for (const e of events) {
      const id = (e.data as { deployment_id: string }).deployment_id;
      const prev = await docs.get(id);
      if (prev && prev.position >= e.globalPosition) continue;
      const state = evolve(prev?.state, { type: e.type, data: e.data } as DeploymentEvent, e.streamRevision);
      if (!state) continue;
      await docs.put(id, {
        id,
        tenant_id: state.ownerTenantId,
        provisioned_tenant_id: state.provisionedTenantId,
        domain: state.domain,
        status: state.status,
        created_at: state.createdAt,
        has_branding: state.branding !== null,
        state,
        position: e.globalPosition,
      });
    }
  },
};
