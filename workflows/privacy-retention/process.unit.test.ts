/** The `privacy-retention` process manager's schedule: sweep at start, daily timer, retries. */
import { describe, expect, it } from 'vitest';
import { RETENTION_ACTIVITIES, SWEEP_INTERVAL_MS, SWEEP_RETRY_MS, retentionProcess, retentionWorkflowId, type RetentionState } from './process.ts';

const ctx = (now: number) => ({ now, workflowId: 'privacy-retention' });

describe('privacy-retention process manager', () => {
  it('sweeps at start, then a day after each completed sweep; retries a failure after an hour and an interrupted sweep at once', () => {
    const t0 = Date.UTC(2026, 2, 1);
    let r = retentionProcess.handle(undefined, { type: 'started', input: {} }, ctx(t0));
    expect(r.effects).toEqual([expect.objectContaining({ type: 'activity', id: 'sweep-1', name: RETENTION_ACTIVITIES.sweep })]);
    let state: RetentionState = r.state;
    r = retentionProcess.handle(state, { type: 'activity.completed', id: 'sweep-1', result: {} }, ctx(t0 + 5));
    expect(r.effects).toEqual([{ type: 'timer', id: 'next', at: t0 + 5 + SWEEP_INTERVAL_MS }]);
    expect(r.state.last_completed_at).toBe(t0 + 5);
    state = r.state;
    r = retentionProcess.handle(state, { type: 'timer.fired', id: 'next' }, ctx(t0 + SWEEP_INTERVAL_MS));
    expect(r.effects).toEqual([expect.objectContaining({ type: 'activity', id: 'sweep-2' })]);
    r = retentionProcess.handle(r.state, { type: 'activity.failed', id: 'sweep-2', error: 'db down' }, ctx(t0 + SWEEP_INTERVAL_MS + 1));
    expect(r.effects).toEqual([{ type: 'timer', id: 'next', at: t0 + SWEEP_INTERVAL_MS + 1 + SWEEP_RETRY_MS }]);
    r = retentionProcess.handle(r.state, { type: 'activity.failed', id: 'sweep-2', error: 'restart', interrupted: true }, ctx(t0 + SWEEP_INTERVAL_MS + 2));
    expect(r.effects).toEqual([expect.objectContaining({ type: 'activity', id: 'sweep-3' })]);
    expect(r.done).toBeFalsy();
  });

  it('has one workflow id per deployment on Temporal', () => {
    expect(retentionWorkflowId(null)).toBe('privacy-retention');
    expect(retentionWorkflowId('sello')).toBe('privacy-retention-sello');
  });
});
