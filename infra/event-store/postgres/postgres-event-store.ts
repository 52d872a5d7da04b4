import pg from 'pg';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadStreamResult,
  type RecordedEvent,
  type SubscribeToAllOptions,
  type Subscription,
} from '../../ports/event-store.ts';
import { pollingSubscription } from '../../shared/poller.ts';
import { runLockedDdl, SCHEMA_NAME } from '../../postgres/locked-ddl.ts';

interface Row {
  global_position: string;
  event_id: string;
  stream_name: string;
  stream_revision: number;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

const toRecorded = (r: Row): RecordedEvent => ({
  eventId: r.event_id,
  type: r.type,
  data: r.data,
  metadata: r.metadata,
  streamName: r.stream_name,
  streamRevision: r.stream_revision,
  globalPosition: Number(r.global_position),
  recordedAt: r.recorded_at.toISOString(),
});

/** SQLSTATE the append function raises on an expected-revision mismatch (DETAIL carries the actual revision). */
const WRONG_REVISION = 'SE001';
/** Advisory-lock key (classid of the two-int form) serialising appends; the objid is a hash of the schema. */
const APPEND_LOCK_CLASS = 0x5e110;
/**
 * The DDL of one event-store schema: the `es_events` table and the `es_append` function. Idempotent
 * (run by `npm run cli -- migrate` and, lazily, by every process that opens the store).
 *
 * `es_append` runs the whole append in one statement (one round trip): it takes a transaction-level
 * advisory lock, so appends commit one after another in the order their global positions were handed
 * out. A reader's snapshot therefore always sees a prefix of the log: an event can never become
 * visible below a position a reader has already passed (no event is "committed late"). The
 * `UNIQUE (stream_name, stream_revision)` constraint backs optimistic concurrency even for writers
 * that bypass the function.
 */
function schemaSql(schema: string): string {
  return `
CREATE SCHEMA IF NOT EXISTS ${schema};
CREATE SEQUENCE IF NOT EXISTS ${schema}.es_global_position;
CREATE TABLE IF NOT EXISTS ${schema}.es_events (
  global_position bigint PRIMARY KEY,
  event_id uuid NOT NULL DEFAULT gen_random_uuid(),
  stream_name text NOT NULL,
  stream_revision integer NOT NULL,
  type text NOT NULL,
  data json NOT NULL,
  metadata json NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (stream_name, stream_revision)
);
CREATE INDEX IF NOT EXISTS es_events_type_position ON ${schema}.es_events (type, global_position);
CREATE OR REPLACE FUNCTION ${schema}.es_append(p_stream text, p_expected text, p_types text[], p_data json[], p_meta json[])
RETURNS TABLE (next_revision integer, last_position bigint)
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  cur integer;
  i integer;
  pos bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(${APPEND_LOCK_CLASS}, hashtext('${schema}'));
  SELECT max(e.stream_revision) INTO cur FROM ${schema}.es_events e WHERE e.stream_name = p_stream;
  IF NOT (p_expected = 'any'
      OR (p_expected = 'no_stream' AND cur IS NULL)
      OR (p_expected = 'stream_exists' AND cur IS NOT NULL)
      OR (p_expected ~ '^-?[0-9]+$' AND cur IS NOT DISTINCT FROM p_expected::integer)) THEN
    RAISE EXCEPTION USING ERRCODE = '${WRONG_REVISION}', MESSAGE = 'wrong expected revision', DETAIL = coalesce(cur::text, 'null');
  END IF;
  cur := coalesce(cur, -1);
  FOR i IN 1 .. array_length(p_types, 1) LOOP
    cur := cur + 1;
    pos := nextval('${schema}.es_global_position');
    INSERT INTO ${schema}.es_events (global_position, stream_name, stream_revision, type, data, metadata)
      VALUES (pos, p_stream, cur, p_types[i], p_data[i], p_meta[i]);
  END LOOP;
  PERFORM pg_notify('sello_events_${schema}', pos::text);
  RETURN QUERY SELECT cur, pos;
END
$fn$;
`;
}

/**
 * Creates (or upgrades) the event-store tables in `schema`. Safe when several processes run it at once
 * (serialised by an advisory lock). Used by `npm run cli -- migrate` and by {@link PostgresEventStore.create}.
 */
export async function migratePostgresEventStore(pool: pg.Pool, schema: string): Promise<void> {
  await runLockedDdl(pool, schema, schemaSql(schema));
}

export interface PostgresEventStoreOptions {
  /** Schema holding `es_events` (created when missing). Default `public`. */
  schema?: string;
  /** Fallback poll period of subscriptions, ms (LISTEN/NOTIFY wakes them at once). Default 250. */
  pollMs?: number;
  /** Pool size. Default 10. */
  poolSize?: number;
  /** Listen for appends of other processes (LISTEN/NOTIFY). Default true. */
  listen?: boolean;
}

/**
 * Scaled-out event store on PostgreSQL (`EVENT_STORE=postgres`, `DATABASE_URL`, `DATABASE_SCHEMA`).
 *
 * - Append: one call of the `es_append` function (see {@link migratePostgresEventStore}): expected
 *   revision checked under a transaction-level advisory lock, `UNIQUE(stream_name, stream_revision)`.
 *   Appends are serialised per schema, so global positions become visible strictly in order (a reader
 *   never skips an event committed late). Throughput is bounded by one append statement at a time
 *   (measured in docs/operations.md).
 * - Subscriptions page through `readAll` and are woken by `LISTEN sello_events_<schema>` (appends by any
 *   process), with a poll as a fallback.
 * - Data and metadata are stored as `json` (exact text, key order kept).
 *
 * Why not Emmett's PostgreSQL event store: its global position is a (transaction id, position) pair and
 * its subscriptions are its own consumer API; the project's port (and every projection checkpoint) is a
 * single increasing number, which this adapter keeps with one SQL function.
 */
export class PostgresEventStore implements EventStore {
  private readonly wakers = new Set<() => void>();
  private listener: pg.Client | null = null;
  private listening: Promise<void> | null = null;
  private closed = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
    private readonly ready: Promise<void>,
    private readonly options: PostgresEventStoreOptions & { connectionString: string },
  ) {}

