/**
 * A Redis connection for per-request stores (rate limiter, idempotency keys) that fails fast instead of
 * queueing: a request must get its answer (or a clear 503) within a bound, never wait on a Redis that is down.
 *
 * ioredis options (https://github.com/redis/ioredis#auto-reconnect): no offline queue and no per-request
 * retries, so a command sent while disconnected rejects at once; command and connect timeouts of
 * `timeoutMs`; reconnection attempts every 100 ms growing to 2 s, so the store recovers by itself.
 */
import { Redis } from 'ioredis';

/** A fail-fast connection and the guard every command goes through. */
export interface FailFastRedis {
  redis: Redis;
  /**
   * Runs `fn` once the connection is ready: while (re)connecting it waits up to `timeoutMs` (one wait shared
   * by every call made meanwhile); a closed connection, a wait that times out or a command that fails
   * rejects with `unavailable(message)`.
   */
  call<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * Connects to `url` (see the module comment).
 * @param name what the store is, for error messages ("rate limiter store")
 * @param unavailable builds the store's own "unavailable" error (mapped to 503 by the API)
 */
export function connectFailFast(url: string, timeoutMs: number, name: string, unavailable: (message: string) => Error): FailFastRedis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
    connectTimeout: timeoutMs,
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
  redis.on('error', () => undefined); // surfaced per call by `call`
  let connecting: Promise<void> | null = null;
  const waitReady = (): Promise<void> => {
    connecting ??= new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        redis.off('ready', onReady);
        reject(unavailable(`${name} (Redis) is not connected`));
      }, timeoutMs);
      const onReady = (): void => {
        clearTimeout(timer);
        resolve();
      };
      redis.once('ready', onReady);
    }).finally(() => {
      connecting = null;
    });
    return connecting;
  };
  return {
    redis,
    async call<T>(fn: () => Promise<T>): Promise<T> {
      if (redis.status !== 'ready') {
        if (redis.status === 'connecting' || redis.status === 'wait' || redis.status === 'connect' || redis.status === 'reconnecting') await waitReady();
        else throw unavailable(`${name} (Redis) is unavailable (${redis.status})`);
      }
      try {
        return await fn();
      } catch (error) {
        throw unavailable(`${name} (Redis) failed: ${(error as Error).message}`);
      }
    },
  };
}
