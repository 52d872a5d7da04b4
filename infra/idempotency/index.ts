/**
 * Idempotency-store factory: the one place where configuration (`IDEMPOTENCY_STORE`, `REDIS_URL`) selects
 * the adapter. Adding an adapter is one branch here plus its run of `test/contract/idempotency-store.contract.ts`.
 */
import { join, resolve } from 'node:path';
import type { IdempotencyStore } from '../ports/idempotency-store.ts';
import { SqliteIdempotencyStore } from './sqlite/sqlite-idempotency-store.ts';
import { RedisIdempotencyStore } from './redis/redis-idempotency-store.ts';
import { unknownAdapter, type Config } from '../shared/adapter.ts';

export type IdempotencyStoreAdapter = NonNullable<Config['IDEMPOTENCY_STORE']>;

/** `IDEMPOTENCY_STORE` when set; otherwise `redis` when `REDIS_URL` is set (a scaled-out deployment), else `sqlite`. */
export function selectIdempotencyStore(config: Config): IdempotencyStoreAdapter {
  return config.IDEMPOTENCY_STORE ?? (config.REDIS_URL ? 'redis' : 'sqlite');
}

/**
 * Opens the configured store: `sqlite` at `DATA_DIR/idempotency.sqlite`, `redis` under `REDIS_PREFIX`.
 * @throws Error when `redis` is selected without `REDIS_URL`.
 */
export function createIdempotencyStore(config: Config): IdempotencyStore {
  const adapter = selectIdempotencyStore(config);
  switch (adapter) {
    case 'sqlite':
      return new SqliteIdempotencyStore(join(resolve(config.DATA_DIR), 'idempotency.sqlite'));
    case 'redis':
      if (!config.REDIS_URL) throw new Error('IDEMPOTENCY_STORE=redis needs REDIS_URL');
      return new RedisIdempotencyStore({ url: config.REDIS_URL, prefix: config.REDIS_PREFIX });
    default:
      return unknownAdapter('idempotency store', adapter);
  }
}
