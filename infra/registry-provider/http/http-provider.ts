/**
 * HTTP adapter of the registry provider port: a certified third-party provider reached over HTTPS.
 *
 * Wire protocol (documented in docs/registry.md, "Provider protocol"):
 * - `POST {baseUrl}/renapo/curp` with the get-curp request as JSON ->
 *   `200 {"status":"FOUND","data":{CURP record}}` | `200 {"status":"NOT_FOUND","message"}` | `404`;
 * - `POST {baseUrl}/ine/voter-list` with `{cic, identificadorCiudadano?, ocr?, ...extra}` ->
 *   `200 {"status":"VALID","data":{voter record}}` | `200 {"status":"NOT_VALID","message"}` | `404`;
 * - maintenance: any status with body `{"status":"MAINTENANCE"}`;
 * - authentication: `Authorization: Bearer <apiKey>`, or HTTP Basic with username/password.
 *
 * Resilience (cockatiel policies, outermost first):
 * 1. circuit breaker, one per registry: after `breakerThreshold` consecutive failed lookups it opens and every call fails
 *    fast with reason `circuit_open` for `breakerHalfOpenAfterMs`, then one trial call decides;
 * 2. retry with exponential backoff and decorrelated jitter, only for failures where repeating the
 *    read is safe and may help: connection refused/reset before an answer, 502, 503 (not maintenance),
 *    504 and 429. Not retried: a timeout (the provider may still be working and billing; the per-call
 *    timeout is the operator's latency budget), 500, malformed bodies, 4xx and maintenance;
 * 3. per-attempt timeout (`timeoutMs`) covering connect, headers and body.
 * Every failure becomes {@link RegistryUnavailableError}, which the routes render as 503.
 */
import { Agent, request as undiciRequest, errors as undiciErrors } from 'undici';
import {
  BrokenCircuitError,
  ConsecutiveBreaker,
  ExponentialBackoff,
  circuitBreaker,
  decorrelatedJitterGenerator,
  handleType,
  handleWhen,
  retry,
  wrap,
  type CircuitBreakerPolicy,
  type IPolicy,
} from 'cockatiel';
import {
  RegistryUnavailableError,
  type CurpLookupRequest,
  type CurpLookupResult,
  type CurpRecord,
  type LookupOptions,
  type RegistryProvider,
  type RegistryService,
  type RegistryUnavailableReason,
  type VoterLookupRequest,
  type VoterLookupResult,
} from '../../ports/registry-provider.ts';

/** Configuration of {@link HttpRegistryProvider} (from the REGISTRY_PROVIDER_* variables). */
export interface HttpProviderOptions {
  /** Base URL, e.g. `https://api.provider.example/v1`. */
  baseUrl: string;
  /** Bearer token; or give `username`/`password` for HTTP Basic. */
  apiKey?: string;
  username?: string;
  password?: string;
  /** Per-attempt timeout, milliseconds (connect + answer). Default 8000. */
  timeoutMs?: number;
  /** Retries after the first attempt for retry-safe failures. Default 2. */
  retries?: number;
  /** First backoff delay, ms (decorrelated jitter around it). Default 100. */
  backoffInitialMs?: number;
  /** Largest backoff delay, ms. Default 1000. */
  backoffMaxMs?: number;
  /** Consecutive failed lookups that open the circuit. Default 5. */
  breakerThreshold?: number;
  /** Time the circuit stays open before a trial call, ms. Default 30000. */
  breakerHalfOpenAfterMs?: number;
  /** Largest provider body read, bytes. Default 256 KiB. */
  maxBodyBytes?: number;
}

/** A failure that a retry may fix (see the module comment). */
class RetryableFailure extends Error {
  constructor(
    readonly reason: RegistryUnavailableReason,
    message: string,
  ) {
    super(message);
  }
}

/** A failure a retry cannot fix. */
class FinalFailure extends Error {
  constructor(
    readonly reason: RegistryUnavailableReason,
    message: string,
  ) {
    super(message);
  }
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : v === null || v === undefined ? '' : null;
}

/** Provider adapter; create once per process and `close()` on shutdown (it owns a keep-alive pool). */
export class HttpRegistryProvider implements RegistryProvider {
  readonly name = 'http';
  readonly sandbox = false;
  private readonly agent: Agent;
  private readonly policies: Record<RegistryService, { policy: IPolicy; breaker: CircuitBreakerPolicy }>;
  private readonly base: string;
  private readonly auth: string | undefined;
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;

