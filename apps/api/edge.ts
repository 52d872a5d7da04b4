import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { ApiApp } from './types.ts';
import { InsufficientCreditsError, availableCredits } from '../../domain/credits/credits.ts';
import { CREDIT_COSTS, PLANS, concurrencyLimit, nextResetUnix, perMinuteLimit, type RateClass } from '../../domain/plans/plans.ts';
import { Authenticator, PermissionDenied, type AuthContext, type AuthRequirement } from './auth.ts';
import type { Platform } from '../platform/types.ts';
import { ApiError, PlatformErrors, type ErrorShape } from './errors.ts';
import { RateLimiterUnavailableError, type RateHit } from '../../infra/ports/rate-limiter.ts';
import { registerIdempotency } from './idempotency.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Authentication requirement; `false` for public routes (OpenAPI, docs). Default: `read`. */
    auth?: AuthRequirement | false;
    /**
     * Credits charged on a 2xx answer. Spec routes take theirs from `CREDIT_COSTS` (domain/plans) by
     * method and path; this overrides it (routes outside the spec's table, tests).
     */
    billing?: { cost: number };
    /** Rate class (spec, Limits): heavy = 50%, light = 2x the plan's per-minute limit. Default standard. */
    rateClass?: RateClass;
    /** Error body shape of the route's group (spec, Errors). Default structured. */
    errorShape?: ErrorShape;
  }
  interface FastifyRequest {
    auth?: AuthContext;
    edge: EdgeState;
  }
}

/** Per-request bookkeeping of the edge hooks. */
export interface EdgeState {
  /** `performance.now()` when the request arrived (milliseconds; a float, no BigInt per call). */
  startedAt: number;
  /** The route's configuration (read once: `request.routeOptions` builds an object per access). */
  config: FastifyContextConfig & { url?: string };
  /** The route's path pattern (`/v1/face/detect`), or the path of an unknown URL. */
  endpoint: string;
  concurrencyKey: string | null;
  reservationId: string | null;
  cost: number;
  charged: number;
  /** The call was refused for insufficient credits. */
  insufficient: boolean;
  responseSize: number;
  /** Its slot was freed and its usage recorded (`complete`, from onResponse or, for a client gone, onSend). */
  completed: boolean;
  /** The face/fingerprint `subject_id` a route read from its body ({@link recordUsageSubject}); null: none. */
  subject: string | null;
}

/**
 * Records on the call's usage row the data subject (`subject_id`) a route read from its body (multipart
 * enrolment), so an erasure of that subject also clears the row's IP address and user agent
 * (docs/privacy.md "Usage events"). A `:subjectId` path parameter or `subject_id` query parameter of the
 * face/fingerprint matching routes is recorded without it.
 */
export function recordUsageSubject(request: FastifyRequest, subjectId: string): void {
  if (request.edge && subjectId !== '') request.edge.subject = subjectId;
}

/** The data subject a call names: set by its route, else the biometric routes' `:subjectId` or `?subject_id=`. */
function usageSubject(request: FastifyRequest, edge: EdgeState): string | null {
  if (edge.subject !== null) return edge.subject;
  if (!edge.endpoint.startsWith('/v1/face-matching/') && !edge.endpoint.startsWith('/v1/fingerprint-matching/')) return null;
  const params = request.params as Record<string, unknown> | undefined;
  if (typeof params?.subjectId === 'string' && params.subjectId !== '') return params.subjectId;
  const query = request.query as Record<string, unknown> | undefined;
  return typeof query?.subject_id === 'string' && query.subject_id !== '' ? query.subject_id : null;
}

/**
 * The billed, limited, audited HTTP edge as Fastify hooks:
 * - onRequest: authenticate (401/403), per-minute rate limit per class (429 + Retry-After), concurrency (429);
 * - preHandler (after validation) of the routes that may cost credits: the `Idempotency-Key` check (replay, 409,
 *   422; apps/api/idempotency.ts), then reserve the credits (429, or 402 on registry routes);
 * - onSend: commit the reservation on 2xx, release it otherwise; set the billing headers on every response;
 *   for a client that closed its connection first: release it and complete the call there (status 499);
 * - onResponse: free the concurrency slot; append the usage event.
 */
