import { createHash } from 'node:crypto';
import type { EventStore, RecordedEvent, Subscription } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import type { Clock, WorkflowEngine } from '../../infra/ports/workflows.ts';
import { WEBHOOK_EVENT_TYPES, tenantOfWebhookEventsStream } from '../../domain/webhooks/catalog.ts';
import { endpointsCollection, type WebhookEndpointDoc } from '../../projections/webhooks/index.ts';
import { WEBHOOK_DELIVERY_WORKFLOW, type DeliveryStart } from './process.ts';

/** Checkpoint name of the fan-out in the read-model store. */
export const FANOUT_CHECKPOINT = 'webhook-fanout';

/** Delivery id of (event, endpoint): deterministic, so re-processing after a restart starts nothing twice. */
export function deliveryIdOf(eventId: string, endpointId: string): string {
  return 'whd_' + createHash('sha256').update(`${eventId}\u0000${endpointId}`).digest('hex').slice(0, 32);
}

export interface WebhookFanout {
  /** Resolves once every catalog event that existed when called has been fanned out. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

export interface WebhookFanoutDeps {
  eventStore: EventStore;
  readModels: ReadModelStore;
  engine: WorkflowEngine;
  clock: Clock;
  perEndpointConcurrency: number;
  logger?: { warn(obj: object, msg?: string): void };
}

/**
 * The fan-out (an outbox processor over the log): follows catalog events on the streams
 * `webhook-events-<tenantId>` from its checkpoint, and starts one `webhook-delivery` workflow per
 * (event, active endpoint of that tenant subscribed to the event's type). The checkpoint is saved after
 * the workflows of a batch are started; starts are idempotent by delivery id, so a crash in between
 * re-starts nothing. Endpoints come from the `webhook_endpoints` read model; the attempt re-checks the
 * endpoint in the log before sending.
 */
export async function startWebhookFanout(deps: WebhookFanoutDeps): Promise<WebhookFanout> {
  const { eventStore, readModels, engine, clock } = deps;
  const endpoints = await endpointsCollection(readModels);
  const from = await readModels.getCheckpoint(FANOUT_CHECKPOINT);

  async function onEvents(batch: RecordedEvent[]): Promise<void> {
    const byTenant = new Map<string, WebhookEndpointDoc[]>();
    // Starts are issued a few hundred at a time and awaited together: the engine commits them in one
    // transaction, and awaiting between groups lets running deliveries progress during a burst.
    let pending: Promise<boolean>[] = [];
    for (const e of batch) {
      const tenantId = tenantOfWebhookEventsStream(e.streamName);
      if (!tenantId) continue; // a catalog name on another stream is not a webhook event
      let eps = byTenant.get(tenantId);
      if (!eps) {
        eps = await endpoints.find({ tenant_id: tenantId, active: true });
        byTenant.set(tenantId, eps);
      }
      // Only events logged after the endpoint was created: a new endpoint, or a rebuilt read model, never
      // receives the tenant's history.
      const subscribed = eps.filter((ep) => ep.events.includes(e.type) && e.globalPosition > (ep.created_position ?? 0));
      if (subscribed.length === 0) continue;
      const createdAt = new Date(clock.now()).toISOString();
      for (const ep of subscribed) {
        const start: DeliveryStart = {
          deliveryId: deliveryIdOf(e.eventId, ep.id),
          tenantId,
          endpointId: ep.id,
          eventId: e.eventId,
          eventType: e.type,
          eventRevision: e.streamRevision,
          createdAt,
          perEndpointConcurrency: deps.perEndpointConcurrency,
        };
        pending.push(engine.start(WEBHOOK_DELIVERY_WORKFLOW, start.deliveryId, start, { tenantId, summary: `Delivery of ${e.type} event ${e.eventId} to webhook endpoint ${ep.id}` }));
      }
      if (pending.length >= 200) {
        await Promise.all(pending);
        pending = [];
      }
    }
    await Promise.all(pending);
    const last = batch.at(-1);
    if (last) await readModels.setCheckpoint(FANOUT_CHECKPOINT, last.globalPosition);
  }

  const sub: Subscription = eventStore.subscribeToAll({
    fromPosition: from,
    types: WEBHOOK_EVENT_TYPES,
    batchSize: 500,
    onEvents,
  });
  return { caughtUp: () => sub.caughtUp(), stop: () => sub.stop() };
}
