/**
 * Error codes of the usage capability (`/v1/usage/*`, structured shape), one closed list; the status
 * each maps to is in {@link USAGE_ERROR_STATUS}. Spec, Errors > Usage, plus the codes the spec leaves to
 * us (docs/usage.md).
 */
import { codedError } from '../shared/coded-error.ts';

export const USAGE_ERROR_STATUS = {
  /** Bad date format, or start after end (`details`: `start_date`, `end_date`). Spec. */
  invalid_date_range: 400,
  /** `limit` above 1000 (`details`: `limit`, `max`). Spec. */
  limit_exceeded: 400,
  /** A query or body parameter is malformed (`details.field`). */
  invalid_parameter: 400,
  /** An alert body fails validation (`details.field`). */
  invalid_alert: 400,
  /** The plan does not include the feature (real-time monitoring on Free; alerts beyond the cap). */
  plan_upgrade_required: 403,
  /** The plan's alert cap (0, 1, 5, unlimited) is reached (`details`: `limit`, `plan`). */
  alert_limit_reached: 403,
  /** Unknown alert id, or one of another tenant. */
  alert_not_found: 404,
  /** Unknown export id, or one of another tenant. */
  export_not_found: 404,
  /** The export's file has expired (retention per plan) or is not ready. */
  export_not_available: 410,
  /** Download link signature wrong or expired. */
  invalid_download_link: 403,
  /** More exports than the plan's daily quota. Spec (429). */
  export_quota_exceeded: 429,
} as const;
export type UsageErrorCode = keyof typeof USAGE_ERROR_STATUS;

export class UsageError extends codedError('UsageError', USAGE_ERROR_STATUS) {}
