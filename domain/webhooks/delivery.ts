/**
 * Delivery rules (spec, "Events" > "Delivery outcome and retries", "States" > "Webhook delivery", Limits).
 */

/** Attempts per delivery: immediate, then after 1 min, 5 min, 30 min, 2 h (spec Limits, "Webhook retries"). */
export const MAX_ATTEMPTS = 5;

/** Delay before attempt n+2 after attempt n+1 failed (ms): 1 min, 5 min, 30 min, 2 h (spec Limits). */
export const RETRY_DELAYS_MS: readonly number[] = [60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000];

/** A receiver must answer within this many ms (spec Limits, "Webhook delivery timeout: 10 seconds"). */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Bytes of the receiver's answer kept in `response_body` of the `test` operation and `error_message`. */
export const RESPONSE_BODY_LIMIT = 1024;

/**
 * Outcome of one HTTP attempt:
 * - `success`: 2xx within the timeout (spec);
 * - `failed`: non-2xx, timeout, connection error, invalid TLS certificate, redirect (not followed), or an
 *   address refused by the SSRF guard;
 * - `gone`: 410 Gone; the endpoint is disabled and no retry follows (receivers use it to unsubscribe);
 * - `skipped`: nothing was sent because the endpoint was deleted or deactivated meanwhile.
 */
export type AttemptOutcome = 'success' | 'failed' | 'gone' | 'skipped';

/** Public delivery status: the spec's `success`/`failed`, plus `pending` while retries remain. */
export type DeliveryStatus = 'pending' | 'success' | 'failed';

/** The delivery's status once attempt number `attempt` (1-based) ended with `outcome`. */
export function statusAfterAttempt(attempt: number, outcome: AttemptOutcome): DeliveryStatus {
  if (outcome === 'success') return 'success';
  if (outcome === 'gone' || outcome === 'skipped') return 'failed';
  return attempt >= MAX_ATTEMPTS ? 'failed' : 'pending';
}

/** When attempt `attempt + 1` is due after attempt `attempt` failed at `failedAt` (epoch ms); null after the last. */
export function nextAttemptAt(attempt: number, failedAt: number): number | null {
  const d = RETRY_DELAYS_MS[attempt - 1];
  return attempt >= MAX_ATTEMPTS || d === undefined ? null : failedAt + d;
}

/** The delivery-attempt event appended by the delivery activity (stream `webhook-delivery-<deliveryId>`). */
export interface DeliveryAttemptedData {
  delivery_id: string;
  endpoint_id: string;
  tenant_id: string;
  event_id: string;
  event_type: string;
  /** 1-based attempt number. */
  attempt: number;
  outcome: AttemptOutcome;
  /** Status of the delivery after this attempt. */
  status: DeliveryStatus;
  response_status: number | null;
  /** Milliseconds from sending to the end of the answer (or the failure). */
  response_time: number | null;
  error_message: string | null;
  /** ISO 8601: when the delivery was created (event fanned out). */
  created_at: string;
  /** ISO 8601: when this attempt started. */
  attempted_at: string;
  /** ISO 8601 of the next attempt, when one is scheduled. */
  next_attempt_at: string | null;
}

export const DELIVERY_ATTEMPTED = 'webhook.delivery.attempted';

export function deliveryStream(deliveryId: string): string {
  return `webhook-delivery-${deliveryId}`;
}

/** The JSON body of a delivery (spec "Delivery format"): `{id, type, created, data}`, serialised once. */
export function serializeDeliveryBody(event: { id: string; type: string; createdSeconds: number; data: unknown }): string {
  return JSON.stringify({ id: event.id, type: event.type, created: event.createdSeconds, data: event.data ?? {} });
}
