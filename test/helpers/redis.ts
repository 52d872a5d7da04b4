import { Redis } from 'ioredis';

/** The Redis server tests use: `REDIS_URL`, else the development machine's `redis://127.0.0.1:6379`. */
export function testRedisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/** True when the test Redis answers PING; otherwise prints why the caller's tests are skipped. */
export async function redisReachable(what: string): Promise<boolean> {
  const url = testRedisUrl();
  const r = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    await r.ping();
    return true;
  } catch (error) {
    console.warn(`${what} skipped: no Redis server at ${url} (${(error as Error).message})`);
    return false;
  } finally {
    r.disconnect();
  }
}
