/**
 * The closed list of error codes of the deployments group (`/api/deployments`). Bodies use the
 * structured shape `{success:false, error:{code, message, details}}` (the spec leaves deployment error
 * bodies unshown; docs/deployments.md documents these). `details.field` names the offending field.
 */
import { codedError } from '../shared/coded-error.ts';

export const DEPLOYMENT_ERRORS = {
  /** A field fails validation: missing, wrong type, too long, control characters, bad `clientId` characters, unknown platform/environment/plan (the platform's own `validation_error`, with `details.issues` for schema failures). HTTP 400. */
  validation_error: 400,
  /** `config.primaryColor` is not a hex colour `#RGB` or `#RRGGBB`. HTTP 400. */
  invalid_color: 400,
  /** `config.logo` is not an absolute `https://` URL without credentials (at most 2,048 characters). HTTP 400. */
  invalid_logo_url: 400,
  /** `domain` is not a valid domain name after IDNA (UTS #46) processing: labels of 1-63 letters/digits/hyphens, two labels at least, 253 characters at most, no IP address. HTTP 400. */
  invalid_domain: 400,
  /** Another live deployment of the same owning tenant already uses this `clientId` (`details.deployment_id`). HTTP 409. */
  client_id_taken: 409,
  /** Another live deployment (of any tenant) already serves this domain: a domain selects one branding. HTTP 409. */
  domain_taken: 409,
  /** The requested `plan` is above the caller's own plan: a tenant cannot give its client more credits or higher limits than it has (`details.plan`, `details.your_plan`). HTTP 403. */
  plan_not_allowed: 403,
  /**
   * The caller already has as many live (not deactivated) deployments as its plan allows (Free 1, Basic 5,
   * Pro 25, Enterprise unlimited), or is itself a white-label client (limit 0: a client cannot resell).
   * `details.limit`, `details.live`, `details.plan`. HTTP 403, like the usage alerts' `alert_limit_reached`.
   */
  deployment_limit_reached: 403,
  /** No deployment with this id belongs to the caller's tenant (other tenants' ids look the same). HTTP 404. */
  deployment_not_found: 404,
  /** The operation does not apply in the deployment's current status (`details.status`), e.g. retry of a deployment that has not failed, or any change to a deactivated one. HTTP 409. */
  invalid_state: 409,
} as const;

export type DeploymentErrorCode = keyof typeof DEPLOYMENT_ERRORS;

/** A domain error of the deployments context; routes map it to `ApiError(DEPLOYMENT_ERRORS[code], code, ...)`. */
export class DeploymentError extends codedError('DeploymentError', DEPLOYMENT_ERRORS) {}

/**
 * Codes of a failed provisioning step (recorded on the record as `failure.code`), each with when it
 * happens. Retrying (`POST /api/deployments/{id}/retry`) resumes at the failed step.
 */
export const STEP_FAILURE_CODES = {
  /** The logo could not be fetched: connection, TLS, DNS, timeout, non-2xx answer, or the SSRF guard refused the address. */
  logo_unreachable: 'logo_unreachable',
  /** The logo is larger than 1 MB. */
  logo_too_large: 'logo_too_large',
  /** The logo is not a PNG, JPEG, WebP or GIF by its content (SVG is refused: it can carry scripts). */
  logo_unsupported_type: 'logo_unsupported_type',
  /** The logo is wider or taller than 1024 px. */
  logo_too_big: 'logo_too_big',
  /** The step raised an unexpected error (the message is kept for operators, not shown). */
  internal: 'internal',
} as const;
export type StepFailureCode = keyof typeof STEP_FAILURE_CODES;

/** A provisioning step failed for a reason the admin can act on (shown on the record). */
export class StepFailure extends Error {
  override readonly name = 'StepFailure';
  constructor(
    readonly code: StepFailureCode,
    message: string,
  ) {
    super(message);
  }
}