  /** Opens the store (the schema is migrated on first use). */
  static create(connectionString: string, options: PostgresEventStoreOptions = {}): PostgresEventStore {
    const schema = options.schema ?? 'public';
    if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${schema}`);
    const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10 });
    pool.on('error', () => undefined);
    const ready = migratePostgresEventStore(pool, schema);
    ready.catch(() => undefined);
    return new PostgresEventStore(pool, schema, ready, { ...options, connectionString });
  }

  private get t(): string {
    return `${this.schema}.es_events`;
  }

  async append(streamName: string, events: readonly NewEvent[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append: no events');
    await this.ready;
    const expected = options?.expectedRevision ?? 'any';
    try {
      const { rows } = await this.pool.query<{ next_revision: number; last_position: string }>(
        `SELECT next_revision, last_position FROM ${this.schema}.es_append($1, $2, $3::text[], $4::json[], $5::json[])`,
        [
          streamName,
          String(expected),
          events.map((e) => e.type),
          events.map((e) => JSON.stringify(e.data ?? null)),
          events.map((e) => JSON.stringify(e.metadata ?? {})),
        ],
      );
      const row = rows[0]!;
      for (const wake of this.wakers) wake();
      return { nextExpectedRevision: row.next_revision, lastGlobalPosition: Number(row.last_position) };
    } catch (error) {
      const e = error as { code?: string; detail?: string };
      if (e.code === WRONG_REVISION) {
        throw new WrongExpectedRevisionError(streamName, expected, e.detail === 'null' || e.detail === undefined ? null : Number(e.detail));
      }
      if (e.code === '23505') throw new WrongExpectedRevisionError(streamName, expected, null);
      throw error;
    }
  }

  async readStream(streamName: string, options?: { fromRevision?: number; maxCount?: number }): Promise<ReadStreamResult> {
    await this.ready;
    const { rows } = await this.pool.query<Row & { current: number | null }>(
      `SELECT e.*, (SELECT max(stream_revision) FROM ${this.t} WHERE stream_name = $1) AS current
         FROM ${this.t} e WHERE e.stream_name = $1 AND e.stream_revision >= $2 ORDER BY e.stream_revision LIMIT $3`,
      [streamName, options?.fromRevision ?? 0, options?.maxCount ?? null],
    );
    if (rows.length > 0) return { events: rows.map(toRecorded), currentRevision: rows[0]!.current };
    const { rows: cur } = await this.pool.query<{ current: number | null }>(
      `SELECT max(stream_revision) AS current FROM ${this.t} WHERE stream_name = $1`,
      [streamName],
    );
    return { events: [], currentRevision: cur[0]?.current ?? null };
  }

  async readAll(options?: { fromPosition?: number; maxCount?: number; types?: readonly string[] }): Promise<RecordedEvent[]> {
    await this.ready;
    const from = options?.fromPosition ?? 0;
    const max = options?.maxCount ?? 1000;
    const types = options?.types;
    const { rows } =
      types && types.length > 0
        ? await this.pool.query<Row>(
            `SELECT * FROM ${this.t} WHERE global_position > $1 AND type = ANY($2::text[]) ORDER BY global_position LIMIT $3`,
            [from, [...types], max],
          )
        : await this.pool.query<Row>(`SELECT * FROM ${this.t} WHERE global_position > $1 ORDER BY global_position LIMIT $2`, [from, max]);
    return rows.map(toRecorded);
  }

  subscribeToAll(options: SubscribeToAllOptions): Subscription {
    if (this.options.listen !== false) void this.listen();
    return pollingSubscription(
      (from, max, types) => this.readAll({ fromPosition: from, maxCount: max, types }),
      () => this.headPosition(),
      options,
      (wake) => {
        this.wakers.add(wake);
        return () => this.wakers.delete(wake);
      },
      this.options.pollMs ?? 250,
    );
  }

  /** One LISTEN connection per store, shared by its subscriptions; on error they fall back to polling. */
  private listen(): Promise<void> {
    this.listening ??= (async () => {
      const client = new pg.Client({ connectionString: this.options.connectionString });
      client.on('error', () => undefined);
      client.on('notification', () => {
        for (const wake of this.wakers) wake();
      });
      try {
        await this.ready;
        await client.connect();
        if (this.closed) {
          await client.end();
          return;
        }
        await client.query(`LISTEN sello_events_${this.schema}`);
        this.listener = client;
      } catch {
        await client.end().catch(() => undefined);
      }
    })();
    return this.listening;
  }

  async headPosition(): Promise<number> {
    await this.ready;
    const { rows } = await this.pool.query<{ pos: string | null }>(`SELECT max(global_position) AS pos FROM ${this.t}`);
    return Number(rows[0]?.pos ?? 0);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wakers.clear();
    await this.listening;
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }
}
