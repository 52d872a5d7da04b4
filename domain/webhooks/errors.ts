/**
 * The closed list of error codes of the webhooks group. Bodies use the structured shape
 * `{success:false, error:{code, message, details}}` (the spec leaves webhook error bodies unshown;
 * docs/webhooks.md documents these).
 */
import { codedError } from '../shared/coded-error.ts';

export const WEBHOOK_ERRORS = {
  /** Body, query or path parameters fail validation (wrong types, unknown fields' types, bad paging). HTTP 400. */
  invalid_request: 400,
  /** `url` is not an absolute `https://` URL (spec Limits: "must be HTTPS"), has credentials, or is too long. HTTP 400. */
  invalid_url: 400,
  /** `events` is empty or names an event outside the catalog (`details.invalid_events`). HTTP 400. */
  invalid_event_type: 400,
  /** `url`'s host resolves to a loopback, private, link-local, metadata or other non-public address not allowed by `WEBHOOK_ALLOW_CIDRS` (SSRF guard). HTTP 400. */
  url_not_allowed: 400,
  /** `url`'s host does not resolve. HTTP 400. */
  url_unresolvable: 400,
  /** No endpoint with this id in the caller's tenant (other tenants' ids look the same). HTTP 404. */
  endpoint_not_found: 404,
  /** The tenant already has the maximum number of endpoints (`details.limit`). HTTP 409. */
  endpoint_limit_reached: 409,
} as const;

export type WebhookErrorCode = keyof typeof WEBHOOK_ERRORS;

/** A domain error of the webhooks context; routes map it to `ApiError(WEBHOOK_ERRORS[code], code, ...)`. */
export class WebhookError extends codedError('WebhookError', WEBHOOK_ERRORS) {}
