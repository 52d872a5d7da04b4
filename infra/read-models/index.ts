/**
 * Read-model factory: the one place where configuration (`READ_MODELS`, `DATABASE_URL`) selects the
 * adapter. Adding an adapter is one branch here plus its run of `test/contract/read-models.contract.ts`.
 */
import { join, resolve } from 'node:path';
import type { ReadModelStore } from '../ports/read-models.ts';
import { SqliteReadModelStore } from './sqlite/sqlite-read-models.ts';
import { PostgresReadModelStore } from './postgres/postgres-read-models.ts';
import { unknownAdapter, type Config } from '../shared/adapter.ts';

export type ReadModelsAdapter = NonNullable<Config['READ_MODELS']>;

/** `READ_MODELS` when set; otherwise `postgres` when `DATABASE_URL` is set, else `sqlite`. */
export function selectReadModels(config: Config): ReadModelsAdapter {
  return config.READ_MODELS ?? (config.DATABASE_URL ? 'postgres' : 'sqlite');
}

/**
 * Opens the configured read-model store.
 * @throws Error when `postgres` is selected without `DATABASE_URL`.
 */
export function createReadModels(config: Config): ReadModelStore {
  const adapter = selectReadModels(config);
  switch (adapter) {
    case 'sqlite':
      return new SqliteReadModelStore(join(resolve(config.DATA_DIR), 'read-models.sqlite'));
    case 'postgres':
      if (!config.DATABASE_URL) throw new Error('READ_MODELS=postgres needs DATABASE_URL');
      return PostgresReadModelStore.create(config.DATABASE_URL, config.DATABASE_SCHEMA);
    default:
      return unknownAdapter('read models', adapter);
  }
}
