/**
 * Events of registry lookups. Every lookup appends one `registry.lookup.completed` to the stream
 * `registry-<tenantId>` (metadata carries `tenant_id` and `request_id`). The data hold no personal data:
 * the request is represented by a keyed fingerprint (`privacy.ts`).
 */
import type { RegistryUnavailableReason } from '../../infra/ports/registry-provider.ts';

/** Event type of a completed lookup (any outcome). */
export const REGISTRY_LOOKUP_COMPLETED = 'registry.lookup.completed';

/** Stream of a tenant's lookups. */
export function registryStream(tenantId: string): string {
  return `registry-${tenantId}`;
}

/** Which lookup: RENAPO get-curp or INE voter list. */
export type RegistryOperation = 'renapo.get-curp' | 'ine.validate-voter-list';

/** How a lookup ended. */
export type RegistryLookupOutcome =
  /** get-curp answered with a person. */
  | 'found'
  /** get-curp: nobody with these data. */
  | 'not_found'
  /** voter list: credential valid. */
  | 'valid'
  /** voter list: credential not found or invalidated (HTTP 200, `valid:false`). */
  | 'not_valid'
  /** The provider could not answer (503). */
  | 'provider_unavailable'
  /** The request failed validation and never reached the provider (400). */
  | 'rejected';

/** `data` of `registry.lookup.completed`: no personal data. */
export interface RegistryLookupCompletedData {
  operation: RegistryOperation;
  /** 32 hex characters, see `lookupFingerprint`; null when the request was rejected before parsing. */
  fingerprint: string | null;
  outcome: RegistryLookupOutcome;
  /** `sandbox` or `http`. */
  provider: string;
  sandbox: boolean;
  /** Time spent in the provider, milliseconds (null when it was not called). */
  provider_latency_ms: number | null;
  /** HTTP status answered to the client. */
  http_status: number;
  /** For `provider_unavailable`: why. For `rejected`: the parameter's error type. */
  reason?: RegistryUnavailableReason | 'MISSING_PARAMETER' | 'INVALID_PARAMETER';
  /** For `rejected`: the parameter at fault (a name, never its value). */
  parameter?: string;
  /** RENAPO status (`AN`, `BD`...) or INE status of the answer, when there is one. */
  registry_status?: string;
}

/** The `registry.lookup.completed` event as appended. */
export interface RegistryLookupCompleted {
  type: typeof REGISTRY_LOOKUP_COMPLETED;
  data: RegistryLookupCompletedData;
  metadata: { tenant_id: string; request_id?: string };
}
