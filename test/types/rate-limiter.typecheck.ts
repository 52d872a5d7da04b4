import type { RateLimiter } from '../../infra/ports/rate-limiter.ts';
import type { MemoryRateLimiter } from '../../infra/rate-limiter/memory/memory-rate-limiter.ts';
import type { RedisRateLimiter } from '../../infra/rate-limiter/redis/redis-rate-limiter.ts';
import type { createRateLimiter } from '../../infra/rate-limiter/index.ts';
import type { Satisfies } from './satisfies.ts';

export type RateLimiterAdapters = [
  Satisfies<RateLimiter, MemoryRateLimiter>,
  Satisfies<RateLimiter, RedisRateLimiter>,
  Satisfies<RateLimiter, ReturnType<typeof createRateLimiter>>,
];