export function registerEdge(app: ApiApp, ctx: Platform): void {
  const authenticator = new Authenticator(ctx.tenancy, ctx.config);
  // RATE_LIMITER: this process's memory, or Redis shared by every instance (exact across them). When the
  // shared store is unreachable the edge fails closed: 503 with Retry-After (docs/operations.md).
  const limiter = ctx.rateLimiter;
  const limited = async <T>(call: Promise<T>): Promise<T> => {
    try {
      return await call;
    } catch (error) {
      if (error instanceof RateLimiterUnavailableError) throw PlatformErrors.limiterUnavailable();
      throw error;
    }
  };
  const lastRateLimitedEvent = new Map<string, number>();

  app.decorateRequest('auth', undefined);
  app.decorateRequest('edge', null as unknown as EdgeState);

  /** The 429 of a refused per-minute hit (and, at most once a minute per tenant, `api.rate.limited`). */
  const rateLimited = (request: FastifyRequest, auth: AuthContext, limit: number, rateClass: RateClass, r: RateHit): ApiError => {
    const now = ctx.clock.now();
    if ((lastRateLimitedEvent.get(auth.tenantId) ?? 0) < now - 60_000) {
      lastRateLimitedEvent.set(auth.tenantId, now);
      ctx
        .publishWebhookEvent(auth.tenantId, 'api.rate.limited', { limit, rate_class: rateClass, endpoint: request.edge.endpoint, retry_after: r.retryAfterSeconds }, request.id)
        .catch((err: unknown) => request.log.error({ err }, 'could not publish api.rate.limited'));
    }
    return PlatformErrors.rateLimited(limit, r.retryAfterSeconds, rateClass);
  };

  /**
   * Rate limit and concurrency slot of an authenticated call: synchronous with a limiter that answers
   * from memory (`limiter.immediate`), else a promise (Redis).
   * @throws ApiError 429 (limits), 503 (shared limiter unreachable)
   */
  const admit = (request: FastifyRequest, auth: AuthContext): void | Promise<void> => {
    request.auth = auth;
    const config = request.edge.config;
    const plan = PLANS[auth.tenant.plan];
    const rateClass = config.rateClass ?? 'standard';
    const limit = perMinuteLimit(plan, rateClass, auth.tenant.limits);
    const maxConcurrent = concurrencyLimit(plan, auth.tenant.limits);
    const now = limiter.immediate;
    if (now) {
      if (limit !== null) {
        const r = now.hit(`${auth.tenantId}:${rateClass}`, limit, ctx.clock.now());
        if (!r.allowed) throw rateLimited(request, auth, limit, rateClass, r);
      }
      if (!now.acquire(auth.tenantId, maxConcurrent, request.id)) throw PlatformErrors.concurrencyLimited(maxConcurrent ?? 0);
      request.edge.concurrencyKey = auth.tenantId;
      return;
    }
    return (async () => {
      if (limit !== null) {
        const r = await limited(limiter.hit(`${auth.tenantId}:${rateClass}`, limit, ctx.clock.now()));
        if (!r.allowed) throw rateLimited(request, auth, limit, rateClass, r);
      }
      if (!(await limited(limiter.acquire(auth.tenantId, maxConcurrent, request.id)))) throw PlatformErrors.concurrencyLimited(maxConcurrent ?? 0);
      request.edge.concurrencyKey = auth.tenantId;
    })();
  };

  // The hooks are callback-style and finish synchronously on the common path (a known key, a call that
  // costs nothing): no promise, no IO. Only an unknown key (catch-up), a JWT, or a priced call (credit
  // reservation) goes asynchronous.
  app.addHook('onRequest', (request, _reply, done) => {
    const config = routeConfig(request);
    request.edge = {
      startedAt: performance.now(),
      config,
      endpoint: config.url ?? request.url.split('?')[0]!,
      concurrencyKey: null,
      reservationId: null,
      cost: 0,
      charged: 0,
      insufficient: false,
      responseSize: 0,
      completed: false,
      subject: null,
    };
    if (config.auth === false || request.is404) return done();
    const requirement = config.auth ?? READ;
    let admitted: void | Promise<void>;
    try {
      const auth = authenticator.authenticateKnown(request, requirement);
      admitted = auth ? admit(request, auth) : authenticator.authenticateMissed(request, requirement).then((a) => admit(request, a));
    } catch (error) {
      return refused(request, error as Error, done);
    }
    if (!admitted) return done();
    admitted.then(
      () => done(),
      (error: Error) => refused(request, error, done),
    );
  });

  /** Reserves a priced call's credits once its input is validated (429, or 402 on registry routes). */
  const reserveCredits = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    const auth = request.auth;
    const cost = auth ? routeCost(request) : 0;
    if (!auth || cost <= 0) return done();
    request.edge.cost = cost;
    const plan = PLANS[auth.tenant.plan];
    ctx.credits.reserve(auth.tenantId, cost, plan.monthlyCredits, request.edge.endpoint).then(
      (id) => {
        request.edge.reservationId = id;
        done();
      },
      (error: unknown) => {
        if (!(error instanceof InsufficientCreditsError)) return done(error as Error);
        request.edge.insufficient = true;
        done(insufficientCredits(request, error, ctx.clock.now()));
      },
    );
  };
  // Only on routes that may cost credits, first of their preHandlers: a free route (balance, keys,
  // status: the most called) runs no preHandler hook at all (issue 18).
  // The Idempotency-Key check runs before the reservation: a replay or a refused retry reserves nothing.
  // Assigned at the end of registerEdge (its onSend must follow the edge's), before any route exists.
  let idempotent: ReturnType<typeof registerIdempotency> | undefined;
  app.addHook('onRoute', (route) => {
    if (!mayCharge(route.config as (FastifyContextConfig & { url?: string }) | undefined, route.url, route.method)) return;
    const own = route.preHandler;
    route.preHandler = [idempotent!, reserveCredits, ...(own ? (Array.isArray(own) ? own : [own]) : [])];
  });

  /**
   * What `onResponse` does (free the concurrency slot, release a reservation still open, append the usage
   * event with `statusCode`), once per request: also called from `onSend` for a client that went away,
   * because Fastify then never runs `onResponse` (its connection is destroyed before the answer is written).
   */
  const complete = (request: FastifyRequest, statusCode: number): void => {
    const edge = request.edge;
    if (!edge || edge.completed) return;
    edge.completed = true;
    if (edge.concurrencyKey) {
      if (limiter.immediate) limiter.immediate.release(edge.concurrencyKey, request.id);
      else limiter.release(edge.concurrencyKey, request.id).catch((err: unknown) => request.log.error({ err }, 'could not free a concurrency slot (it expires)'));
    }
    // A reservation still open here means the answer never went out: never charge it.
    if (edge.reservationId && request.auth) {
      ctx.credits.settle(request.auth.tenantId, edge.reservationId, false, 'aborted').catch(() => undefined);
      edge.reservationId = null;
    }
    const auth = request.auth;
    const headers = request.headers;
    // Positional, no per-call object or date text: the usage-writer thread builds the event (issue 18).
    ctx.usage.recordCall(
      request.id,
      auth ? auth.tenantId : null,
      auth ? auth.keyId : null,
      edge.endpoint,
      request.method,
      statusCode,
      (performance.now() - edge.startedAt) / 1000,
      Number(headers['content-length'] ?? 0) || 0,
      edge.responseSize,
      clientIp(request),
      headers['user-agent'] ?? null,
      edge.charged,
      ctx.clock.now(),
      usageSubject(request, edge),
    );
  };

  app.addHook('onSend', (request, reply, payload, done) => {
    const edge = request.edge;
    // The client closed the connection before its answer (a long OCR call it gave up on): the work is done
    // but nobody receives it, so a reservation is released (not charged) and the call ends here, recorded
    // with status 499 (client closed request).
    if (edge && reply.raw.destroyed) {
      complete(request, CLIENT_CLOSED_REQUEST);
      return done(null, payload);
    }
    // A streamed answer (an export, a PDF) that the client abandons mid-way never reaches onResponse either:
    // the response's `close` completes the call then (a no-op when onResponse already did), else its slot
    // stayed taken until a restart.
    if (edge && payload !== null && typeof payload === 'object' && typeof (payload as { pipe?: unknown }).pipe === 'function') {
      reply.raw.once('close', () => complete(request, reply.raw.writableFinished ? reply.statusCode : CLIENT_CLOSED_REQUEST));
    }
    if (!edge?.reservationId || !request.auth) {
      try {
        finishHeaders(ctx, request, reply, payload);
      } catch (error) {
        return done(error as Error);
      }
      return done(null, payload);
    }
    const auth = request.auth;
    const success = reply.statusCode >= 200 && reply.statusCode < 300;
    ctx.credits
      .settle(auth.tenantId, edge.reservationId, success, success ? undefined : `status_${reply.statusCode}`)
      .then(async (outcome) => {
        edge.reservationId = null;
        // `not_open`: the reservation outlived its lease and was released; the call is not charged.
        if (outcome === 'committed') {
          edge.charged = edge.cost;
          await maybeCreditsLow(ctx, request, edge.cost);
        }
        finishHeaders(ctx, request, reply, payload);
      })
      .then(
        () => done(null, payload),
        (error: Error) => done(error),
      );
  });

  app.addHook('onResponse', (request, reply, done) => {
    complete(request, reply.statusCode);
    done();
  });

  idempotent = registerIdempotency(app, ctx);
}

