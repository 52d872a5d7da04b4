/**
 * The webhook event catalog (spec, "Events" > "Event types"). Names are part of the public contract:
 * emitters append events with exactly these `type`s to the stream `webhook-events-<tenantId>`
 * (docs/CONVENTIONS.md, "Events").
 */
export const WEBHOOK_EVENT_CATALOG = [
  { name: 'document.signed', category: 'signing', description: 'Document signed by a signer.' },
  { name: 'document.completed', category: 'signing', description: 'All signers have signed.' },
  { name: 'document.expired', category: 'signing', description: 'Signing period expired.' },
  { name: 'document.declined', category: 'signing', description: 'A signer declined to sign (data: document_id, title, signer {email, name}, reason, declined_at).' },
  { name: 'face.verified', category: 'face', description: 'Face verification completed.' },
  { name: 'face.liveness.detected', category: 'face', description: 'Liveness detection completed.' },
  { name: 'ocr.completed', category: 'ocr', description: 'OCR processing completed.' },
  { name: 'ocr.id.extracted', category: 'ocr', description: 'ID card data extracted.' },
  { name: 'user.credits.low', category: 'account', description: 'Credits below threshold.' },
  { name: 'api.rate.limited', category: 'system', description: 'Rate limit exceeded.' },
] as const;

/** A catalog event name, e.g. `face.verified`. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_CATALOG)[number]['name'];

/** Catalog names as a plain list (for `subscribeToAll({ types })`). */
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = WEBHOOK_EVENT_CATALOG.map((e) => e.name);

const NAMES = new Set<string>(WEBHOOK_EVENT_TYPES);

/** True when `name` is a catalog event name. */
export function isWebhookEventType(name: string): name is WebhookEventType {
  return NAMES.has(name);
}

/** The default event type of `POST /v1/webhooks/endpoints/{id}/test` (spec: "default `test`"). */
export const TEST_EVENT_TYPE = 'test';

/** Stream a tenant's catalog events are appended to (docs/CONVENTIONS.md, "Events"). */
export function webhookEventsStream(tenantId: string): string {
  return `webhook-events-${tenantId}`;
}

/** Inverse of {@link webhookEventsStream}; null for any other stream. */
export function tenantOfWebhookEventsStream(streamName: string): string | null {
  return streamName.startsWith('webhook-events-') ? streamName.slice('webhook-events-'.length) || null : null;
}
