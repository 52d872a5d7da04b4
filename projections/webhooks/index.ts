import type { RecordedEvent } from '../../infra/ports/event-store.ts';
import type { Collection, ReadModelStore } from '../../infra/ports/read-models.ts';
import { DELIVERY_ATTEMPTED, type DeliveryAttemptedData, type DeliveryStatus } from '../../domain/webhooks/delivery.ts';
import { WEBHOOK_ENDPOINT_EVENT_TYPES, type WebhookEndpointEvent } from '../../domain/webhooks/endpoint.ts';
import type { Projection } from '../projection.ts';

/** Read model of an endpoint (collection `webhook_endpoints`). The secret is never projected. */
export interface WebhookEndpointDoc {
  [k: string]: unknown;
  id: string;
  tenant_id: string;
  url: string;
  events: string[];
  description: string | null;
  active: boolean;
  created_at: string;
  updated_at: string;
  /** ISO 8601 of the latest attempt actually sent (any outcome); null before the first. */
  last_delivery: string | null;
  /** Finished deliveries that succeeded / all finished deliveries; null before the first finished one. */
  success_rate: number | null;
  deliveries_succeeded: number;
  deliveries_failed: number;
  /** Global position of the creation event: only events after it are delivered to this endpoint. */
  created_position: number;
}

/** Read model of a delivery (collection `webhook_deliveries`), spec "Webhook delivery" fields plus ours. */
export interface WebhookDeliveryDoc {
  [k: string]: unknown;
  id: string;
  tenant_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  /** Attempts that sent a request (a step skipped because the endpoint was inactive or deleted is not one). */
  attempts: number;
  response_status: number | null;
  response_time: number | null;
  error_message: string | null;
  created_at: string;
  last_attempt: string | null;
  next_attempt_at: string | null;
  /** Global position of the last applied event (idempotence). */
  position: number;
}

export const ENDPOINTS_COLLECTION = 'webhook_endpoints';
export const DELIVERIES_COLLECTION = 'webhook_deliveries';

export async function endpointsCollection(store: ReadModelStore): Promise<Collection<WebhookEndpointDoc>> {
  return store.collection<WebhookEndpointDoc>(ENDPOINTS_COLLECTION, { indexes: ['tenant_id', ['tenant_id', 'created_at']] });
}

export async function deliveriesCollection(store: ReadModelStore): Promise<Collection<WebhookDeliveryDoc>> {
  return store.collection<WebhookDeliveryDoc>(DELIVERIES_COLLECTION, {
    indexes: [['endpoint_id', 'created_at'], ['endpoint_id', 'status'], ['endpoint_id', 'event_type']],
  });
}

function rate(ok: number, failed: number): number | null {
  return ok + failed === 0 ? null : Math.round((ok / (ok + failed)) * 10_000) / 10_000;
}

/**
 * Projection `webhooks`: endpoint documents (with `success_rate` and `last_delivery`) and delivery
 * documents, from the endpoint aggregate's events and the delivery activity's `webhook.delivery.attempted`.
 * Idempotent per event: a delivery document remembers the last global position applied to it, and
 * endpoint counters move only when a delivery first reaches a final status.
 */
export const webhooksProjection: Projection = {
  name: 'webhooks',
  collections: [ENDPOINTS_COLLECTION, DELIVERIES_COLLECTION],
  eventTypes: [...WEBHOOK_ENDPOINT_EVENT_TYPES, DELIVERY_ATTEMPTED],
  async apply(events: readonly RecordedEvent[], { store }) {
    const endpoints = await endpointsCollection(store);
    const deliveries = await deliveriesCollection(store);
    for (const e of events) {
      if (e.type === DELIVERY_ATTEMPTED) {
        await applyAttempt(e, e.data as DeliveryAttemptedData, endpoints, deliveries);
      } else {
        await applyEndpoint({ type: e.type, data: e.data } as WebhookEndpointEvent, e.globalPosition, endpoints);
      }
    }
  },
};

async function applyEndpoint(ev: WebhookEndpointEvent, position: number, endpoints: Collection<WebhookEndpointDoc>): Promise<void> {
  switch (ev.type) {
    case 'webhook.endpoint.created': {
      const d = ev.data;
      if (await endpoints.get(d.endpoint_id)) return;
      await endpoints.put(d.endpoint_id, {
        id: d.endpoint_id,
        tenant_id: d.tenant_id,
        url: d.url,
        events: d.events,
        description: d.description,
        active: d.active,
        created_at: d.created_at,
        updated_at: d.created_at,
        last_delivery: null,
        success_rate: null,
        deliveries_succeeded: 0,
        deliveries_failed: 0,
        created_position: position,
      });
      return;
    }
    case 'webhook.endpoint.updated': {
      const doc = await endpoints.get(ev.data.endpoint_id);
      if (!doc) return;
      const d = ev.data;
      await endpoints.put(doc.id, {
        ...doc,
        url: d.url ?? doc.url,
        events: d.events ?? doc.events,
        description: d.description !== undefined ? d.description : doc.description,
        active: d.active ?? doc.active,
        updated_at: d.updated_at,
      });
      return;
    }
    case 'webhook.endpoint.disabled': {
      const doc = await endpoints.get(ev.data.endpoint_id);
      if (doc) await endpoints.put(doc.id, { ...doc, active: false, updated_at: ev.data.updated_at });
      return;
    }
    case 'webhook.endpoint.deleted':
      await endpoints.delete(ev.data.endpoint_id);
      return;
    default: {
      const never: never = ev;
      return never;
    }
  }
}

async function applyAttempt(
  e: RecordedEvent,
  d: DeliveryAttemptedData,
  endpoints: Collection<WebhookEndpointDoc>,
  deliveries: Collection<WebhookDeliveryDoc>,
): Promise<void> {
  const prev = await deliveries.get(d.delivery_id);
  if (prev && prev.position >= e.globalPosition) return;
  const wasFinal = prev !== null && prev.status !== 'pending';
  const sent = d.outcome !== 'skipped' && d.response_time !== null;
  await deliveries.put(d.delivery_id, {
    id: d.delivery_id,
    tenant_id: d.tenant_id,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: wasFinal ? prev.status : d.status,
    // Requests actually sent: a step that found the endpoint inactive or deleted sent nothing.
    attempts: d.outcome === 'skipped' ? (prev?.attempts ?? 0) : Math.max(prev?.attempts ?? 0, d.attempt),
    response_status: d.response_status,
    response_time: d.response_time,
    error_message: d.error_message,
    created_at: d.created_at,
    last_attempt: sent ? d.attempted_at : (prev?.last_attempt ?? null),
    next_attempt_at: d.next_attempt_at,
    position: e.globalPosition,
  });
  const ep = await endpoints.get(d.endpoint_id);
  if (!ep) return;
  let { deliveries_succeeded: ok, deliveries_failed: failed } = ep;
  if (!wasFinal && d.status === 'success') ok++;
  if (!wasFinal && d.status === 'failed') failed++;
  const last = sent && (ep.last_delivery === null || d.attempted_at > ep.last_delivery) ? d.attempted_at : ep.last_delivery;
  await endpoints.put(ep.id, { ...ep, deliveries_succeeded: ok, deliveries_failed: failed, success_rate: rate(ok, failed), last_delivery: last });
}
