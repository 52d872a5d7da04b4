/**
 * Rate-limiter factory: the one place where configuration (`RATE_LIMITER`, `REDIS_URL`) selects the
 * adapter. Adding an adapter is one branch here plus its run of `test/contract/rate-limiter.contract.ts`.
 */
import type { RateLimiter } from '../ports/rate-limiter.ts';
import { MemoryRateLimiter } from './memory/memory-rate-limiter.ts';
import { RedisRateLimiter } from './redis/redis-rate-limiter.ts';
import { unknownAdapter, type Config } from '../shared/adapter.ts';

export type RateLimiterAdapter = NonNullable<Config['RATE_LIMITER']>;

/** `RATE_LIMITER` when set; otherwise `redis` when `REDIS_URL` is set, else `memory`. */
export function selectRateLimiter(config: Config): RateLimiterAdapter {
  return config.RATE_LIMITER ?? (config.REDIS_URL ? 'redis' : 'memory');
}

/**
 * Creates the configured limiter. `redis`: keys under `REDIS_PREFIX`, slots expire after
 * `RATE_LIMIT_SLOT_TTL_MS` when a process dies holding them.
 * @throws Error when `redis` is selected without `REDIS_URL`.
 */
export function createRateLimiter(config: Config): RateLimiter {
  const adapter = selectRateLimiter(config);
  switch (adapter) {
    case 'memory':
      return new MemoryRateLimiter();
    case 'redis':
      if (!config.REDIS_URL) throw new Error('RATE_LIMITER=redis needs REDIS_URL');
      return new RedisRateLimiter({ url: config.REDIS_URL, prefix: config.REDIS_PREFIX, slotTtlMs: config.RATE_LIMIT_SLOT_TTL_MS });
    default:
      return unknownAdapter('rate limiter', adapter);
  }
}
