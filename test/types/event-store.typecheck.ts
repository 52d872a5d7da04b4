import type { EventStore } from '../../infra/ports/event-store.ts';
import type { SqliteEventStore } from '../../infra/event-store/sqlite/sqlite-event-store.ts';
import type { MemoryEventStore } from '../../infra/event-store/memory/memory-event-store.ts';
import type { PostgresEventStore } from '../../infra/event-store/postgres/postgres-event-store.ts';
import type { createEventStore } from '../../infra/event-store/index.ts';
import type { Satisfies } from './satisfies.ts';

export type EventStoreAdapters = [
  Satisfies<EventStore, SqliteEventStore>,
  Satisfies<EventStore, MemoryEventStore>,
  Satisfies<EventStore, PostgresEventStore>,
  Satisfies<EventStore, ReturnType<typeof createEventStore>>,
];
