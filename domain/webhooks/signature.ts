import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures. Two schemes, both from the endpoint's secret, both over the exact body bytes sent:
 *
 * 1. The spec's ("Events" > "Signature rule"): header `X-Sello-Signature: sha256=<hex>` where `<hex>` is
 *    the lowercase hexadecimal HMAC-SHA256 (RFC 2104, FIPS 180-4) of the raw request body keyed with the
 *    secret string's UTF-8 bytes.
 * 2. Standard Webhooks (https://www.standardwebhooks.com, spec v1): headers `webhook-id`,
 *    `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of
 *    "<id>.<timestamp>.<body>">`. The Standard Webhooks spec keys the HMAC with the base64-decoded part of
 *    a `whsec_` secret; Sello's secrets start with `whsec_` and the key is the base64-decoded remainder, so
 *    the official `standardwebhooks` libraries verify them unchanged.
 */

/** Header names on every delivery (the spec's `X-Service-*` with the brand `Sello`). */
export const SIGNATURE_HEADER = 'x-sello-signature';
export const EVENT_HEADER = 'x-sello-event';
export const DELIVERY_HEADER = 'x-sello-delivery';
export const STD_ID_HEADER = 'webhook-id';
export const STD_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STD_SIGNATURE_HEADER = 'webhook-signature';

/** Prefix of endpoint secrets (Standard Webhooks convention). */
export const SECRET_PREFIX = 'whsec_';

/** `sha256=` + lowercase hex HMAC-SHA256 of `body` keyed with the UTF-8 bytes of `secret`. */
export function signSello(secret: string, body: Uint8Array | string): string {
  return 'sha256=' + createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

/** The Standard Webhooks signing key of a secret: base64 after `whsec_` (the whole UTF-8 string otherwise). */
export function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX) ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** `v1,` + base64 HMAC-SHA256 over `<msgId>.<timestampSeconds>.<body>` (Standard Webhooks v1). */
export function signStandard(secret: string, msgId: string, timestampSeconds: number, body: Uint8Array | string): string {
  const h = createHmac('sha256', standardWebhooksKey(secret));
  h.update(`${msgId}.${timestampSeconds}.`);
  h.update(body);
  return 'v1,' + h.digest('base64');
}

/** Constant-time check of a `sha256=<hex>` header against `body` (for receivers and tests). */
export function verifySello(secret: string, body: Uint8Array | string, header: string): boolean {
  const expected = Buffer.from(signSello(secret, body), 'utf8');
  const got = Buffer.from(header, 'utf8');
  return expected.length === got.length && timingSafeEqual(expected, got);
}

/** The headers of one delivery attempt, computed over `body` (the exact bytes sent). */
export function deliveryHeaders(input: {
  secret: string;
  body: string;
  eventType: string;
  deliveryId: string;
  /** Unix seconds of this attempt (Standard Webhooks `webhook-timestamp`). */
  timestampSeconds: number;
  /** Stable message id across retries (Standard Webhooks `webhook-id`): the delivery id. */
}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Sello-Webhooks/1.0',
    [SIGNATURE_HEADER]: signSello(input.secret, input.body),
    [EVENT_HEADER]: input.eventType,
    [DELIVERY_HEADER]: input.deliveryId,
    [STD_ID_HEADER]: input.deliveryId,
    [STD_TIMESTAMP_HEADER]: String(input.timestampSeconds),
    [STD_SIGNATURE_HEADER]: signStandard(input.secret, input.deliveryId, input.timestampSeconds, input.body),
  };
}
