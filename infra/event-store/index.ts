/**
 * Event-store factory: the one place where configuration (`EVENT_STORE`) selects the adapter.
 * Adding an adapter is one branch here plus its run of `test/contract/event-store.contract.ts`.
 */
import { join, resolve } from 'node:path';
import type { EventStore } from '../ports/event-store.ts';
import { SqliteEventStore } from './sqlite/sqlite-event-store.ts';
import { PostgresEventStore } from './postgres/postgres-event-store.ts';
import { unknownAdapter, type Config } from '../shared/adapter.ts';
import { createKeyStore } from '../key-store/index.ts';
import { DataKeys } from '../privacy/data-keys.ts';
import { SealingEventStore } from '../privacy/sealing-event-store.ts';
import { loadPrivacyMasterKeys } from '../secrets/index.ts';

export type EventStoreAdapter = Config['EVENT_STORE'];

/** The adapter configuration selects (no side effects). */
export function selectEventStore(config: Config): EventStoreAdapter {
  return config.EVENT_STORE;
}

/**
 * Opens the configured event store behind the privacy layer ({@link SealingEventStore}: personal fields
 * sealed under their data subject's key, `docs/privacy.md`), its data keys in the profile's key store
 * (`infra/key-store`), wrapped by the master key of `infra/secrets`. Use {@link createRawEventStore}
 * for the adapter alone.
 * @throws Error when `postgres` is selected without `DATABASE_URL`, or the master key is unusable.
 */
export function createEventStore(config: Config, options: { recentAppends?: number } = {}): SealingEventStore {
  const keys = new DataKeys(createKeyStore(config), () => loadPrivacyMasterKeys(config));
  return new SealingEventStore(createRawEventStore(config, options), keys, { strict: config.SELLO_PRIVACY_STRICT === '1' });
}

/**
 * Opens the configured event store adapter, without the privacy layer (what is stored, sealed fields
 * included). `sqlite`: `DATA_DIR/events.sqlite` (WAL; created when missing);
 * `postgres`: `es_events` in `DATABASE_SCHEMA` of `DATABASE_URL` (migrated on first use).
 * `options.recentAppends` (SQLite only): keep this connection's last appended events in memory for its
 * own subscriptions' reads (see `SqliteEventStore`; for stores whose readers never modify events).
 * @throws Error when `postgres` is selected without `DATABASE_URL`.
 */
export function createRawEventStore(config: Config, options: { recentAppends?: number } = {}): EventStore {
  const adapter = selectEventStore(config);
  switch (adapter) {
    case 'sqlite':
      return new SqliteEventStore(join(resolve(config.DATA_DIR), 'events.sqlite'), undefined, { recentAppends: options.recentAppends });
    case 'postgres':
      if (!config.DATABASE_URL) throw new Error('EVENT_STORE=postgres needs DATABASE_URL');
      return PostgresEventStore.create(config.DATABASE_URL, { schema: config.DATABASE_SCHEMA });
    default:
      return unknownAdapter('event store', adapter);
  }
}
