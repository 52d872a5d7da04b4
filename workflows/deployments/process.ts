import type { ProcessManager, WorkflowEffect, WorkflowInput } from '../../infra/ports/workflows.ts';
import type { Step } from '../../domain/deployments/deployment.ts';
import type { StepInput, StepOutcome } from './activities.ts';

/**
 * The provisioning process manager (engine-neutral; no Node built-ins, activities by type only).
 *
 * One workflow per run of a deployment, id `deployment-<id>-run-<n>`, started from the log by the
 * starter (`starter.ts`) on `deployment.provisioning.requested`. It runs the run's steps in order
 * (`tenant`, `api_keys`, `branding`, from the run's first step), one `deployments.step` activity each,
 * then `deployments.activate`. A step that fails (the activity records `deployment.step.failed`) ends
 * the run: the deployment is `failed` until a retry starts run n+1 at that step. A step interrupted by
 * a restart (or whose recording failed) is scheduled again under a new activity id after a short timer:
 * steps are idempotent, so running one twice creates nothing twice. After {@link MAX_STEP_TRIES}
 * such tries the run records the failure and ends.
 */
export const DEPLOYMENT_PROVISIONING_WORKFLOW = 'deployment-provisioning';
/** Tries of one step whose activity did not report (interrupted or errored) before the run gives up. */
export const MAX_STEP_TRIES = 5;
/** Delay before trying such a step again, ms. */
export const STEP_RETRY_DELAY_MS = 1_000;

export const provisioningWorkflowId = (deploymentId: string, run: number) => `deployment-${deploymentId}-run-${run}`;

/** Input of `engine.start(DEPLOYMENT_PROVISIONING_WORKFLOW, id, input)`. */
export interface ProvisioningStart {
  deploymentId: string;
  ownerTenantId: string;
  run: number;
  /** Steps of this run, in order. */
  steps: Step[];
}

export interface ProvisioningState extends ProvisioningStart {
  /** Index in `steps` of the current step; `steps.length` = activating. */
  index: number;
  /** Tries of the current step (activity ids `<step>-<try>`). */
  tries: number;
  outcome: 'running' | 'active' | 'failed' | 'superseded';
}

function current(s: ProvisioningState): WorkflowEffect {
  if (s.index >= s.steps.length) {
    const input: StepInput = { deploymentId: s.deploymentId, run: s.run, step: null };
    return { type: 'activity', id: `activate-${s.tries}`, name: 'deployments.activate', input };
  }
  const input: StepInput = { deploymentId: s.deploymentId, run: s.run, step: s.steps[s.index]! };
  return { type: 'activity', id: `${s.steps[s.index]}-${s.tries}`, name: 'deployments.step', input, concurrency: { key: 'deployments', limit: 4 } };
}

const currentId = (s: ProvisioningState) => (s.index >= s.steps.length ? `activate-${s.tries}` : `${s.steps[s.index]}-${s.tries}`);

export const provisioningProcess: ProcessManager<ProvisioningState> = {
  name: DEPLOYMENT_PROVISIONING_WORKFLOW,
  handle(state, input: WorkflowInput, { now }) {
    if (state === undefined) {
      if (input.type !== 'started') throw new Error('deployment-provisioning: first input must be started');
      const s: ProvisioningState = { ...(input.input as ProvisioningStart), index: 0, tries: 1, outcome: 'running' };
      return { state: s, effects: [current(s)] };
    }
    switch (input.type) {
      case 'started':
      case 'signal':
        return { state, effects: [] };
      case 'timer.fired':
        if (input.id !== `retry-${currentId(state)}`) return { state, effects: [] };
        return { state, effects: [current(state)] };
      case 'activity.completed': {
        if (input.id === 'record-failure') return { state, effects: [], done: true };
        if (input.id !== currentId(state)) return { state, effects: [] };
        const r = input.result as StepOutcome;
        if (r.outcome === 'failed') return { state: { ...state, outcome: 'failed' }, effects: [], done: true };
        if (r.outcome === 'superseded') return { state: { ...state, outcome: 'superseded' }, effects: [], done: true };
        if (state.index >= state.steps.length) return { state: { ...state, outcome: 'active' }, effects: [], done: true };
        const next: ProvisioningState = { ...state, index: state.index + 1, tries: 1 };
        return { state: next, effects: [current(next)] };
      }
      case 'activity.failed': {
        if (input.id === 'record-failure') return { state, effects: [], done: true };
        if (input.id !== currentId(state)) return { state, effects: [] };
        if (state.tries >= MAX_STEP_TRIES) {
          const step = state.steps[Math.min(state.index, state.steps.length - 1)]!;
          const rec: StepInput = { deploymentId: state.deploymentId, run: state.run, step, reason: input.error };
          return { state: { ...state, outcome: 'failed' }, effects: [{ type: 'activity', id: 'record-failure', name: 'deployments.recordFailure', input: rec }] };
        }
        // Interrupted by a restart, or the step could not record its outcome: try it again (idempotent).
        const next: ProvisioningState = { ...state, tries: state.tries + 1 };
        return { state: next, effects: [{ type: 'timer', id: `retry-${currentId(next)}`, at: now + (input.interrupted ? 0 : STEP_RETRY_DELAY_MS) }] };
      }
      default: {
        const never: never = input;
        return never;
      }
    }
  },
};

/** Deactivation: one workflow per deployment (`deployment-<id>-deactivate`) revoking the keys it issued. */
export const DEPLOYMENT_DEACTIVATION_WORKFLOW = 'deployment-deactivation';
export const deactivationWorkflowId = (deploymentId: string) => `deployment-${deploymentId}-deactivate`;

export interface DeactivationState {
  deploymentId: string;
  tries: number;
}

export const deactivationProcess: ProcessManager<DeactivationState> = {
  name: DEPLOYMENT_DEACTIVATION_WORKFLOW,
  handle(state, input, { now }) {
    if (state === undefined) {
      if (input.type !== 'started') throw new Error('deployment-deactivation: first input must be started');
      const s: DeactivationState = { deploymentId: (input.input as { deploymentId: string }).deploymentId, tries: 1 };
      return { state: s, effects: [{ type: 'activity', id: 'revoke-1', name: 'deployments.revokeKeys', input: { deploymentId: s.deploymentId } }] };
    }
    if (input.type === 'activity.completed' && input.id === `revoke-${state.tries}`) return { state, effects: [], done: true };
    if (input.type === 'activity.failed' && input.id === `revoke-${state.tries}`) {
      const s = { ...state, tries: state.tries + 1 };
      // Revocation must happen: keep trying, backing off to one try a minute.
      return { state: s, effects: [{ type: 'timer', id: `retry-${s.tries}`, at: now + Math.min(60_000, 1_000 * 2 ** s.tries) }] };
    }
    if (input.type === 'timer.fired' && input.id === `retry-${state.tries}`) {
      return { state, effects: [{ type: 'activity', id: `revoke-${state.tries}`, name: 'deployments.revokeKeys', input: { deploymentId: state.deploymentId } }] };
    }
    return { state, effects: [] };
  },
};
