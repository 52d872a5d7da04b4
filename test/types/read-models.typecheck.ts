import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import type { SqliteReadModelStore } from '../../infra/read-models/sqlite/sqlite-read-models.ts';
import type { PostgresReadModelStore } from '../../infra/read-models/postgres/postgres-read-models.ts';
import type { Satisfies } from './satisfies.ts';

export type ReadModelAdapters = [Satisfies<ReadModelStore, SqliteReadModelStore>, Satisfies<ReadModelStore, PostgresReadModelStore>];