/** Ends onRequest with `error`; a key refused for a missing permission is still its tenant's call (billing headers, usage). */
function refused(request: FastifyRequest, error: Error, done: (error?: Error) => void): void {
  if (error instanceof PermissionDenied) request.auth = error.identity;
  done(error);
}

/** Status recorded for a call whose client closed the connection before the answer (nginx's 499, "client closed request"). */
export const CLIENT_CLOSED_REQUEST = 499;

const READ: AuthRequirement = { permission: 'read' };

/** Sets the billing headers and measures the payload (the usage event's `response_size`). */
function finishHeaders(ctx: Platform, request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
  setBillingHeaders(ctx, request, reply);
  if (request.edge) request.edge.responseSize = payloadSize(payload, reply);
}

/**
 * The peer address of a connection, kept on its socket (`request.ip` asks the socket on every call). Valid
 * because the app runs with `trustProxy: false` (app.ts): behind a trusted proxy one socket carries many
 * clients, and this cache would have to go.
 */
const PEER_IP = Symbol('sello.peerIp');
function clientIp(request: FastifyRequest): string {
  const socket = request.raw.socket as (typeof request.raw.socket & { [PEER_IP]?: string }) | undefined;
  if (!socket) return request.ip ?? '';
  return (socket[PEER_IP] ??= request.ip);
}

