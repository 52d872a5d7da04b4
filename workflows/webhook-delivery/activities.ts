import type { EventStore } from '../../infra/ports/event-store.ts';
import type { Activity, Clock } from '../../infra/ports/workflows.ts';
import {
  DELIVERY_ATTEMPTED,
  deliveryStream,
  nextAttemptAt,
  serializeDeliveryBody,
  statusAfterAttempt,
  type AttemptOutcome,
  type DeliveryAttemptedData,
} from '../../domain/webhooks/delivery.ts';
import { endpointStream, evolve, initialEndpointState, type WebhookEndpointEvent, type WebhookEndpointState } from '../../domain/webhooks/endpoint.ts';
import type { SecretBox } from '../../domain/webhooks/secret-box.ts';
import { deliveryHeaders } from '../../domain/webhooks/signature.ts';
import { webhookEventsStream } from '../../domain/webhooks/catalog.ts';
import type { WebhookSender } from './sender.ts';

/** Input of the `webhook.attempt` activity. */
export interface AttemptInput {
  deliveryId: string;
  tenantId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** Revision of the event in the tenant's webhook-events stream (the body is rebuilt from it). */
  eventRevision: number;
  /** The body itself: only in the input of a delivery started before bodies were rebuilt from the log. */
  body?: string;
  createdAt: string;
  /** 1-based. */
  attempt: number;
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  responseStatus: number | null;
}

/** Input of the `webhook.recordFailure` activity (final failure of an attempt that left no record). */
export type RecordFailureInput = Omit<AttemptInput, 'body' | 'eventRevision'>;

export interface WebhookActivityDeps {
  eventStore: EventStore;
  sender: WebhookSender;
  secrets: SecretBox;
  clock: Clock;
  logger?: { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };
}

/** Reads an endpoint's current state from its stream (the log is the source of truth, never stale). */
export async function loadEndpoint(eventStore: EventStore, endpointId: string): Promise<WebhookEndpointState> {
  const { events } = await eventStore.readStream(endpointStream(endpointId));
  let s = initialEndpointState;
  for (const e of events) s = evolve(s, { type: e.type, data: e.data } as WebhookEndpointEvent);
  return s;
}

/**
 * The side effects of the delivery workflow (Temporal-style `createActivities(deps)` factory):
 * - `webhook.attempt`: loads the endpoint, re-checks it is active, signs the exact body and POSTs it once
 *   (SSRF guard, TLS, 10 s limit in the sender), disables the endpoint on 410, and appends a
 *   `webhook.delivery.attempted` event (the read models and `success_rate` come from it);
 * - `webhook.recordFailure`: appends the final `failed` record for an attempt that never reported.
 */
export function createWebhookActivities(deps: WebhookActivityDeps): Record<string, Activity> {
  const { eventStore, sender, secrets, clock } = deps;
  const iso = (ms: number) => new Date(ms).toISOString();

  async function record(input: RecordFailureInput, outcome: AttemptOutcome, r: { status: number | null; timeMs: number | null; error: string | null }, startedAt: number) {
    const status = statusAfterAttempt(input.attempt, outcome);
    const next = status === 'pending' ? nextAttemptAt(input.attempt, clock.now()) : null;
    const data: DeliveryAttemptedData = {
      delivery_id: input.deliveryId,
      endpoint_id: input.endpointId,
      tenant_id: input.tenantId,
      event_id: input.eventId,
      event_type: input.eventType,
      attempt: input.attempt,
      outcome,
      status,
      response_status: r.status,
      response_time: r.timeMs,
      error_message: r.error,
      created_at: input.createdAt,
      attempted_at: iso(startedAt),
      next_attempt_at: next === null ? null : iso(next),
    };
    await eventStore.append(deliveryStream(input.deliveryId), [{ type: DELIVERY_ATTEMPTED, data, metadata: { tenant_id: input.tenantId } }]);
  }

  const attempt: Activity = async (input: AttemptInput): Promise<AttemptResult> => {
    const startedAt = clock.now();
    const ep = await loadEndpoint(eventStore, input.endpointId);
    if (ep.status !== 'present' || !ep.active || ep.tenantId !== input.tenantId) {
      const why = ep.status === 'present' && ep.active === false ? 'endpoint is inactive' : 'endpoint was deleted';
      await record(input, 'skipped', { status: null, timeMs: null, error: `not sent: ${why}` }, startedAt);
      return { outcome: 'skipped', responseStatus: null };
    }
    let secret: string;
    try {
      secret = secrets.open(ep.secretSealed, ep.id);
    } catch {
      // Wrong or lost WEBHOOK_SECRET_KEY: nothing can be signed. Recorded like any failed attempt.
      deps.logger?.warn({ endpointId: ep.id }, 'webhooks: endpoint secret cannot be decrypted (WEBHOOK_SECRET_KEY changed?)');
      await record(input, 'failed', { status: null, timeMs: null, error: 'not sent: the endpoint secret cannot be decrypted with the configured key' }, startedAt);
      return { outcome: 'failed', responseStatus: null };
    }
    const body = input.body ?? (await eventBody(eventStore, input));
    if (body === null) {
      await record(input, 'failed', { status: null, timeMs: null, error: 'not sent: the event is no longer in the log' }, startedAt);
      return { outcome: 'failed', responseStatus: null };
    }
    const headers = deliveryHeaders({
      secret,
      body,
      eventType: input.eventType,
      deliveryId: input.deliveryId,
      timestampSeconds: Math.floor(clock.now() / 1000),
    });
    const res = await sender.send(ep.url, headers, body);
    if (res.outcome === 'gone') {
      const data = { endpoint_id: ep.id, tenant_id: ep.tenantId, reason: 'receiver answered 410 Gone', delivery_id: input.deliveryId, updated_at: iso(clock.now()) };
      await eventStore.append(endpointStream(ep.id), [{ type: 'webhook.endpoint.disabled', data, metadata: { tenant_id: ep.tenantId } }]);
      deps.logger?.info({ endpointId: ep.id, tenantId: ep.tenantId }, 'webhooks: endpoint disabled after 410 Gone');
    }
    await record(input, res.outcome, { status: res.responseStatus, timeMs: res.responseTimeMs, error: res.errorMessage }, startedAt);
    return { outcome: res.outcome, responseStatus: res.responseStatus };
  };

  const recordFailure: Activity = async (input: RecordFailureInput) => {
    await record(input, 'failed', { status: null, timeMs: null, error: 'attempt interrupted before its outcome was recorded' }, clock.now());
    return null;
  };

  return { 'webhook.attempt': attempt, 'webhook.recordFailure': recordFailure };
}

/**
 * The exact body of a delivery, rebuilt from the logged event at `input.eventRevision` of the tenant's
 * webhook-events stream: the same bytes on every attempt (`serializeDeliveryBody` of the event's id,
 * type, recording second and data), as the fan-out would have built them.
 * @returns null when no event with `input.eventId` is at that revision.
 */
async function eventBody(eventStore: EventStore, input: AttemptInput): Promise<string | null> {
  const { events } = await eventStore.readStream(webhookEventsStream(input.tenantId), { fromRevision: input.eventRevision, maxCount: 1 });
  const e = events[0];
  if (!e || e.eventId !== input.eventId) return null;
  return serializeDeliveryBody({ id: e.eventId, type: e.type, createdSeconds: Math.floor(Date.parse(e.recordedAt) / 1000), data: e.data });
}
