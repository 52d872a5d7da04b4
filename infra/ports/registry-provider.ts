/**
 * Registry provider port: the government registries (RENAPO for the CURP, INE's voter list) reached
 * through a certified third-party provider.
 *
 * Adapters:
 * - `infra/registry-provider/sandbox` (embedded default): answers from a fixture registry of synthetic
 *   people, computing CURPs with the CURP engine; every answer is marked `sandbox`.
 * - `infra/registry-provider/http`: a certified provider over HTTPS, with timeouts, retries with
 *   jittered backoff for retry-safe failures, and a circuit breaker.
 * Both pass `test/contract/registry-provider.contract.ts`.
 *
 * Requests reaching an adapter have been validated by `domain/registry/validate-request.ts`.
 * A lookup that cannot be answered rejects with {@link RegistryUnavailableError} (the API's 503);
 * "not found" is an answer, not an error.
 */

/** Which registry a lookup goes to (`details.service` of the API's 503). */
export type RegistryService = 'renapo' | 'ine';

/** `POST /v1/mex/renapo/get-curp` input, validated and trimmed. */
export interface CurpLookupRequest {
  nombres: string;
  primerApellido: string;
  /** Absent when the person has one surname. */
  segundoApellido?: string;
  sexo: 'H' | 'M';
  /** `YYYY-MM-DD`, a real date not in the future. */
  fechaNacimiento: string;
  /** `01`-`32`, or `NE` for people born abroad. */
  claveEntidad: string;
}

/** A person in RENAPO's registry (spec "Government registry results", all strings). */
export interface CurpRecord {
  curp: string;
  nombres: string;
  primerApellido: string;
  /** Empty string when the person has one surname. */
  segundoApellido: string;
  /** `H` or `M`. */
  sexo: string;
  /** `YYYY-MM-DD`. */
  fechaNacimiento: string;
  /** State of birth name (e.g. `JALISCO`, `NACIDO EN EL EXTRANJERO`). */
  entidadNacimiento: string;
  /** Nationality code, e.g. `MEX`. */
  nacionalidad: string;
  /** RENAPO status of the CURP: `AN` alta normal, `AH` alta con homonimia, `RCC`/`RCN` changes, `BD` baja por defunción, ... */
  estatus: string;
}

/** get-curp answer: the person, or "not found" with the registry's message. */
export type CurpLookupResult = { found: true; record: CurpRecord } | { found: false; message: string };

/** `POST /v1/mex/ine/validate-voter-list` input, validated. */
export interface VoterLookupRequest {
  /** CIC, 9 digits. */
  cic: string;
  /** Citizen identifier, 9 digits. */
  identificadorCiudadano?: string;
  /** OCR code on the back, 13 digits. */
  ocr?: string;
  /** Extra parameters passed through to the provider ("extra parameters improve accuracy"). */
  extra?: Record<string, string>;
}

/** A valid voter credential (spec "Government registry results"). */
export interface VoterRecord {
  valid: true;
  cic: string;
  identificadorCiudadano: string;
  ocr: string;
  estatus: string;
  seccion: string;
  municipio: string;
  entidad: string;
  /** Date string, `YYYY-MM-DD` or a year. */
  fechaVigencia: string;
  message: string;
}

/** Not found or invalidated: HTTP 200 with `data` = `{valid:false, cic, message}`. */
export interface VoterNotValid {
  valid: false;
  cic: string;
  message: string;
}

/** Voter-list answer. */
export type VoterLookupResult = VoterRecord | VoterNotValid;

/** Why the provider could not answer. */
export type RegistryUnavailableReason =
  /** No answer within the per-call timeout. */
  | 'timeout'
  /** Connection refused/reset/DNS failure, after retries. */
  | 'connection_failed'
  /** 5xx (or 429) answer, after retries where retry-safe. */
  | 'provider_error'
  /** The provider announced maintenance. */
  | 'maintenance'
  /** A 2xx body that is not the documented JSON. */
  | 'malformed_response'
  /** The provider refused our request or credentials (4xx other than 404): a configuration problem. */
  | 'rejected'
  /** The circuit breaker is open after repeated failures: failing fast without calling. */
  | 'circuit_open';

/** The provider could not answer; rendered as 503 `SERVICE_UNAVAILABLE` by the routes. */
export class RegistryUnavailableError extends Error {
  override readonly name = 'RegistryUnavailableError';
  constructor(
    readonly service: RegistryService,
    readonly reason: RegistryUnavailableReason,
    /** Safe for clients: never contains personal data or provider secrets. */
    message: string,
    /** Time spent before giving up, milliseconds. */
    readonly latencyMs = 0,
  ) {
    super(message);
  }
}

/** Per-lookup options. */
export interface LookupOptions {
  /** Aborts the lookup (e.g. the client went away). */
  signal?: AbortSignal;
  /** Correlation id forwarded to the provider. */
  requestId?: string;
}

/** The port: one adapter per process (see the module comment). */
export interface RegistryProvider {
  /** `sandbox` or `http`; recorded in lookup events. */
  readonly name: string;
  /** True when answers are synthetic (responses are then marked). */
  readonly sandbox: boolean;
  /** RENAPO: the CURP of a person. Rejects with {@link RegistryUnavailableError}. */
  getCurp(request: CurpLookupRequest, options?: LookupOptions): Promise<CurpLookupResult>;
  /** INE: whether a voter credential is in the voter list and current. Rejects with {@link RegistryUnavailableError}. */
  validateVoter(request: VoterLookupRequest, options?: LookupOptions): Promise<VoterLookupResult>;
  close(): Promise<void>;
}
