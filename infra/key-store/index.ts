/**
 * Key-store factory (crypto-shredding data keys, `infra/ports/key-store.ts`). The key store follows the
 * event store's profile: `EVENT_STORE=sqlite` keeps the keys in `DATA_DIR/keys/keys.sqlite` (a file of its own,
 * backed up apart from `events.sqlite`); `EVENT_STORE=postgres` in `privacy_data_keys` of
 * `DATABASE_SCHEMA` of `DATABASE_URL`.
 */
import { join, resolve } from 'node:path';
import type { KeyStore } from '../ports/key-store.ts';
import { SqliteKeyStore } from './sqlite/sqlite-key-store.ts';
import { PostgresKeyStore } from './postgres/postgres-key-store.ts';
import { unknownAdapter, type Config } from '../shared/adapter.ts';

/**
 * File of the embedded key store under DATA_DIR, in a folder of its own: backed up apart from the log, and
 * its writes do not wake the event store's watcher of the DATA_DIR folder (it looks for other processes'
 * commits there: with the keys beside it, each new subject's key cost an enrolment about 0.5 ms more).
 */
export const KEY_STORE_FILE = join('keys', 'keys.sqlite');

/**
 * Opens the key store of `config`'s profile (see the module comment).
 * @throws Error when `EVENT_STORE=postgres` is selected without `DATABASE_URL`.
 */
export function createKeyStore(config: Config): KeyStore {
  switch (config.EVENT_STORE) {
    case 'sqlite':
      return new SqliteKeyStore(join(resolve(config.DATA_DIR), KEY_STORE_FILE));
    case 'postgres':
      if (!config.DATABASE_URL) throw new Error('EVENT_STORE=postgres needs DATABASE_URL');
      return PostgresKeyStore.create(config.DATABASE_URL, { schema: config.DATABASE_SCHEMA });
    default:
      return unknownAdapter('key store', config.EVENT_STORE);
  }
}
