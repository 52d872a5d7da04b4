/**
 * The `privacy-retention` process manager (one workflow per deployment, id {@link retentionWorkflowId},
 * started by every API process; a second start is ignored): a daily sweep of every tenant's retention periods
 * (`domain/privacy/retention.ts`, docs/privacy.md "Retention"). It sweeps once when started (catching up
 * after downtime), then sleeps on a durable timer until the next day by the engine's clock; a failed sweep
 * is retried after an hour, an interrupted one (process restart) at once. Engine-neutral: the embedded
 * engine and Temporal run it alike.
 */
import type { ProcessManager } from '../../infra/ports/workflows.ts';

export const RETENTION_WORKFLOW = 'privacy-retention';
/**
 * The sweep's workflow id: `privacy-retention`, and on Temporal `privacy-retention-<task queue>` (one per
 * deployment sharing a Temporal namespace, like the engine's semaphore; a workflow that never ends would
 * otherwise hold the id for every other deployment).
 */
export const retentionWorkflowId = (temporalTaskQueue: string | null): string => (temporalTaskQueue ? `privacy-retention-${temporalTaskQueue}` : 'privacy-retention');
export const RETENTION_ACTIVITIES = { sweep: 'privacy-retention.sweep' } as const;
/** Time between two sweeps (ms). */
export const SWEEP_INTERVAL_MS = 86_400_000;
/** Wait before retrying a failed sweep (ms). */
export const SWEEP_RETRY_MS = 3_600_000;

export interface RetentionState {
  /** Sweeps started so far (the activity id is `sweep-<n>`). */
  sweeps: number;
  /** Epoch ms of the last sweep that completed, or null. */
  last_completed_at: number | null;
}

const sweep = (state: RetentionState) => {
  state.sweeps += 1;
  return { type: 'activity' as const, id: `sweep-${state.sweeps}`, name: RETENTION_ACTIVITIES.sweep, input: {}, concurrency: { key: 'privacy-retention', limit: 1 } };
};

export const retentionProcess: ProcessManager<RetentionState> = {
  name: RETENTION_WORKFLOW,
  handle(state, input, { now }) {
    if (input.type === 'started') {
      const s: RetentionState = { sweeps: 0, last_completed_at: null };
      return { state: s, effects: [sweep(s)] };
    }
    if (!state) return { state: state!, effects: [], done: true };
    switch (input.type) {
      case 'activity.completed':
        state.last_completed_at = now;
        return { state, effects: [{ type: 'timer', id: 'next', at: now + SWEEP_INTERVAL_MS }] };
      case 'activity.failed':
        if (input.interrupted) return { state, effects: [sweep(state)] };
        return { state, effects: [{ type: 'timer', id: 'next', at: now + SWEEP_RETRY_MS }] };
      case 'timer.fired':
        return { state, effects: [sweep(state)] };
      default:
        return { state, effects: [] };
    }
  },
};
