import { afterEach, describe, expect, it } from 'vitest';
import type { RateLimiter } from '../../infra/ports/rate-limiter.ts';

/**
 * Contract of the rate-limiter port (`infra/ports/rate-limiter.ts`). `factory` opens limiters sharing
 * one store (for Redis: the same server and prefix), so "two instances" are two calls.
 * `windowMs` is the adapter's window (the suite waits it out once, so adapters under test use a short one).
 */
export function rateLimiterContract(name: string, factory: () => RateLimiter, windowMs: number): void {
  describe(`rate limiter contract: ${name}`, () => {
    const opened: RateLimiter[] = [];
    const open = (): RateLimiter => {
      const l = factory();
      opened.push(l);
      return l;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((l) => l.close()));
    });
    const uid = () => Math.random().toString(36).slice(2);

    it('accepts exactly `limit` requests per window, concurrently and across instances, then tells when to retry', async () => {
      const a = open();
      const b = open();
      const key = `t-${uid()}:standard`;
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).hit(key, 17, Date.now())));
      expect(results.filter((r) => r.allowed)).toHaveLength(17);
      const refused = results.filter((r) => !r.allowed);
      expect(refused.every((r) => r.retryAfterSeconds >= 1 && r.retryAfterSeconds <= Math.ceil(windowMs / 1000) && r.remaining === 0)).toBe(true);
      expect(results.filter((r) => r.allowed).map((r) => r.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: 17 }, (_, i) => i));
      // Another key has its own window.
      expect((await a.hit(`t-${uid()}:standard`, 1, Date.now())).allowed).toBe(true);
    });

    it('slides: requests older than the window no longer count', async () => {
      const l = open();
      const key = `slide-${uid()}`;
      expect((await l.hit(key, 2, Date.now())).allowed).toBe(true);
      expect((await l.hit(key, 2, Date.now())).allowed).toBe(true);
      expect((await l.hit(key, 2, Date.now())).allowed).toBe(false);
      await new Promise((r) => setTimeout(r, windowMs + 50));
      expect((await l.hit(key, 2, Date.now())).allowed).toBe(true);
    });

    it('bounds concurrent slots across instances; a released slot is free again', async () => {
      const a = open();
      const b = open();
      const key = `conc-${uid()}`;
      const got = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).acquire(key, 5, `req-${i}`)));
      expect(got.filter(Boolean)).toHaveLength(5);
      expect(await a.current(key)).toBe(5);
      const holderIndex = got.findIndex(Boolean);
      await (holderIndex % 2 ? a : b).release(key, `req-${holderIndex}`);
      expect(await a.current(key)).toBe(4);
      expect(await b.acquire(key, 5, 'late')).toBe(true);
      expect(await a.acquire(key, 5, 'later')).toBe(false);
      // No limit: still counted.
      expect(await a.acquire(`free-${uid()}`, null, 'x')).toBe(true);
      // Releasing a slot one does not hold changes nothing.
      await a.release(key, 'nobody');
      expect(await b.current(key)).toBe(5);
    });
  });
}
