/**
 * Rate limits of the public routes, which carry no API key (issue 31: `/sign/*`, the previews and
 * `/dashboard/login` had none): per client address, and per document for the signing pages, through
 * the rate-limiter port (sliding 60 s window; exact across API processes with `RATE_LIMITER=redis`).
 *
 * Limits (per minute, configuration, docs/signing.md "Limits"):
 * - `PUBLIC_RATE_LIMIT_PER_ADDRESS` (300): one address on `/sign/*` (pages, page images, sign, decline,
 *   previews);
 * - `PUBLIC_RATE_LIMIT_PER_DOCUMENT` (600): one document's public pages, all addresses together;
 * - `DASHBOARD_LOGIN_RATE_LIMIT_PER_ADDRESS` (20): one address on `/dashboard/login`.
 *
 * Past a limit: 429 `rate_limit_exceeded` in the structured error shape with `Retry-After` and
 * `retry_after` (seconds), `details.scope` `address` or `document`. The address is the connection's
 * peer (the app runs with `trustProxy: false`): behind a reverse proxy every client shares the proxy's.
 * An IPv6 client is counted by its /64 (one subscriber's usual allocation: rotating addresses inside it
 * gains nothing); an IPv4-mapped IPv6 address counts as its IPv4 address.
 */
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Platform } from '../platform/types.ts';
import { ApiError, PlatformErrors } from './errors.ts';
import { RateLimiterUnavailableError, type RateHit } from '../../infra/ports/rate-limiter.ts';

export interface PublicLimits {
  /** Requests per minute per client address. */
  perAddress: number;
  /** Requests per minute per document (`:document_id` of the route), all addresses together; absent = none. */
  perDocument?: number;
}

/**
 * The limiter's name for a client address: IPv4 as is (also when IPv4-mapped, `::ffff:192.0.2.1`), IPv6 by
 * its /64 prefix (`2001:db8:1:2::/64`).
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const [head = '', tail] = ip.split('%')[0]!.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** The 429 of a refused public request. */
function limited(group: string, scope: 'address' | 'document', limit: number, hit: RateHit): ApiError {
  const retryAfter = Math.max(1, hit.retryAfterSeconds);
  return new ApiError(
    429,
    'rate_limit_exceeded',
    scope === 'address' ? `Too many requests from your address: at most ${limit} per minute` : `Too many requests for this document: at most ${limit} per minute`,
    { limit, window_seconds: 60, scope, group },
    { retry_after: retryAfter },
    { 'Retry-After': String(retryAfter) },
  );
}

/**
 * An `onRequest` hook applying `limits` to the routes it is attached to; `group` names their share of the
 * limiter (`sign`, `dashboard-login`), so each group has its own budget.
 * @throws ApiError 429 past a limit; 503 `service_unavailable` when the shared limiter cannot be reached (fails closed, as the edge).
 */
export function publicRateLimit(platform: Platform, group: string, limits: PublicLimits): onRequestHookHandler {
  const limiter = platform.rateLimiter;
  const hit = async (key: string, limit: number): Promise<RateHit> => {
    const now = platform.clock.now();
    if (limiter.immediate) return limiter.immediate.hit(key, limit, now);
    try {
      return await limiter.hit(key, limit, now);
    } catch (error) {
      if (error instanceof RateLimiterUnavailableError) throw PlatformErrors.limiterUnavailable();
      throw error;
    }
  };
  return async (request: FastifyRequest) => {
    const byAddress = await hit(`public:${group}:ip:${addressKey(request.ip)}`, limits.perAddress);
    if (!byAddress.allowed) throw limited(group, 'address', limits.perAddress, byAddress);
    const documentId = (request.params as { document_id?: unknown } | undefined)?.document_id;
    if (limits.perDocument && typeof documentId === 'string' && documentId) {
      const byDocument = await hit(`public:${group}:doc:${documentId.slice(0, 64)}`, limits.perDocument);
      if (!byDocument.allowed) throw limited(group, 'document', limits.perDocument, byDocument);
    }
  };
}
