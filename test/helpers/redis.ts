import { Redis } from 'ioredis';
import { serverMissing } from './servers.ts';

/** The Redis server tests use: `REDIS_URL`, else the one `npm run engines -- up` starts. */
export function testRedisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/** True when the test Redis answers PING; otherwise skips with the reason, or throws where servers are required ({@link serverMissing}). */
export async function redisReachable(what: string): Promise<boolean> {
  const url = testRedisUrl();
  const r = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    await r.ping();
    return true;
  } catch (error) {
    return serverMissing(what, `no Redis server at ${url} (${(error as Error).message})`);
  } finally {
    r.disconnect();
  }
}
