import type { KeyStore } from '../../infra/ports/key-store.ts';
import type { SqliteKeyStore } from '../../infra/key-store/sqlite/sqlite-key-store.ts';
import type { PostgresKeyStore } from '../../infra/key-store/postgres/postgres-key-store.ts';
import type { createKeyStore } from '../../infra/key-store/index.ts';
import type { Satisfies } from './satisfies.ts';

export type KeyStoreAdapters = [Satisfies<KeyStore, SqliteKeyStore>, Satisfies<KeyStore, PostgresKeyStore>, Satisfies<KeyStore, ReturnType<typeof createKeyStore>>];