/** Credits a 2xx answer of this route costs: its `billing` override, else the spec's table, else 0. */
function routeCost(request: FastifyRequest): number {
  const config = request.edge.config;
  const override = config.billing?.cost;
  if (override !== undefined) return override;
  // The table's answer per route configuration and method (a route's config object outlives its calls).
  let byMethod = tableCosts.get(config);
  if (!byMethod) tableCosts.set(config, (byMethod = new Map()));
  let cost = byMethod.get(request.method);
  if (cost === undefined) byMethod.set(request.method, (cost = (CREDIT_COSTS as Record<string, number>)[`${request.method} ${config.url ?? ''}`] ?? 0));
  return cost;
}
const tableCosts = new WeakMap<object, Map<string, number>>();

/** A route may cost credits: a positive `billing` override, or a price in the spec's table for one of its methods. */
export function mayCharge(config: { billing?: { cost: number } } | undefined, url: string, method: string | string[]): boolean {
  const override = config?.billing?.cost;
  if (override !== undefined) return override > 0;
  return (Array.isArray(method) ? method : [method]).some((m) => ((CREDIT_COSTS as Record<string, number>)[`${m} ${url}`] ?? 0) > 0);
}

/**
 * Fastify's route context symbol (`fastify.context`), looked up once: its `config` is what
 * `request.routeOptions.config` returns, without the object `routeOptions` builds on every access.
 * Falls back to `routeOptions` when a Fastify version names it differently.
 */