  constructor(options: HttpProviderOptions) {
    const url = new URL(options.baseUrl); // raises on a malformed URL at start-up
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('registry provider URL must be http(s)');
    this.base = url.href.replace(/\/+$/, '');
    this.auth = options.apiKey
      ? `Bearer ${options.apiKey}`
      : options.username !== undefined
        ? `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64')}`
        : undefined;
    this.timeoutMs = options.timeoutMs ?? 8000;
    this.maxBodyBytes = options.maxBodyBytes ?? 256 * 1024;
    this.agent = new Agent({ connect: { timeout: this.timeoutMs }, keepAliveTimeout: 10_000, connections: 32 });
    // One breaker per registry: RENAPO failing must not block INE lookups, and the other way round.
    const build = (): { policy: IPolicy; breaker: CircuitBreakerPolicy } => {
      const retryPolicy = retry(handleType(RetryableFailure), {
        maxAttempts: options.retries ?? 2,
        backoff: new ExponentialBackoff({
          generator: decorrelatedJitterGenerator,
          initialDelay: options.backoffInitialMs ?? 100,
          maxDelay: options.backoffMaxMs ?? 1000,
        }),
      });
      // Every provider failure counts; a client abort does not.
      const breaker = circuitBreaker(
        handleWhen((e) => e instanceof RetryableFailure || e instanceof FinalFailure),
        {
          halfOpenAfter: options.breakerHalfOpenAfterMs ?? 30_000,
          breaker: new ConsecutiveBreaker(options.breakerThreshold ?? 5),
        },
      );
      return { policy: wrap(breaker, retryPolicy), breaker };
    };
    this.policies = { renapo: build(), ine: build() };
  }

  /** Circuit of one registry: `closed`, `open`, `half-open` or `isolated` (for status pages and tests). */
  circuitState(service: RegistryService): string {
    return ['closed', 'open', 'half-open', 'isolated'][this.policies[service].breaker.state] ?? 'unknown';
  }

