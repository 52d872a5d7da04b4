import { isWebhookEventType } from './catalog.ts';
import { WebhookError } from './errors.ts';

/**
 * The webhook endpoint aggregate: stream `webhook-endpoint-<endpointId>`. Events carry `metadata.tenant_id`.
 * The secret never appears in clear in an event: only `secret_sealed` (see `secret-box.ts`).
 */
export type WebhookEndpointEvent =
  | {
      type: 'webhook.endpoint.created';
      data: {
        endpoint_id: string;
        tenant_id: string;
        url: string;
        events: string[];
        description: string | null;
        active: boolean;
        secret_sealed: string;
        created_at: string;
      };
    }
  | {
      type: 'webhook.endpoint.updated';
      data: {
        endpoint_id: string;
        tenant_id: string;
        url?: string;
        events?: string[];
        description?: string | null;
        active?: boolean;
        updated_at: string;
      };
    }
  | {
      /** The receiver answered 410 Gone: the endpoint is deactivated (`active: false`). */
      type: 'webhook.endpoint.disabled';
      data: { endpoint_id: string; tenant_id: string; reason: string; delivery_id: string; updated_at: string };
    }
  | { type: 'webhook.endpoint.deleted'; data: { endpoint_id: string; tenant_id: string; deleted_at: string } };

export const WEBHOOK_ENDPOINT_EVENT_TYPES = [
  'webhook.endpoint.created',
  'webhook.endpoint.updated',
  'webhook.endpoint.disabled',
  'webhook.endpoint.deleted',
] as const;

export function endpointStream(endpointId: string): string {
  return `webhook-endpoint-${endpointId}`;
}

export type WebhookEndpointState =
  | { status: 'absent' }
  | {
      status: 'present' | 'deleted';
      id: string;
      tenantId: string;
      url: string;
      events: string[];
      description: string | null;
      active: boolean;
      secretSealed: string;
      createdAt: string;
      updatedAt: string;
    };

/** Folds the endpoint's events into its state. */
export function evolve(state: WebhookEndpointState, event: WebhookEndpointEvent): WebhookEndpointState {
  switch (event.type) {
    case 'webhook.endpoint.created': {
      const d = event.data;
      return {
        status: 'present',
        id: d.endpoint_id,
        tenantId: d.tenant_id,
        url: d.url,
        events: d.events,
        description: d.description,
        active: d.active,
        secretSealed: d.secret_sealed,
        createdAt: d.created_at,
        updatedAt: d.created_at,
      };
    }
    case 'webhook.endpoint.updated': {
      if (state.status === 'absent') return state;
      const d = event.data;
      return {
        ...state,
        url: d.url ?? state.url,
        events: d.events ?? state.events,
        description: d.description !== undefined ? d.description : state.description,
        active: d.active ?? state.active,
        updatedAt: d.updated_at,
      };
    }
    case 'webhook.endpoint.disabled':
      return state.status === 'absent' ? state : { ...state, active: false, updatedAt: event.data.updated_at };
    case 'webhook.endpoint.deleted':
      return state.status === 'absent' ? state : { ...state, status: 'deleted', active: false, updatedAt: event.data.deleted_at };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** An endpoint that exists and is not deleted. */
export type PresentEndpoint = Exclude<WebhookEndpointState, { status: 'absent' }> & { status: 'present' };

export const initialEndpointState: WebhookEndpointState = { status: 'absent' };

/** Longest accepted URL (bytes of the string); longer ones are refused with `invalid_url`. */
export const MAX_URL_LENGTH = 2048;
/** Longest accepted description. */
export const MAX_DESCRIPTION_LENGTH = 500;

/**
 * Checks a webhook URL's syntax: absolute `https:` (spec Limits: "Webhook URL must be HTTPS"), a host, no
 * user-info (credentials would be sent to the receiver and logged), at most {@link MAX_URL_LENGTH}
 * characters. Returns the parsed URL; raises `invalid_url`. Address checks (SSRF) happen separately,
 * since they need DNS.
 */
export function checkUrlSyntax(url: string): URL {
  if (url.length > MAX_URL_LENGTH) throw new WebhookError('invalid_url', `url is longer than ${MAX_URL_LENGTH} characters`);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new WebhookError('invalid_url', 'url is not an absolute URL', { url });
  }
  if (u.protocol !== 'https:') throw new WebhookError('invalid_url', 'url must use https', { url });
  if (!u.hostname) throw new WebhookError('invalid_url', 'url has no host', { url });
  if (u.username || u.password) throw new WebhookError('invalid_url', 'url must not contain credentials');
  return u;
}

/** Checks the subscription list: non-empty, catalog names only; returns it de-duplicated in order. */
export function checkEvents(events: readonly string[]): string[] {
  if (events.length === 0) throw new WebhookError('invalid_event_type', 'events must name at least one event type');
  const invalid = events.filter((e) => !isWebhookEventType(e));
  if (invalid.length > 0) {
    throw new WebhookError('invalid_event_type', `unknown event type: ${invalid.join(', ')}`, {
      invalid_events: invalid,
      hint: 'GET /v1/webhooks/events lists the catalog',
    });
  }
  return [...new Set(events)];
}

/** Raises `endpoint_not_found` unless the endpoint exists, is not deleted and belongs to `tenantId`. */
export function requireOwned(state: WebhookEndpointState, tenantId: string, endpointId: string): asserts state is PresentEndpoint {
  if (state.status !== 'present' || state.tenantId !== tenantId) {
    throw new WebhookError('endpoint_not_found', 'webhook endpoint not found', { endpoint_id: endpointId });
  }
}