let contextSymbol: symbol | null | undefined;
function routeConfig(request: FastifyRequest): FastifyContextConfig & { url?: string } {
  if (contextSymbol === undefined) contextSymbol = Object.getOwnPropertySymbols(request).find((s) => s.description === 'fastify.context') ?? null;
  const context = contextSymbol ? (request as unknown as Record<symbol, { config?: FastifyContextConfig & { url?: string } } | undefined>)[contextSymbol] : undefined;
  return context?.config ?? request.routeOptions.config;
}

function payloadSize(payload: unknown, reply: FastifyReply): number {
  if (typeof payload === 'string') return Buffer.byteLength(payload);
  if (Buffer.isBuffer(payload)) return payload.length;
  const len = Number(reply.getHeader('content-length'));
  return Number.isFinite(len) ? len : 0;
}

/** "1 credit", "5 credits" (English plural rule). */
export function creditCount(n: number): string {
  return `${n} ${n === 1 ? 'credit' : 'credits'}`;
}

/** The spec's insufficient-credits answer: 429 general body, 402 body on registry routes. */
function insufficientCredits(request: FastifyRequest, error: InsufficientCreditsError, nowMs: number): ApiError {
  const reset = nextResetUnix(nowMs);
  const retryAfter = Math.max(1, reset - Math.floor(nowMs / 1000));
  const message = error.capped
    ? `This call costs ${creditCount(error.required)} and ${error.available} ${error.available === 1 ? 'is' : 'are'} left of this month's cap set by the account that provides your keys`
    : `This call costs ${creditCount(error.required)} and ${error.available} ${error.available === 1 ? 'is' : 'are'} available`;
  if (request.edge.config.errorShape === 'registry') {
    return new ApiError(402, 'insufficient_credits', message, undefined, undefined, undefined, {
      success: false,
      error: 'Insufficient credits',
      credits_required: error.required,
      credits_available: error.available,
    });
  }
  return new ApiError(429, 'insufficient_credits', message, undefined, undefined, { 'Retry-After': String(retryAfter) }, {
    success: false,
    error: 'insufficient_credits',
    message,
    error_code: 'INSUFFICIENT_CREDITS',
    details: {
      credit_cost: error.required,
      credit_balance: error.available,
      needs_credits: error.required - error.available,
      upgrade_message: 'Upgrade your plan or buy credits; purchased credits never expire.',
      reset_date: new Date(reset * 1000).toISOString(),
    },
    retry_after: retryAfter,
  });
}

/** `X-RateLimit-Reset` text, recomputed when the UTC minute changes (it changes once a month). */
const resetText = { minute: Number.NaN, text: '' };
function resetHeader(now: number): string {
  const minute = Math.floor(now / 60_000);
  if (minute !== resetText.minute) {
    resetText.minute = minute;
    resetText.text = String(nextResetUnix(now));
  }
  return resetText.text;
}

/** The billing headers of an answer to no tenant (besides `x-request-id` and `x-ratelimit-reset`). */
const UNAUTHENTICATED_BILLING_HEADERS = {
  'x-ratelimit-limit': '0',
  'x-ratelimit-remaining': '0',
  'x-ratelimit-tier': 'none',
  'x-ratelimit-billing-method': 'credits',
  'x-credit-balance': '0',
  'x-credit-cost': '0',
} as const;

