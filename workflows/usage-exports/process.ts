/**
 * The `usage-export` process manager (workflow id = export id): write the file (one activity streaming
 * rows from the read models into the blob store), record the completion and e-mail `email_to`, then
 * sleep on a durable timer until the plan's export history has passed and delete the file. An
 * interrupted write (process restart) is retried once under a new activity id. Engine-neutral.
 */
import type { ProcessManager } from '../../infra/ports/workflows.ts';

export interface ExportInput {
  export_id: string;
  tenant_id: string;
  /** Days the file is kept after completion (the plan's export history). */
  history_days: number;
}

export interface ExportState {
  input: ExportInput;
  writes: number;
  phase: 'writing' | 'finishing' | 'waiting' | 'expiring' | 'failing';
}

export const EXPORT_ACTIVITIES = { write: 'usage-export.write', finish: 'usage-export.finish', fail: 'usage-export.fail', expire: 'usage-export.expire' } as const;

export interface WriteResult {
  rows: number;
  bytes: number;
  blob_key: string;
}

export const exportProcess: ProcessManager<ExportState> = {
  name: 'usage-export',
  handle(state, input, { now }) {
    if (input.type === 'started') {
      const i = input.input as ExportInput;
      return { state: { input: i, writes: 1, phase: 'writing' }, effects: [{ type: 'activity', id: 'write-1', name: EXPORT_ACTIVITIES.write, input: i, concurrency: { key: 'usage-export', limit: 2 } }] };
    }
    if (!state) return { state: state!, effects: [], done: true };
    switch (input.type) {
      case 'activity.completed':
        if (input.id.startsWith('write-')) {
          state.phase = 'finishing';
          const expiresAt = now + state.input.history_days * 86_400_000;
          return { state, effects: [{ type: 'activity', id: 'finish', name: EXPORT_ACTIVITIES.finish, input: { ...state.input, result: input.result as WriteResult, expires_at: expiresAt } }] };
        }
        if (input.id === 'finish') {
          state.phase = 'waiting';
          const { expires_at } = input.result as { expires_at: number };
          return { state, effects: [{ type: 'timer', id: 'expire', at: expires_at }] };
        }
        return { state, effects: [], done: true }; // fail or expire recorded
      case 'activity.failed':
        if (input.id.startsWith('write-') && input.interrupted && state.writes < 2) {
          state.writes += 1;
          return { state, effects: [{ type: 'activity', id: `write-${state.writes}`, name: EXPORT_ACTIVITIES.write, input: state.input }] };
        }
        if (input.id.startsWith('write-') || input.id === 'finish') {
          state.phase = 'failing';
          return { state, effects: [{ type: 'activity', id: 'fail', name: EXPORT_ACTIVITIES.fail, input: { ...state.input, reason: input.error } }] };
        }
        // The failure record or the deletion failed: try again in an hour (the timer is durable).
        return { state, effects: [{ type: 'timer', id: input.id === 'fail' ? 'fail-retry' : 'expire', at: now + 3_600_000 }] };
      case 'timer.fired':
        if (input.id === 'fail-retry') return { state, effects: [{ type: 'activity', id: 'fail', name: EXPORT_ACTIVITIES.fail, input: { ...state.input, reason: 'export failed' } }] };
        state.phase = 'expiring';
        return { state, effects: [{ type: 'activity', id: `expire-${now}`, name: EXPORT_ACTIVITIES.expire, input: state.input }] };
      default:
        return { state, effects: [] };
    }
  },
};
