import type { RateHit, RateLimiter } from '../../ports/rate-limiter.ts';

/**
 * Embedded rate limiter: sliding 60 s windows (exact: the timestamps of the accepted requests, at most
 * `limit` per key) and concurrency counters in this process's memory. With several API processes each
 * enforces its own share; `RATE_LIMITER=redis` makes the limits exact across instances.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, number[]>();
  private readonly slots = new Map<string, Set<string>>();

  /** @param windowMs window length (default 60 000 ms: limits are per minute). */
  constructor(private readonly windowMs = 60_000) {}

  async hit(key: string, limit: number, nowMs: number): Promise<RateHit> {
    let w = this.windows.get(key);
    if (!w) {
      w = [];
      this.windows.set(key, w);
    }
    const cutoff = nowMs - this.windowMs;
    let drop = 0;
    while (drop < w.length && w[drop]! <= cutoff) drop++;
    if (drop) w.splice(0, drop);
    if (w.length >= limit) {
      const retry = Math.max(1, Math.ceil((w[0]! + this.windowMs - nowMs) / 1000));
      return { allowed: false, remaining: 0, retryAfterSeconds: retry };
    }
    w.push(nowMs);
    return { allowed: true, remaining: limit - w.length, retryAfterSeconds: 0 };
  }

  async acquire(key: string, limit: number | null, holder: string): Promise<boolean> {
    let s = this.slots.get(key);
    if (!s) {
      s = new Set();
      this.slots.set(key, s);
    }
    if (limit !== null && s.size >= limit) return false;
    s.add(holder);
    return true;
  }

  async release(key: string, holder: string): Promise<void> {
    const s = this.slots.get(key);
    if (!s) return;
    s.delete(holder);
    if (s.size === 0) this.slots.delete(key);
  }

  async current(key: string): Promise<number> {
    return this.slots.get(key)?.size ?? 0;
  }

  async close(): Promise<void> {
    this.windows.clear();
    this.slots.clear();
  }
}
