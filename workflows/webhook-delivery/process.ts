import type { ProcessManager, WorkflowEffect, WorkflowInput } from '../../infra/ports/workflows.ts';
import { MAX_ATTEMPTS, nextAttemptAt, statusAfterAttempt, type AttemptOutcome, type DeliveryStatus } from '../../domain/webhooks/delivery.ts';
import type { AttemptInput, AttemptResult, RecordFailureInput } from './activities.ts';

/**
 * The webhook delivery process manager (engine-neutral; no Node built-ins, activities by type only).
 *
 * One workflow per (event, endpoint), id = the delivery id. Attempt 1 runs at once; after a failed attempt
 * n (n < 5) a timer schedules attempt n+1 after 1 min, 5 min, 30 min, 2 h (spec Limits); after the 5th
 * failure, a 410 answer, or when the endpoint is gone the delivery ends `failed`; a 2xx ends it `success`.
 * Attempt ids are `attempt-<n>`: the engine starts each at most once, so no attempt is sent twice; an
 * attempt interrupted by a restart counts as failed and the next one is scheduled normally.
 */
export const WEBHOOK_DELIVERY_WORKFLOW = 'webhook-delivery';

/** Input of `engine.start(WEBHOOK_DELIVERY_WORKFLOW, deliveryId, input)`. */
export interface DeliveryStart {
  deliveryId: string;
  tenantId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  /**
   * Revision of the event in the tenant's webhook-events stream. Each attempt rebuilds the exact body
   * bytes from the logged event (`serializeDeliveryBody`), so the event's data (a signer's name, e-mail
   * and IP address...) is never part of the workflow's state, inputs or history (on Temporal: its memo
   * and decision records, which operators read).
   */
  eventRevision: number;
  /** ISO 8601 of the delivery's creation. */
  createdAt: string;
  /** Attempts of one endpoint running at once (engine concurrency key = endpoint id). */
  perEndpointConcurrency: number;
}

export interface DeliveryState extends DeliveryStart {
  attempts: number;
  status: DeliveryStatus;
  lastOutcome: AttemptOutcome | null;
  nextAttemptAt: number | null;
}

function attemptEffect(s: DeliveryState, attempt: number): WorkflowEffect {
  const input: AttemptInput = {
    deliveryId: s.deliveryId,
    tenantId: s.tenantId,
    endpointId: s.endpointId,
    eventId: s.eventId,
    eventType: s.eventType,
    eventRevision: s.eventRevision,
    createdAt: s.createdAt,
    attempt,
  };
  return {
    type: 'activity',
    id: `attempt-${attempt}`,
    name: 'webhook.attempt',
    input,
    concurrency: { key: `webhook-endpoint:${s.endpointId}`, limit: s.perEndpointConcurrency },
  };
}

export const webhookDeliveryProcess: ProcessManager<DeliveryState> = {
  name: WEBHOOK_DELIVERY_WORKFLOW,
  handle(state, input: WorkflowInput, { now }) {
    if (state === undefined) {
      if (input.type !== 'started') throw new Error('webhook-delivery: first input must be started');
      const start = input.input as DeliveryStart;
      const s: DeliveryState = { ...start, attempts: 0, status: 'pending', lastOutcome: null, nextAttemptAt: null };
      return { state: s, effects: [attemptEffect(s, 1)] };
    }
    switch (input.type) {
      case 'started':
      case 'signal':
        return { state, effects: [] };
      case 'timer.fired': {
        const m = /^retry-(\d+)$/.exec(input.id);
        if (!m || Number(m[1]) !== state.attempts + 1) return { state, effects: [] };
        return { state: { ...state, nextAttemptAt: null }, effects: [attemptEffect(state, state.attempts + 1)] };
      }
      case 'activity.completed': {
        if (input.id === 'record-failure') return { state, effects: [], done: true };
        const attempt = Number(input.id.replace('attempt-', ''));
        if (attempt !== state.attempts + 1) return { state, effects: [] };
        const r = input.result as AttemptResult;
        return afterAttempt(state, attempt, r.outcome, now, false);
      }
      case 'activity.failed': {
        if (input.id === 'record-failure') return { state, effects: [], done: true };
        const attempt = Number(input.id.replace('attempt-', ''));
        if (attempt !== state.attempts + 1) return { state, effects: [] };
        // The attempt did not report (interrupted by a restart, or the recording failed): count it as failed.
        return afterAttempt(state, attempt, 'failed', now, true);
      }
      default: {
        const never: never = input;
        return never;
      }
    }
  },
};

function afterAttempt(state: DeliveryState, attempt: number, outcome: AttemptOutcome, now: number, unrecorded: boolean) {
  const status = statusAfterAttempt(attempt, outcome);
  const next = status === 'pending' ? nextAttemptAt(attempt, now) : null;
  const s: DeliveryState = { ...state, attempts: attempt, status, lastOutcome: outcome, nextAttemptAt: next };
  if (status === 'pending' && next !== null) {
    return { state: s, effects: [{ type: 'timer', id: `retry-${attempt + 1}`, at: next } satisfies WorkflowEffect] };
  }
  if (unrecorded) {
    // The final failure has no attempt event in the log: record it so the read model shows `failed`.
    const input: RecordFailureInput = {
      deliveryId: s.deliveryId,
      tenantId: s.tenantId,
      endpointId: s.endpointId,
      eventId: s.eventId,
      eventType: s.eventType,
      createdAt: s.createdAt,
      attempt,
    };
    return { state: s, effects: [{ type: 'activity', id: 'record-failure', name: 'webhook.recordFailure', input } satisfies WorkflowEffect] };
  }
  return { state: s, effects: [], done: true };
}

export { MAX_ATTEMPTS };
