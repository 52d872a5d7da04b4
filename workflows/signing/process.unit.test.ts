/** The signing lifecycle process manager, input by input (no engine). */
import { describe, expect, it } from 'vitest';
import { signingLifecycle, type LifecycleState } from './process.ts';
import type { Transition, WorkflowInput } from '../../infra/ports/workflows.ts';

const DAY = 86_400_000;
function run(inputs: [WorkflowInput, number][]): Transition<LifecycleState>[] {
  let state: LifecycleState | undefined;
  return inputs.map(([input, now]) => {
    const t = signingLifecycle.handle(state, input, { now, workflowId: 'doc_x' });
    state = t.state;
    return t;
  });
}
const ev = (revision: number, name: string, data: Record<string, unknown> = {}): WorkflowInput => ({ type: 'signal', name: 'event', payload: { revision, name, data } });

describe('signing-lifecycle process manager', () => {
  it('arms the expiry timer, notifies invited signers, re-arms reminders, ignores re-delivered signals', () => {
    const [start, inv, dup, rem] = run([
      [{ type: 'started', input: { documentId: 'doc_x', tenantId: 't', expiresAt: 10 * DAY } }, 0],
      [ev(1, 'invitations_sent', { signer_ids: ['a', 'b'], reminder_days: 2 }), 100],
      [ev(1, 'invitations_sent', { signer_ids: ['a', 'b'], reminder_days: 2 }), 200],
      [{ type: 'timer.fired', id: 'reminder' }, 2 * DAY + 100],
    ]);
    expect(start!.effects).toEqual([{ type: 'timer', id: 'expiry', at: 10 * DAY }]);
    expect(inv!.effects.filter((e) => e.type === 'activity').map((e) => (e as { name: string }).name)).toEqual(['signing.notify', 'signing.notify']);
    expect(inv!.effects).toContainEqual({ type: 'timer', id: 'reminder', at: 2 * DAY + 100 });
    expect(dup!.effects).toEqual([]);
    expect(rem!.effects).toEqual([
      expect.objectContaining({ type: 'activity', name: 'signing.remind', id: 'remind-1' }),
      { type: 'timer', id: 'reminder', at: 4 * DAY + 100 },
    ]);
  });

  it('publishes webhooks for signatures and completion and stops reminding once signed', () => {
    const ts = run([
      [{ type: 'started', input: { documentId: 'doc_x', tenantId: 't', expiresAt: 10 * DAY } }, 0],
      [ev(1, 'invitations_sent', { signer_ids: ['a'], reminder_days: 1 }), 0],
      [ev(3, 'document_signed'), 10],
      [ev(4, 'document_completed'), 10],
      [{ type: 'timer.fired', id: 'reminder' }, DAY],
    ]);
    expect(ts[2]!.effects).toEqual([expect.objectContaining({ name: 'signing.webhook', input: expect.objectContaining({ name: 'document.signed', revision: 3 }) })]);
    expect(ts[3]!.effects).toEqual([expect.objectContaining({ name: 'signing.webhook', input: expect.objectContaining({ name: 'document.completed' }) })]);
    expect(ts[4]!.effects).toEqual([]);
  });

  it('expiry runs the expire activity; the workflow ends once closed and its activities reported', () => {
    const ts = run([
      [{ type: 'started', input: { documentId: 'doc_x', tenantId: 't', expiresAt: DAY } }, 0],
      [{ type: 'timer.fired', id: 'expiry' }, DAY],
      [{ type: 'activity.completed', id: 'expire', result: { expired: true } }, DAY],
      [ev(1, 'document_expired'), DAY],
      [{ type: 'activity.completed', id: 'webhook-1', result: {} }, DAY],
    ]);
    expect(ts[1]!.effects).toEqual([expect.objectContaining({ name: 'signing.expire', id: 'expire' })]);
    expect(ts[3]!.done).toBe(false);
    expect(ts[4]!.done).toBe(true);
  });

  it('retries a failed or interrupted activity under a new id, then gives up', () => {
    const ts = run([
      [{ type: 'started', input: { documentId: 'doc_x', tenantId: 't', expiresAt: DAY } }, 0],
      [ev(1, 'invitations_sent', { signer_ids: ['a'], reminder_days: 0 }), 0],
      [{ type: 'activity.failed', id: 'notify-1-a', error: 'smtp down', interrupted: true }, 10],
      [{ type: 'timer.fired', id: 'retry:notify-1-a' }, 5_010],
    ]);
    expect(ts[2]!.effects).toEqual([{ type: 'timer', id: 'retry:notify-1-a', at: 5_010 }]);
    expect(ts[3]!.effects).toEqual([expect.objectContaining({ type: 'activity', id: 'notify-1-a~2', name: 'signing.notify' })]);
  });
});
