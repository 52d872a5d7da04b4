import type { ImmediateRateLimiter, RateHit, RateLimiter } from '../../ports/rate-limiter.ts';

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

  /** Synchronous forms of hit/acquire/release (no IO here): the edge's hot path uses them. */
  readonly immediate: ImmediateRateLimiter = {
    hit: (key, limit, nowMs) => this.hitNow(key, limit, nowMs),
    acquire: (key, limit, holder) => this.acquireNow(key, limit, holder),
    release: (key, holder) => this.releaseNow(key, holder),
  };

  async hit(key: string, limit: number, nowMs: number): Promise<RateHit> {
    return this.hitNow(key, limit, nowMs);
  }

  async acquire(key: string, limit: number | null, holder: string): Promise<boolean> {
    return this.acquireNow(key, limit, holder);
  }

  async release(key: string, holder: string): Promise<void> {
    this.releaseNow(key, holder);
  }

  private hitNow(key: string, limit: number, nowMs: number): RateHit {
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

  private acquireNow(key: string, limit: number | null, holder: string): boolean {
    let s = this.slots.get(key);
    if (!s) {
      s = new Set();
      this.slots.set(key, s);
    }
    if (limit !== null && s.size >= limit) return false;
    s.add(holder);
    return true;
  }

  private releaseNow(key: string, holder: string): void {
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
