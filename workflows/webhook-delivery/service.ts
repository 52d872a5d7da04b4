import { randomBytes } from 'node:crypto';
import type { EventStore } from '../../infra/ports/event-store.ts';
import type { Filter, ReadModelStore } from '../../infra/ports/read-models.ts';
import type { Clock } from '../../infra/ports/workflows.ts';
import { serializeDeliveryBody, RESPONSE_BODY_LIMIT } from '../../domain/webhooks/delivery.ts';
import {
  checkEvents,
  endpointStream,
  evolve,
  initialEndpointState,
  MAX_DESCRIPTION_LENGTH,
  requireOwned,
  type WebhookEndpointEvent,
} from '../../domain/webhooks/endpoint.ts';
import { WebhookError } from '../../domain/webhooks/errors.ts';
import { generateEndpointSecret, type SecretBox } from '../../domain/webhooks/secret-box.ts';
import { deliveryHeaders } from '../../domain/webhooks/signature.ts';
import { deliveriesCollection, endpointsCollection, type WebhookDeliveryDoc, type WebhookEndpointDoc } from '../../projections/webhooks/index.ts';
import type { WebhookSender } from './sender.ts';

/** Most endpoints one tenant may register (the spec leaves the number unshown). */
export const MAX_ENDPOINTS_PER_TENANT = 50;

export interface WebhookServiceDeps {
  eventStore: EventStore;
  readModels: ReadModelStore;
  sender: WebhookSender;
  secrets: SecretBox;
  clock: Clock;
  /** Brings the read models up to date with the log (read-your-writes after an append). */
  catchUp: () => Promise<void>;
}

export interface CreatedEndpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  active: boolean;
  created_at: string;
}

export interface PublicEndpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  active: boolean;
  created_at: string;
  updated_at: string;
  last_delivery: string | null;
  success_rate: number | null;
}

export interface PublicDelivery {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'success' | 'failed';
  attempts: number;
  response_status: number | null;
  response_time: number | null;
  error_message: string | null;
  created_at: string;
  last_attempt: string | null;
  next_attempt_at: string | null;
}

export interface Page<T> {
  data: T[];
  pagination: { page: number; per_page: number; total: number };
}

export interface TestResult {
  test_sent: boolean;
  response_status: number | null;
  response_time: number;
  response_body: string;
  response_body_truncated: boolean;
  error_message: string | null;
}

function toPublicEndpoint(d: WebhookEndpointDoc): PublicEndpoint {
  return {
    id: d.id,
    url: d.url,
    events: d.events,
    description: d.description,
    active: d.active,
    created_at: d.created_at,
    updated_at: d.updated_at,
    last_delivery: d.last_delivery,
    success_rate: d.success_rate,
  };
}

function toPublicDelivery(d: WebhookDeliveryDoc): PublicDelivery {
  return {
    id: d.id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempts: d.attempts,
    response_status: d.response_status,
    response_time: d.response_time,
    error_message: d.error_message,
    created_at: d.created_at,
    last_attempt: d.last_attempt,
    next_attempt_at: d.next_attempt_at,
  };
}

/**
 * Use cases of `/v1/webhooks/*`. Writes append to the endpoint's stream with an expected revision
 * (concurrent updates cannot silently overwrite each other) and then catch the read models up; reads come
 * from the `webhooks` projection. Every lookup is scoped by tenant: another tenant's id is `endpoint_not_found`.
 */
