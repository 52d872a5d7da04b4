import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { connectFailFast, type FailFastRedis } from '../../shared/redis.ts';
import { RateLimiterUnavailableError, type RateHit, type RateLimiter } from '../../ports/rate-limiter.ts';

/**
 * Sliding window on a sorted set of accepted requests (score = Redis server time, ms): drop entries
 * older than the window, refuse when `limit` remain, else add this request. Returns
 * `{allowed(0|1), remaining, retryAfterSeconds}`. Atomic: Redis runs a script alone.
 */
const HIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local retry = math.ceil((tonumber(oldest[2]) + window - now) / 1000)
  if retry < 1 then retry = 1 end
  return {0, 0, retry}
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return {1, limit - n - 1, 0}
`;

/**
 * Concurrency slots on a sorted set of holders (score = expiry, server time ms): expired holders (their
 * process died without releasing) are dropped, then the slot is taken when fewer than `limit` are held
 * (`limit` < 0: no limit). Returns 1 when taken.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if limit >= 0 and redis.call('ZCARD', KEYS[1]) >= limit then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
`;

export interface RedisRateLimiterOptions {
  /** e.g. `redis://127.0.0.1:6379`. */
  url: string;
  /** Prefix of every key (separates deployments, and tests, sharing one Redis). Default `sello:`. */
  prefix?: string;
  /** How long a concurrency slot lives without release (its process died), ms. Default 120 000. */
  slotTtlMs?: number;
  /** Per-command timeout, ms: past it the request is refused with 503 rather than waiting. Default 1000. */
  commandTimeoutMs?: number;
  /** Window length, ms. Default 60 000 (limits are per minute). */
  windowMs?: number;
}

/**
 * Rate limiter shared by every API instance (`RATE_LIMITER=redis`, `REDIS_URL`): per-minute windows and
 * concurrency slots in Redis, each check one atomic Lua script (one round trip), timed by the Redis
 * server's clock so instances with skewed clocks agree. Exact across instances: N allowed requests per
 * window in total, never N per instance.
 *
 * Fails closed: when Redis cannot be reached within `commandTimeoutMs` (down, or not connected yet)
 * every call rejects with {@link RateLimiterUnavailableError} and the edge answers 503 with
 * `Retry-After` instead of letting unlimited traffic through. Commands are never queued while
 * disconnected (`enableOfflineQueue: false`); the client keeps reconnecting in the background.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly slotTtlMs: number;
  private readonly windowMs: number;
  private readonly timeoutMs: number;
  private readonly instance = randomUUID();
  private seq = 0;

  constructor(options: RedisRateLimiterOptions) {
    this.prefix = options.prefix ?? 'sello:';
    this.slotTtlMs = options.slotTtlMs ?? 120_000;
    this.windowMs = options.windowMs ?? 60_000;
    this.timeoutMs = options.commandTimeoutMs ?? 1000;
    const conn = connectFailFast(options.url, this.timeoutMs, 'rate limiter store', (m) => new RateLimiterUnavailableError(m));
    this.redis = conn.redis;
    this.call = conn.call;
    this.redis.defineCommand('selloHit', { numberOfKeys: 1, lua: HIT });
    this.redis.defineCommand('selloAcquire', { numberOfKeys: 1, lua: ACQUIRE });
  }

  /** Runs a command through the fail-fast guard (infra/shared/redis.ts). */
  private readonly call: FailFastRedis['call'];

  async hit(key: string, limit: number, _nowMs: number): Promise<RateHit> {
    const member = `${this.instance}:${++this.seq}`;
    const r = await this.call(
      () =>
        (this.redis as unknown as { selloHit(k: string, ...a: (string | number)[]): Promise<number[]> }).selloHit(
          `${this.prefix}rl:${key}`,
          limit,
          this.windowMs,
          member,
        ),
    );
    return { allowed: r[0] === 1, remaining: Number(r[1]), retryAfterSeconds: Number(r[2]) };
  }

  async acquire(key: string, limit: number | null, holder: string): Promise<boolean> {
    const r = await this.call(
      () =>
        (this.redis as unknown as { selloAcquire(k: string, ...a: (string | number)[]): Promise<number> }).selloAcquire(
          `${this.prefix}cc:${key}`,
          limit ?? -1,
          `${this.instance}:${holder}`,
          this.slotTtlMs,
        ),
    );
    return r === 1;
  }

  async release(key: string, holder: string): Promise<void> {
    await this.call(() => this.redis.zrem(`${this.prefix}cc:${key}`, `${this.instance}:${holder}`));
  }

  async current(key: string): Promise<number> {
    return this.call(async () => {
      const t = await this.redis.time();
      const now = Number(t[0]) * 1000 + Math.floor(Number(t[1]) / 1000);
      return this.redis.zcount(`${this.prefix}cc:${key}`, `(${now}`, '+inf');
    });
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