/**
 * The raw HTTP/1.1 answer to a request Node's parser refused before any route or hook saw it (Fastify's
 * `clientErrorHandler`): headers over the size limit (431 `headers_too_large`), a request that took too
 * long to arrive (408 `request_timeout`), anything else malformed (400 `invalid_request`); in the spec's
 * structured shape with the unauthenticated billing headers, then the connection closes.
 */
export function clientErrorResponse(errorCode: string | undefined, requestId: string, nowMs: number): string {
  const [status, code, message] =
    errorCode === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers_too_large', 'The request line and headers exceed the allowed size (16 KiB)']
      : errorCode === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'The request took too long to arrive']
        : [400, 'invalid_request', 'The request is not valid HTTP/1.1'];
  const body = JSON.stringify({ success: false, error: { code, message, details: {} } });
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    'x-request-id': requestId,
    'x-ratelimit-reset': resetHeader(nowMs),
    ...UNAUTHENTICATED_BILLING_HEADERS,
  };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * The billing headers of every answer (spec, Limits); without `request.auth`, those of an unauthenticated
 * answer (no plan, no balance). Names are written in lower case (HTTP header names
 * are case-insensitive; Node sends them as given): Fastify lower-cases every name it is given, which for
 * a lower-case name costs no new string.
 */
export function setBillingHeaders(ctx: Platform, request: FastifyRequest, reply: FastifyReply): void {
  const now = ctx.clock.now();
  const auth = request.auth;
  reply.header('x-request-id', request.id);
  reply.header('x-ratelimit-reset', resetHeader(now));
  if (!auth) {
    for (const name in UNAUTHENTICATED_BILLING_HEADERS) reply.header(name, UNAUTHENTICATED_BILLING_HEADERS[name as keyof typeof UNAUTHENTICATED_BILLING_HEADERS]);
    return;
  }
  const plan = PLANS[auth.tenant.plan];
  // A white-label client shows what it may spend of its payer's credits (within its cap): docs/deployments.md.
  const { available: balance, allowance } = ctx.credits.balanceNow(auth.tenantId, plan.monthlyCredits);
  const balanceText = balance === null ? 'unlimited' : String(balance);
  const insufficient = request.edge?.insufficient ?? false;
  reply.header('x-ratelimit-limit', allowance === null ? 'unlimited' : planAllowanceText(allowance));
  reply.header('x-ratelimit-remaining', balanceText);
  reply.header('x-ratelimit-tier', plan.tier);
  reply.header('x-ratelimit-billing-method', plan.billingMethod);
  reply.header('x-credit-balance', balanceText);
  // An insufficient-credits answer names what the call would have cost (spec, Limits); otherwise the charge.
  reply.header('x-credit-cost', String(insufficient ? request.edge.cost : (request.edge?.charged ?? 0)));
}

const allowanceTexts = new Map<number, string>();
function planAllowanceText(credits: number): string {
  let text = allowanceTexts.get(credits);
  if (text === undefined) allowanceTexts.set(credits, (text = String(credits)));
  return text;
}

/** Publishes `user.credits.low` when this charge took the balance under the configured fraction of the allowance. */
async function maybeCreditsLow(ctx: Platform, request: FastifyRequest, charged: number): Promise<void> {
  const auth = request.auth!;
  const allowance = PLANS[auth.tenant.plan].monthlyCredits;
  // A white-label client spends its payer's credits: the payer's own calls report its low balance.
  if (allowance === null || ctx.credits.snapshotNow(auth.tenantId).billedTo) return;
  const threshold = Math.ceil(allowance * ctx.config.CREDITS_LOW_FRACTION);
  const after = availableCredits(await ctx.credits.snapshot(auth.tenantId), allowance, ctx.clock.now()) ?? 0;
  const before = after + charged;
  if (before >= threshold && after < threshold) {
    await ctx
      .publishWebhookEvent(auth.tenantId, 'user.credits.low', { credit_balance: after, threshold, monthly_allowance: allowance, plan: auth.tenant.plan }, request.id)
      .catch((err: unknown) => request.log.error({ err }, 'could not publish user.credits.low'));
  }
}