export function createWebhookService(deps: WebhookServiceDeps) {
  const { eventStore, readModels, sender, secrets, clock } = deps;
  const iso = () => new Date(clock.now()).toISOString();

  async function append(endpointId: string, tenantId: string, event: WebhookEndpointEvent, expected: number | 'no_stream') {
    await eventStore.append(endpointStream(endpointId), [{ type: event.type, data: event.data, metadata: { tenant_id: tenantId } }], {
      expectedRevision: expected,
    });
    await deps.catchUp();
  }

  async function owned(tenantId: string, endpointId: string) {
    const { events, currentRevision } = await eventStore.readStream(endpointStream(endpointId));
    let s = initialEndpointState;
    for (const e of events) s = evolve(s, { type: e.type, data: e.data } as WebhookEndpointEvent);
    requireOwned(s, tenantId, endpointId);
    return { state: s, revision: currentRevision ?? -1 };
  }

  function checkDescription(d: string | null | undefined): string | null {
    if (d === undefined || d === null) return null;
    if (d.length > MAX_DESCRIPTION_LENGTH) {
      throw new WebhookError('invalid_request', `description is longer than ${MAX_DESCRIPTION_LENGTH} characters`);
    }
    return d;
  }

  return {
    async create(tenantId: string, input: { url: string; events: string[]; description?: string | null; active?: boolean }): Promise<CreatedEndpoint> {
      const events = checkEvents(input.events);
      const description = checkDescription(input.description);
      await sender.checkUrl(input.url);
      const endpoints = await endpointsCollection(readModels);
      if ((await endpoints.count({ tenant_id: tenantId })) >= MAX_ENDPOINTS_PER_TENANT) {
        throw new WebhookError('endpoint_limit_reached', `at most ${MAX_ENDPOINTS_PER_TENANT} webhook endpoints per account`, {
          limit: MAX_ENDPOINTS_PER_TENANT,
        });
      }
      const id = 'whe_' + randomBytes(12).toString('hex');
      const secret = generateEndpointSecret();
      const created_at = iso();
      const active = input.active ?? true;
      await append(
        id,
        tenantId,
        {
          type: 'webhook.endpoint.created',
          data: { endpoint_id: id, tenant_id: tenantId, url: input.url, events, description, active, secret_sealed: secrets.seal(secret, id), created_at },
        },
        'no_stream',
      );
      return { id, url: input.url, events, description, secret, active, created_at };
    },

    async list(tenantId: string, q: { active?: boolean; page: number; per_page: number }): Promise<Page<PublicEndpoint>> {
      const endpoints = await endpointsCollection(readModels);
      const filter: Filter = { tenant_id: tenantId };
      if (q.active !== undefined) filter.active = q.active;
      const total = await endpoints.count(filter);
      const docs = await endpoints.find(filter, {
        sort: [{ field: 'created_at', order: 'desc' }, { field: 'id', order: 'asc' }],
        limit: q.per_page,
        offset: (q.page - 1) * q.per_page,
      });
      return { data: docs.map(toPublicEndpoint), pagination: { page: q.page, per_page: q.per_page, total } };
    },

    async get(tenantId: string, endpointId: string): Promise<PublicEndpoint> {
      await owned(tenantId, endpointId);
      const doc = await (await endpointsCollection(readModels)).get(endpointId);
      if (!doc || doc.tenant_id !== tenantId) throw new WebhookError('endpoint_not_found', 'webhook endpoint not found', { endpoint_id: endpointId });
      return toPublicEndpoint(doc);
    },

    async update(
      tenantId: string,
      endpointId: string,
      input: { url?: string; events?: string[]; description?: string | null; active?: boolean },
    ): Promise<{ id: string; url: string; events: string[]; active: boolean; updated_at: string; description: string | null }> {
      const { state, revision } = await owned(tenantId, endpointId);
      const events = input.events !== undefined ? checkEvents(input.events) : undefined;
      const description = input.description !== undefined ? checkDescription(input.description) : undefined;
      if (input.url !== undefined) await sender.checkUrl(input.url);
      const updated_at = iso();
      const data = {
        endpoint_id: endpointId,
        tenant_id: tenantId,
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(events !== undefined ? { events } : {}),
        ...(description !== undefined ? { description } : {}),
        ...(input.active !== undefined ? { active: input.active } : {}),
        updated_at,
      };
      await append(endpointId, tenantId, { type: 'webhook.endpoint.updated', data }, revision);
      return {
        id: endpointId,
        url: input.url ?? state.url,
        events: events ?? state.events,
        active: input.active ?? state.active,
        description: description !== undefined ? description : state.description,
        updated_at,
      };
    },

    async remove(tenantId: string, endpointId: string): Promise<{ message: string; endpoint_id: string }> {
      const { revision } = await owned(tenantId, endpointId);
      await append(endpointId, tenantId, { type: 'webhook.endpoint.deleted', data: { endpoint_id: endpointId, tenant_id: tenantId, deleted_at: iso() } }, revision);
      return { message: 'Webhook endpoint deleted', endpoint_id: endpointId };
    },

    /**
     * Sends one signed test event synchronously (no retry, not recorded as a delivery) and reports the
     * receiver's answer; `response_body` is cut to {@link RESPONSE_BODY_LIMIT} bytes. Works for inactive
     * endpoints too, so a receiver can be checked before it is switched on.
     */
    async test(tenantId: string, endpointId: string, eventType: string): Promise<TestResult> {
      const { state } = await owned(tenantId, endpointId);
      const secret = secrets.open(state.secretSealed, state.id);
      const now = clock.now();
      const eventId = 'evt_test_' + randomBytes(12).toString('hex');
      const deliveryId = 'whd_test_' + randomBytes(12).toString('hex');
      const body = serializeDeliveryBody({
        id: eventId,
        type: eventType,
        createdSeconds: Math.floor(now / 1000),
        data: { test: true, endpoint_id: endpointId, message: 'Test delivery from Sello' },
      });
      const headers = deliveryHeaders({ secret, body, eventType, deliveryId, timestampSeconds: Math.floor(now / 1000) });
      const r = await sender.send(state.url, headers, body);
      return {
        test_sent: r.responseStatus !== null,
        response_status: r.responseStatus,
        response_time: r.responseTimeMs,
        response_body: r.responseBody,
        response_body_truncated: r.responseBodyTruncated,
        // A test delivery never changes the endpoint: a 410 Gone here is reported, not acted on.
        error_message: r.outcome === 'gone' ? 'receiver answered 410 Gone: an event delivery would disable this endpoint (a test does not)' : r.errorMessage,
      };
    },

    async deliveries(
      tenantId: string,
      endpointId: string,
      q: { status?: 'success' | 'failed' | 'pending'; event_type?: string; page: number; per_page: number },
    ): Promise<Page<PublicDelivery>> {
      await owned(tenantId, endpointId);
      const coll = await deliveriesCollection(readModels);
      const filter: Filter = { endpoint_id: endpointId, tenant_id: tenantId };
      if (q.status) filter.status = q.status;
      if (q.event_type) filter.event_type = q.event_type;
      const total = await coll.count(filter);
      const docs = await coll.find(filter, {
        sort: [{ field: 'created_at', order: 'desc' }, { field: 'id', order: 'asc' }],
        limit: q.per_page,
        offset: (q.page - 1) * q.per_page,
      });
      return { data: docs.map(toPublicDelivery), pagination: { page: q.page, per_page: q.per_page, total } };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
export { RESPONSE_BODY_LIMIT };
