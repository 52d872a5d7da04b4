import { errorSchema } from '../../error-schemas.ts';
import { ApiError } from '../../errors.ts';
import { UsageError } from '../../../../domain/usage/errors.ts';

/** Runs `fn`, turning a {@link UsageError} into the structured API error of its code. */
export async function mapUsageErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof UsageError) throw new ApiError(err.status, err.code, err.message, err.details);
    throw err;
  }
}

/** Route config of every `/v1/usage/*` route: `read` permission, light rate class, structured errors. */
export const USAGE_ROUTE_CONFIG = { auth: { permission: 'read' as const }, rateClass: 'light' as const, errorShape: 'structured' as const };

/**
 * Route config of the `/v1/usage/*` routes that change something (create, update, delete an alert; start an
 * export): `write` and `read` (they read or send usage data), else 403 `insufficient_permissions` (spec,
 * Authentication 2: changes need `write`, as creating signing documents does). Issue 31: a read-only key
 * could point alert notifications and export e-mails at any address.
 */
export const USAGE_WRITE_ROUTE_CONFIG = {
  auth: { permission: 'write' as const, also: ['read' as const] },
  rateClass: 'light' as const,
  errorShape: 'structured' as const,
};

/**
 * The error answers of the `/v1/usage/*` routes for their OpenAPI entries (structured shape, no field beyond
 * `success` and `error{code, message, details}`, so serialization keeps every body whole). The edge's own
 * 401/403/429 are added to the document by `openapi-edge.ts`.
 */
export const USAGE_ERROR_RESPONSES = {
  400: errorSchema(['invalid_date_range', 'limit_exceeded', 'invalid_parameter', 'invalid_alert', 'validation_error']),
  403: errorSchema(['insufficient_permissions', 'plan_upgrade_required', 'alert_limit_reached', 'invalid_download_link']),
  404: errorSchema(['alert_not_found', 'export_not_found']),
} as const;
