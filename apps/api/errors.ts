/**
 * HTTP errors and the three body shapes of the spec (Errors):
 * - structured `{success:false, error:{code, message, details}}` (signing, face, usage, platform);
 * - flat `{success:false, error:<code>, message}` (OCR, email, credits);
 * - registry `{success:false, status:'ERROR', type, message}` (registry lookups).
 * A route picks its shape with `config.errorShape`; 5xx details never reach the client.
 */
export type ErrorShape = 'structured' | 'flat' | 'registry';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  /**
   * @param status HTTP status
   * @param code machine-readable code (lower_snake for structured/flat; UPPER_SNAKE `type` for registry)
   * @param message human-readable message
   * @param details structured details (structured shape: `error.details`; registry: top-level `details`)
   * @param extra extra top-level body fields (e.g. `retry_after`, `credits_required`)
   * @param headers extra response headers (e.g. `Retry-After`)
   */
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly extra?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
    /** A body fixed by the spec, sent as is whatever the route's shape (e.g. the insufficient-credits bodies). */
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Platform error codes (one closed list; each says when it is raised). */
export const PlatformErrors = {
  /** No Authorization header, or not a Bearer credential. */
  missingCredentials: () => new ApiError(401, 'unauthorized', 'Missing credentials: send Authorization: Bearer <API key>'),
  /** Unknown, malformed or revoked key; bad or expired JWT. */
  invalidCredentials: () => new ApiError(401, 'unauthorized', 'Invalid, revoked or expired credentials'),
  /** The key lacks the permission the route requires. */
  insufficientPermissions: (permission: string) =>
    new ApiError(403, 'insufficient_permissions', `This API key lacks the '${permission}' permission`, { required_permission: permission }),
  /** Over the plan's per-minute limit for the route's rate class. */
  rateLimited: (limit: number, retryAfter: number, rateClass: string) =>
    new ApiError(
      429,
      'rate_limit_exceeded',
      `Rate limit of ${limit} requests per minute exceeded`,
      { limit, window_seconds: 60, rate_class: rateClass },
      { retry_after: retryAfter },
      { 'Retry-After': String(retryAfter) },
    ),
  /** More requests in flight than the plan allows. */
  concurrencyLimited: (limit: number) =>
    new ApiError(429, 'concurrency_limit_exceeded', `At most ${limit} concurrent requests are allowed on this plan`, { limit }, { retry_after: 1 }, {
      'Retry-After': '1',
    }),
  /** The shared limiter store (Redis) is unreachable: the edge fails closed rather than serve unlimited traffic. */
  limiterUnavailable: () =>
    new ApiError(503, 'service_unavailable', 'Rate limiting is temporarily unavailable; retry shortly', { service: 'rate_limiter' }, { retry_after: 5 }, {
      'Retry-After': '5',
    }),
  notFound: (method: string, url: string) => new ApiError(404, 'not_found', `Route ${method} ${url} not found`),
  validation: (message: string, issues: unknown[]) => new ApiError(400, 'validation_error', message, { issues }),
  internal: () => new ApiError(500, 'internal_error', 'Internal server error'),
} as const;

/** Renders an ApiError in a shape. */
export function renderError(error: ApiError, shape: ErrorShape): Record<string, unknown> {
  if (error.body) return error.body;
  switch (shape) {
    case 'flat':
      return { success: false, error: error.code, message: error.message, ...(error.extra ?? {}) };
    case 'registry':
      return {
        success: false,
        status: 'ERROR',
        type: error.code.toUpperCase(),
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
        ...(error.extra ?? {}),
      };
    case 'structured':
    default:
      return { success: false, error: { code: error.code, message: error.message, details: error.details ?? {} }, ...(error.extra ?? {}) };
  }
}
