import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { MemoryRateLimiter } from '../../infra/rate-limiter/memory/memory-rate-limiter.ts';
import { RedisRateLimiter } from '../../infra/rate-limiter/redis/redis-rate-limiter.ts';
import { RateLimiterUnavailableError } from '../../infra/ports/rate-limiter.ts';
import { rateLimiterContract } from './rate-limiter.contract.ts';
import { redisReachable, testRedisUrl } from '../helpers/redis.ts';

const shared = new MemoryRateLimiter(400);
// One memory limiter seen through several handles (close() of a handle must not clear the shared one).
rateLimiterContract('memory', () => ({ ...bind(shared), close: async () => undefined }), 400);

function bind(l: MemoryRateLimiter) {
  return { hit: l.hit.bind(l), acquire: l.acquire.bind(l), release: l.release.bind(l), current: l.current.bind(l), close: l.close.bind(l) };
}

const url = testRedisUrl();
const reachable = await redisReachable('Redis rate-limiter contract');
if (!reachable) {
  describe.skip('rate limiter contract: redis (no server reachable)', () => it('skipped', () => undefined));
} else {
  const prefix = `sello-test-${process.pid}-${Math.random().toString(36).slice(2)}:`;
  rateLimiterContract('redis', () => new RedisRateLimiter({ url, prefix, windowMs: 400 }), 400);

  describe('redis rate limiter: failure modes', () => {
    it('fails closed when Redis is unreachable: every call rejects quickly with RateLimiterUnavailableError', async () => {
      // A port nobody listens on.
      const port = await new Promise<number>((resolve) => {
        const s = createServer().listen(0, '127.0.0.1', () => {
          const p = (s.address() as { port: number }).port;
          s.close(() => resolve(p));
        });
      });
      const l = new RedisRateLimiter({ url: `redis://127.0.0.1:${port}`, commandTimeoutMs: 300 });
      const t0 = Date.now();
      await expect(l.hit('k', 10, Date.now())).rejects.toBeInstanceOf(RateLimiterUnavailableError);
      await expect(l.acquire('k', 1, 'r')).rejects.toBeInstanceOf(RateLimiterUnavailableError);
      expect(Date.now() - t0).toBeLessThan(3000);
      await l.close();
    });

    it('a slot whose holder died (never released) expires after the slot TTL', async () => {
      const l = new RedisRateLimiter({ url, prefix, slotTtlMs: 300 });
      expect(await l.acquire('ttl', 1, 'dead-request')).toBe(true);
      expect(await l.acquire('ttl', 1, 'next')).toBe(false);
      await new Promise((r) => setTimeout(r, 350));
      expect(await l.acquire('ttl', 1, 'next')).toBe(true);
      await l.close();
    });

    it('keeps its keys under the prefix', async () => {
      const l = new RedisRateLimiter({ url, prefix });
      await l.hit('prefixed', 5, Date.now());
      const r = new Redis(url);
      expect(await r.exists(`${prefix}rl:prefixed`)).toBe(1);
      await r.quit();
      await l.close();
    });
  });
}
