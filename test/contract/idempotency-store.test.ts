import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteIdempotencyStore } from '../../infra/idempotency/sqlite/sqlite-idempotency-store.ts';
import { RedisIdempotencyStore } from '../../infra/idempotency/redis/redis-idempotency-store.ts';
import { IdempotencyStoreUnavailableError } from '../../infra/ports/idempotency-store.ts';
import { idempotencyStoreContract } from './idempotency-store.contract.ts';
import { redisReachable, testRedisUrl } from '../helpers/redis.ts';

// Two connections to one file stand for two processes on one DATA_DIR.
const dir = mkdtempSync(join(tmpdir(), 'sello-idem-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
idempotencyStoreContract('sqlite', () => new SqliteIdempotencyStore(join(dir, 'idempotency.sqlite')));

const url = testRedisUrl();
if (!(await redisReachable('Redis idempotency-store contract'))) {
  describe.skip('idempotency store contract: redis (no server reachable)', () => it('skipped', () => undefined));
} else {
  const prefix = `sello-test-${process.pid}-${Math.random().toString(36).slice(2)}:`;
  idempotencyStoreContract('redis', () => new RedisIdempotencyStore({ url, prefix }));

  describe('redis idempotency store: failure modes', () => {
    it('fails closed when Redis is unreachable: calls reject quickly with IdempotencyStoreUnavailableError', async () => {
      const port = await new Promise<number>((resolve) => {
        const s = createServer().listen(0, '127.0.0.1', () => {
          const p = (s.address() as { port: number }).port;
          s.close(() => resolve(p));
        });
      });
      const s = new RedisIdempotencyStore({ url: `redis://127.0.0.1:${port}`, commandTimeoutMs: 300 });
      const t0 = Date.now();
      await expect(s.begin('t', 'k', 'fp', 'o', 1000, Date.now())).rejects.toBeInstanceOf(IdempotencyStoreUnavailableError);
      expect(Date.now() - t0).toBeLessThan(3000);
      await s.close();
    });
  });
}
