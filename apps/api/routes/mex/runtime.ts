/**
 * Wiring of the registry lookups: provider selection from configuration, the fingerprint key, the
 * lookup event, the sandbox marking and the mapping of provider failures to the spec's 503.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { RegistryUnavailableError, type RegistryProvider, type RegistryService } from '../../../../infra/ports/registry-provider.ts';
import { SandboxRegistryProvider } from '../../../../infra/registry-provider/sandbox/sandbox-provider.ts';
import { HttpRegistryProvider } from '../../../../infra/registry-provider/http/http-provider.ts';
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

/** Builds the configured provider. Raises at start-up for an incomplete configuration or bad fixtures. */
export function createRegistryProvider(config: Config): RegistryProvider {
  if (config.REGISTRY_PROVIDER === 'http') {
    if (!config.REGISTRY_PROVIDER_URL) throw new Error('REGISTRY_PROVIDER=http needs REGISTRY_PROVIDER_URL');
    return new HttpRegistryProvider({
      baseUrl: config.REGISTRY_PROVIDER_URL,
      ...(config.REGISTRY_PROVIDER_API_KEY ? { apiKey: config.REGISTRY_PROVIDER_API_KEY } : {}),
      ...(config.REGISTRY_PROVIDER_USERNAME ? { username: config.REGISTRY_PROVIDER_USERNAME, password: config.REGISTRY_PROVIDER_PASSWORD ?? '' } : {}),
      timeoutMs: config.REGISTRY_PROVIDER_TIMEOUT_MS,
      retries: config.REGISTRY_PROVIDER_RETRIES,
      breakerThreshold: config.REGISTRY_BREAKER_THRESHOLD,
      breakerHalfOpenAfterMs: config.REGISTRY_BREAKER_HALF_OPEN_MS,
    });
  }
  const files = (config.REGISTRY_SANDBOX_FIXTURES ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return new SandboxRegistryProvider({ fixtureFiles: files });
}

/**
 * The fingerprint HMAC key: REGISTRY_FINGERPRINT_KEY, else a random 32-byte key created once in
 * DATA_DIR (mode 0600) so fingerprints stay comparable across restarts.
 */
export function loadFingerprintKey(config: Config): Buffer {
  if (config.REGISTRY_FINGERPRINT_KEY) {
    // A short key could be guessed, and then fingerprints brute-forced back to names and dates.
    if (Buffer.byteLength(config.REGISTRY_FINGERPRINT_KEY) < 16) throw new Error('REGISTRY_FINGERPRINT_KEY must be at least 16 bytes');
    return Buffer.from(config.REGISTRY_FINGERPRINT_KEY, 'utf8');
  }
  const dir = resolve(config.DATA_DIR);
  const file = join(dir, 'registry-fingerprint.key');
  const read = (): Buffer => {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
    if (key.length < 16) throw new Error(`${file} does not hold a key of at least 16 bytes (hex); remove it to create a new one`);
    return key;
  };
  if (existsSync(file)) return read();
  mkdirSync(dir, { recursive: true });
  const key = randomBytes(32);
  try {
    // 'wx': two processes starting on one DATA_DIR (server and CLI) must not overwrite each other's key.
    writeFileSync(file, key.toString('hex'), { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return read();
    throw e;
  }
  chmodSync(file, 0o600);
  return key;
}

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
export async function recordLookup(ctx: AppContext, request: FastifyRequest, data: RegistryLookupCompletedData): Promise<void> {
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
  ctx: AppContext,
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
  ctx: AppContext,
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

/** Seconds since `startedAt` (process.hrtime.bigint()), to the millisecond: the spec's `processing_time`. */
export function secondsSince(startedAt: bigint): number {
  return Math.round(Number(process.hrtime.bigint() - startedAt) / 1e6) / 1000;
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
