/**
 * Rate-limiter port: per-minute request limits (sliding 60 s window, exact) and concurrent-request
 * limits per tenant, as the HTTP edge applies them (`apps/api/edge.ts`).
 *
 * Embedded adapter: `infra/rate-limiter/memory` (one process's memory: each API process enforces its
 * own share). Scaled out: `infra/rate-limiter/redis` (atomic Lua scripts on one Redis, exact across every
 * API instance). Adapters are chosen by `infra/rate-limiter/index.ts` (`RATE_LIMITER`).
 * Every adapter must pass `test/contract/rate-limiter.contract.ts`.
 */
export interface RateHit {
  allowed: boolean;
  /** Requests left in the current window after this one (0 when refused). */
  remaining: number;
  /** Seconds until a refused request would be accepted (0 when allowed); at least 1 when refused. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /**
   * Records one request of `key` when fewer than `limit` were accepted in the last 60 s.
   * @param nowMs the caller's clock (the memory adapter's time; the Redis adapter uses the server's clock so
   *   every instance agrees).
   * @throws RateLimiterUnavailableError when the shared store cannot be reached (the edge fails closed).
   */
  hit(key: string, limit: number, nowMs: number): Promise<RateHit>;
  /**
   * Takes one of `limit` concurrent slots of `key` for `holder` (unique per request); `limit` null = no
   * limit (the slot is still counted). A holder that never releases (its process died) loses the slot
   * after the adapter's slot TTL.
   * @throws RateLimiterUnavailableError as {@link RateLimiter.hit}.
   */
  acquire(key: string, limit: number | null, holder: string): Promise<boolean>;
  /** Frees `holder`'s slot of `key` (no-op when it holds none; errors are swallowed and logged by the caller). */
  release(key: string, holder: string): Promise<void>;
  /** Slots of `key` currently held (for tests and operators). */
  current(key: string): Promise<number>;
  close(): Promise<void>;
  /**
   * The same operations answered synchronously, offered by adapters that need no IO (memory): the edge
   * uses them on its hot path so a request takes no promise or tick for its limits (issue 18).
   * Absent on adapters with IO (Redis).
   */
  readonly immediate?: ImmediateRateLimiter;
}

/** {@link RateLimiter}'s operations without IO (same semantics, same state). */
export interface ImmediateRateLimiter {
  hit(key: string, limit: number, nowMs: number): RateHit;
  acquire(key: string, limit: number | null, holder: string): boolean;
  release(key: string, holder: string): void;
}

/** The shared limiter store is unreachable: the edge answers 503 with `Retry-After` (fail closed). */
export class RateLimiterUnavailableError extends Error {
  override readonly name = 'RateLimiterUnavailableError';
}
