/**
 * Per-tenant sliding-window rate limiter (60 s window, exact: it keeps the timestamps of the accepted
 * requests, at most `limit` per key) and per-tenant concurrency counters. In-process state: with several
 * API processes each enforces its own share; a shared store (Redis) would be the scaled-out adapter.
 */
export class SlidingWindowLimiter {
  private readonly windows = new Map<string, number[]>();

  constructor(private readonly windowMs = 60_000) {}

  /** Records a hit when allowed. Returns `{allowed, remaining, retryAfterSeconds}`. */
  hit(key: string, limit: number, nowMs: number): { allowed: boolean; remaining: number; retryAfterSeconds: number } {
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
}

export class ConcurrencyLimiter {
  private readonly inFlight = new Map<string, number>();

  tryAcquire(key: string, limit: number | null): boolean {
    const n = this.inFlight.get(key) ?? 0;
    if (limit !== null && n >= limit) return false;
    this.inFlight.set(key, n + 1);
    return true;
  }

  release(key: string): void {
    const n = (this.inFlight.get(key) ?? 1) - 1;
    if (n <= 0) this.inFlight.delete(key);
    else this.inFlight.set(key, n);
  }

  current(key: string): number {
    return this.inFlight.get(key) ?? 0;
  }
}
