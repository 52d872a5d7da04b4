/**
 * What the registry routes share: the
 * lookup event, the sandbox marking and the mapping of provider failures to the spec's 503.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';
import { RegistryUnavailableError, type RegistryProvider, type RegistryService } from '../../../../infra/ports/registry-provider.ts';
import {
  REGISTRY_ERRORS,
  REGISTRY_LOOKUP_COMPLETED,
  type RegistryErrorType,
  registryStream,
  type RegistryLookupCompletedData,
  type RegistryRequestError,
} from '../../../../domain/registry/index.ts';

/** Response header marking sandbox answers (with the body field `sandbox: true`). */
export const SANDBOX_HEADER = 'X-Registry-Sandbox';

/** An error of the registry's closed list (`domain/registry/errors.ts`), with its HTTP status. */
export function registryError(type: RegistryErrorType, message: string, details?: Record<string, unknown>, extra?: Record<string, unknown>, headers?: Record<string, string>): ApiError {
  return new ApiError(REGISTRY_ERRORS[type], type, message, details, extra, headers);
}

/** The 400 of a failed validation, in the registry shape. */
export function requestError(e: RegistryRequestError): ApiError {
  return registryError(e.type, e.message);
}

/** The spec's 503: `{success:false, status:'ERROR', type:'SERVICE_UNAVAILABLE', message, error_code, details}`. */
export function serviceUnavailable(service: RegistryService, e: RegistryUnavailableError): ApiError {
  const name = service === 'renapo' ? 'RENAPO' : 'INE';
  return registryError(
    'SERVICE_UNAVAILABLE',
    `The ${name} registry service is temporarily unavailable. Try again later.`,
    { service: name, error_message: e.message, reason: e.reason },
    { error_code: 'SERVICE_UNAVAILABLE' },
    e.reason === 'circuit_open' || e.reason === 'maintenance' ? { 'Retry-After': '30' } : undefined,
  );
}

/**
 * Appends the lookup event to `registry-<tenantId>`. Awaited (the audit trail should hold every
 * lookup answered); a store failure is logged and does not change the answer already decided.
 */
export async function recordLookup(ctx: Platform, request: FastifyRequest, data: RegistryLookupCompletedData): Promise<void> {
  const tenantId = request.auth?.tenantId;
  if (!tenantId) return;
  try {
    await ctx.events.append(registryStream(tenantId), [
      { type: REGISTRY_LOOKUP_COMPLETED, data, metadata: { tenant_id: tenantId, request_id: request.id, occurred_at: new Date(ctx.clock.now()).toISOString() } },
    ]);
  } catch (err) {
    request.log.error({ err, registry: { operation: data.operation } }, 'could not record registry lookup event');
  }
  // Personal data never reaches the log: operation, fingerprint, outcome and timing only.
  request.log.info(
    { registry: { operation: data.operation, fingerprint: data.fingerprint, outcome: data.outcome, provider: data.provider, provider_latency_ms: data.provider_latency_ms, reason: data.reason } },
    'registry lookup',
  );
}

/** What every lookup event of one request shares. */
export type LookupBase = Pick<RegistryLookupCompletedData, 'operation' | 'fingerprint' | 'provider' | 'sandbox'>;

/**
 * Records a request the spec's validation refused (no provider call, nothing charged) and returns the
 * 400 to throw.
 */
export async function rejectedLookup(
  ctx: Platform,
  request: FastifyRequest,
  base: Omit<LookupBase, 'fingerprint'>,
  error: RegistryRequestError,
): Promise<ApiError> {
  await recordLookup(ctx, request, {
    ...base,
    fingerprint: null,
    outcome: 'rejected',
    provider_latency_ms: null,
    http_status: 400,
    reason: error.type,
    parameter: error.parameter,
  });
  return requestError(error);
}

/**
 * Calls the provider and times it. A {@link RegistryUnavailableError} is recorded as
 * `provider_unavailable` and thrown as the spec's 503; any other error propagates.
 * @returns the provider's answer and its latency in milliseconds (two decimals)
 */
export async function callProvider<R>(
  ctx: Platform,
  request: FastifyRequest,
  base: LookupBase,
  service: RegistryService,
  call: () => Promise<R>,
): Promise<{ result: R; latencyMs: number }> {
  const t0 = performance.now();
  try {
    const result = await call();
    return { result, latencyMs: Math.round((performance.now() - t0) * 100) / 100 };
  } catch (e) {
    if (!(e instanceof RegistryUnavailableError)) throw e;
    await recordLookup(ctx, request, { ...base, outcome: 'provider_unavailable', provider_latency_ms: Math.round(performance.now() - t0), http_status: 503, reason: e.reason });
    throw serviceUnavailable(service, e);
  }
}

/**
 * Marks every answer of a sandbox provider: the `X-Registry-Sandbox: true` header on all of them, and
 * `sandbox: true` in registry-shaped error bodies (success bodies carry it from the handlers). Bodies
 * the spec fixes exactly (the 402) are left as they are.
 */
export function markSandbox(provider: RegistryProvider) {
  return async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (!provider.sandbox) return payload;
    reply.header(SANDBOX_HEADER, 'true');
    if (reply.statusCode >= 400 && typeof payload === 'string' && payload.startsWith('{"success":false,"status":"ERROR"')) {
      try {
        return JSON.stringify({ ...(JSON.parse(payload) as Record<string, unknown>), sandbox: true });
      } catch {
        return payload;
      }
    }
    return payload;
  };
}

/** Seconds since `startedAt` (`performance.now()`, ms), to the millisecond: the spec's `processing_time`. */
export function secondsSince(startedAt: number): number {
  return Math.round(performance.now() - startedAt) / 1000;
}

/**
 * Error handler of the registry scope: a body Fastify could not parse (bad JSON) is an
 * INVALID_PARAMETER; everything is then rethrown to the app's handler, which renders the registry shape.
 */
export function registryBodyErrors(error: unknown): never {
  const e = error as { code?: string; statusCode?: number };
  if (typeof e.code === 'string' && e.code.startsWith('FST_ERR_CTP_') && e.statusCode === 400) {
    throw registryError('INVALID_PARAMETER', 'Invalid parameter body: the request body must be a JSON object');
  }
  throw error;
}