  private async attempt(service: RegistryService, path: string, body: Json, options: LookupOptions): Promise<{ status: number; json: Json | null }> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.auth) headers.authorization = this.auth;
    if (options.requestId) headers['x-request-id'] = options.requestId;
    let res;
    try {
      res = await undiciRequest(`${this.base}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal,
        dispatcher: this.agent,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (e) {
      throw this.classifyTransport(e, signal, timeout, options);
    }
    let text: string;
    try {
      text = await this.readCapped(res.body, signal);
    } catch (e) {
      if (e instanceof FinalFailure) throw e;
      throw this.classifyTransport(e, signal, timeout, options);
    }
    let json: Json | null = null;
    try {
      const parsed: unknown = text ? JSON.parse(text) : null;
      json = isObject(parsed) ? parsed : null;
    } catch {
      json = null;
    }
    const s = res.statusCode;
    if (json && json.status === 'MAINTENANCE') throw new FinalFailure('maintenance', `${service} provider in maintenance`);
    if (s === 429 || s === 502 || s === 503 || s === 504) throw new RetryableFailure('provider_error', `${service} provider answered HTTP ${s}`);
    if (s >= 500) throw new FinalFailure('provider_error', `${service} provider answered HTTP ${s}`);
    if (s === 404) return { status: s, json };
    if (s >= 400) throw new FinalFailure('rejected', `${service} provider rejected the request (HTTP ${s}); check the provider credentials and configuration`);
    if (s < 200 || s >= 300) throw new FinalFailure('malformed_response', `${service} provider answered HTTP ${s}`);
    if (!json) throw new FinalFailure('malformed_response', `${service} provider answered a body that is not a JSON object`);
    return { status: s, json };
  }

  private async readCapped(body: AsyncIterable<Uint8Array> & { destroy?: (e?: Error) => void }, signal: AbortSignal): Promise<string> {
    const chunks: Uint8Array[] = [];
    let n = 0;
    for await (const chunk of body) {
      n += chunk.length;
      if (n > this.maxBodyBytes) {
        body.destroy?.();
        throw new FinalFailure('malformed_response', `provider body larger than ${this.maxBodyBytes} bytes`);
      }
      chunks.push(chunk);
      if (signal.aborted) break;
    }
    signal.throwIfAborted();
    return Buffer.concat(chunks).toString('utf8');
  }

  private classifyTransport(e: unknown, signal: AbortSignal, timeout: AbortSignal, options: LookupOptions): Error {
    if (options.signal?.aborted) return options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted');
    if (timeout.aborted || e instanceof undiciErrors.HeadersTimeoutError || e instanceof undiciErrors.BodyTimeoutError || e instanceof undiciErrors.ConnectTimeoutError) {
      return new FinalFailure('timeout', `provider did not answer within ${this.timeoutMs} ms`);
    }
    const code = (e as { code?: string })?.code ?? (e as { cause?: { code?: string } })?.cause?.code;
    if (code && CONNECTION_CODES.has(code)) return new RetryableFailure('connection_failed', `cannot reach the provider (${code})`);
    if (signal.aborted) return new FinalFailure('timeout', `provider did not answer within ${this.timeoutMs} ms`);
    return new RetryableFailure('connection_failed', 'cannot reach the provider');
  }

  /** One lookup through breaker + retries; `parse` runs inside, so a malformed answer counts as a failure. */
  private async call<T>(service: RegistryService, path: string, body: Json, options: LookupOptions, parse: (status: number, json: Json | null) => T): Promise<T> {
    const t0 = performance.now();
    try {
      return await this.policies[service].policy.execute(async () => {
        const { status, json } = await this.attempt(service, path, body, options);
        return parse(status, json);
      }, options.signal);
    } catch (e) {
      const ms = Math.round(performance.now() - t0);
      if (e instanceof BrokenCircuitError) {
        throw new RegistryUnavailableError(service, 'circuit_open', `${service} provider failing repeatedly; calls suspended for a while`, ms);
      }
      if (e instanceof RetryableFailure || e instanceof FinalFailure) throw new RegistryUnavailableError(service, e.reason, e.message, ms);
      throw e; // client abort
    }
  }

  async getCurp(request: CurpLookupRequest, options: LookupOptions = {}): Promise<CurpLookupResult> {
    return this.call('renapo', '/renapo/curp', { ...request }, options, (status, json) => this.parseCurp(status, json));
  }

  private parseCurp(status: number, json: Json | null): CurpLookupResult {
    if (status === 404 || json?.status === 'NOT_FOUND') {
      return { found: false, message: typeof json?.message === 'string' ? json.message.slice(0, 300) : 'No record found.' };
    }
    if (json?.status !== 'FOUND' || !isObject(json.data)) throw this.malformed('renapo');
    const d = json.data;
    const fields = ['curp', 'nombres', 'primerApellido', 'segundoApellido', 'sexo', 'fechaNacimiento', 'entidadNacimiento', 'nacionalidad', 'estatus'] as const;
    const record = {} as CurpRecord;
    for (const f of fields) {
      const v = str(d[f]);
      if (v === null || v.length > 200) throw this.malformed('renapo');
      record[f] = v;
    }
    if (!/^[A-Z0-9]{18}$/.test(record.curp)) throw this.malformed('renapo');
    return { found: true, record };
  }

  async validateVoter(request: VoterLookupRequest, options: LookupOptions = {}): Promise<VoterLookupResult> {
    const body: Json = { ...(request.extra ?? {}), cic: request.cic };
    if (request.identificadorCiudadano) body.identificadorCiudadano = request.identificadorCiudadano;
    if (request.ocr) body.ocr = request.ocr;
    return this.call('ine', '/ine/voter-list', body, options, (status, json) => this.parseVoter(request, status, json));
  }

  private parseVoter(request: VoterLookupRequest, status: number, json: Json | null): VoterLookupResult {
    const message = typeof json?.message === 'string' ? json.message.slice(0, 300) : '';
    if (status === 404 || json?.status === 'NOT_VALID') {
      return { valid: false, cic: request.cic, message: message || 'The credential is not in the voter list.' };
    }
    if (json?.status !== 'VALID' || !isObject(json.data)) throw this.malformed('ine');
    const d = json.data;
    const out: Record<string, string> = {};
    for (const f of ['cic', 'identificadorCiudadano', 'ocr', 'estatus', 'seccion', 'municipio', 'entidad', 'fechaVigencia', 'message'] as const) {
      const v = str(d[f]);
      if (v === null || v.length > 300) throw this.malformed('ine');
      out[f] = v;
    }
    return {
      valid: true,
      cic: out.cic || request.cic,
      identificadorCiudadano: out.identificadorCiudadano!,
      ocr: out.ocr!,
      estatus: out.estatus!,
      seccion: out.seccion!,
      municipio: out.municipio!,
      entidad: out.entidad!,
      fechaVigencia: out.fechaVigencia!,
      message: out.message || message,
    };
  }

  private malformed(service: RegistryService): FinalFailure {
    return new FinalFailure('malformed_response', `${service} provider answered a body that does not follow the protocol`);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
