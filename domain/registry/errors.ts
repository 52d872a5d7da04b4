/**
 * Closed list of the registry lookups' error types (`type` of the registry error shape
 * `{success:false, status:'ERROR', type, message}`; spec "Errors > Registry lookups").
 */
export const REGISTRY_ERRORS = {
  /** A required parameter is absent (or empty); the message names it. HTTP 400. */
  MISSING_PARAMETER: 400,
  /** A parameter breaks its format (e.g. `cic` not 9 digits, `sexo` not H/M, a future date). HTTP 400. */
  INVALID_PARAMETER: 400,
  /** get-curp: the registry holds nobody with these data. HTTP 404 (not charged). Not in the spec's table: a
   * careful integrator needs to tell "no such person" from a failure. */
  NOT_FOUND: 404,
  /** The third-party provider cannot answer (timeout, 5xx, malformed body, maintenance, open circuit).
   * HTTP 503 with `error_code` = `SERVICE_UNAVAILABLE` and `details.service`/`details.error_message`. */
  SERVICE_UNAVAILABLE: 503,
} as const;

/** A registry error `type` (key of {@link REGISTRY_ERRORS}). */
export type RegistryErrorType = keyof typeof REGISTRY_ERRORS;

/** A request that failed validation: the type, the parameter at fault and a client-safe message. */
export interface RegistryRequestError {
  type: 'MISSING_PARAMETER' | 'INVALID_PARAMETER';
  parameter: string;
  message: string;
}
