import pg from 'pg';
import type { Collection, CollectionOptions, Doc, Filter, FindOptions, ReadModelStore, Scalar } from '../../ports/read-models.ts';
import { checkField, collectionTable, compileFilter, compileOrder, type Dialect } from '../sql-filter.ts';

const dialect: Dialect = {
  field: (name) => `(doc->'${name}')`,
  param: (value: Scalar, params) => {
    params.push(JSON.stringify(value));
    return `$${params.length}::jsonb`;
  },
  present: (name) => `(jsonb_typeof(doc->'${name}') IS NOT NULL AND jsonb_typeof(doc->'${name}') <> 'null')`,
};

type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/**
 * Ids per `getMany` query and documents per `putMany` statement: large enough that a projection batch
 * (2,000 events, a few thousand documents) is one statement, small enough to bound one message's size.
 */
const MANY_CHUNK = 10_000;

/** Errors that mean "someone else created it first" when two processes declare the same table. */
const ALREADY_EXISTS = new Set(['42P07', '23505', '42710']);

async function ddl(q: Queryable, sql: string): Promise<void> {
  try {
    await q.query(sql);
  } catch (error) {
    if (!ALREADY_EXISTS.has((error as { code?: string }).code ?? '')) throw error;
  }
}

/**
 * Scaled-out read-model store on PostgreSQL: a table `rm_<collection>(id text, doc jsonb)` per
 * collection in the configured schema, expression indexes on declared fields, JSONB comparisons
 * (numbers numeric, strings by the database collation — store timestamps as ISO 8601 UTC), and a
 * `rm_checkpoints` table. `transaction` runs on one pooled client between BEGIN and COMMIT.
 */
export class PostgresReadModelStore implements ReadModelStore {
  private readonly declared: Set<string>;
  private ready: Promise<void>;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly q: Queryable,
    private readonly schema: string,
    declared: Set<string>,
    ready: Promise<void>,
    private readonly ownsPool: boolean,
  ) {
    this.declared = declared;
    this.ready = ready;
  }

  /**
   * @param connectionString e.g. `postgres://root@127.0.0.1:5432/test`
   * @param schema schema holding the tables (created if missing); default `public`
   */
  static create(connectionString: string, schema = 'public'): PostgresReadModelStore {
    if (!/^[a-z_][a-z0-9_]{0,50}$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
    const pool = new pg.Pool({ connectionString, max: 10 });
    pool.on('error', () => undefined);
    const ready = (async () => {
      await ddl(pool, `CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await ddl(pool, `CREATE TABLE IF NOT EXISTS ${schema}.rm_checkpoints (name text PRIMARY KEY, position bigint NOT NULL)`);
    })();
    ready.catch(() => undefined);
    return new PostgresReadModelStore(pool, pool, schema, new Set(), ready, true);
  }

  private t(name: string): string {
    return `${this.schema}.${collectionTable(name)}`;
  }

  async collection<T extends Doc = Doc>(name: string, options?: CollectionOptions): Promise<Collection<T>> {
    await this.ready;
    const table = this.t(name);
    if (!this.declared.has(name)) {
      await ddl(this.pool, `CREATE TABLE IF NOT EXISTS ${table} (id text PRIMARY KEY, doc jsonb NOT NULL)`);
      for (const index of options?.indexes ?? []) {
        const fields = (typeof index === 'string' ? [index] : [...index]).map(checkField);
        const indexName = `${collectionTable(name)}_${fields.join('_')}`.slice(0, 60);
        await ddl(this.pool, `CREATE INDEX IF NOT EXISTS ${indexName} ON ${table} (${fields.map((f) => dialect.field(f)).join(', ')})`);
      }
      this.declared.add(name);
    }
    const q = this.q;
    return {
      async get(id) {
        const r = await q.query<{ doc: T }>(`SELECT doc FROM ${table} WHERE id = $1`, [id]);
        return r.rows[0]?.doc ?? null;
      },
      async put(id, doc) {
        await q.query(`INSERT INTO ${table} (id, doc) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`, [
          id,
          JSON.stringify(doc),
        ]);
      },
      async getMany(ids) {
        const out = new Map<string, T>();
        const unique = [...new Set(ids)];
        for (let i = 0; i < unique.length; i += MANY_CHUNK) {
          const r = await q.query<{ id: string; doc: T }>(`SELECT id, doc FROM ${table} WHERE id = ANY($1::text[])`, [unique.slice(i, i + MANY_CHUNK)]);
          for (const row of r.rows) out.set(row.id, row.doc);
        }
        return out;
      },
      async putMany(entries) {
        // Last entry per id wins (ON CONFLICT cannot touch one row twice in a statement).
        const last = new Map<string, T>();
        for (const [id, doc] of entries) last.set(id, doc);
        const all = [...last];
        // One statement per chunk, the pairs sent as ONE jsonb parameter `[[id, doc], ...]` split by
        // jsonb_array_elements: about 1.5x faster than unnest($1::text[], $2::jsonb[]) (no text[]/jsonb[]
        // array literal to escape in Node and parse element by element in the server; bench/usage.bench.ts).
        for (let i = 0; i < all.length; i += MANY_CHUNK) {
          await q.query(
            `INSERT INTO ${table} (id, doc) SELECT e->>0, e->1 FROM jsonb_array_elements($1::jsonb) AS e ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`,
            [JSON.stringify(all.slice(i, i + MANY_CHUNK))],
          );
        }
      },
      async delete(id) {
        const r = await q.query(`DELETE FROM ${table} WHERE id = $1`, [id]);
        return (r.rowCount ?? 0) > 0;
      },
      async find(filter?: Filter, options?: FindOptions) {
        const params: unknown[] = [];
        const where = compileFilter(filter, dialect, params);
        let sql = `SELECT doc FROM ${table} WHERE ${where} ${compileOrder(options, dialect)}`;
        if (options?.limit !== undefined) sql += ` LIMIT ${Math.max(0, Math.floor(options.limit))}`;
        if (options?.offset) sql += ` OFFSET ${Math.max(0, Math.floor(options.offset))}`;
        const r = await q.query<{ doc: T }>(sql, params);
        return r.rows.map((row) => row.doc);
      },
      async count(filter?: Filter) {
        const params: unknown[] = [];
        const where = compileFilter(filter, dialect, params);
        const r = await q.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, params);
        return Number(r.rows[0]!.n);
      },
      async deleteMany(filter?: Filter) {
        const params: unknown[] = [];
        const where = compileFilter(filter, dialect, params);
        const r = await q.query(`DELETE FROM ${table} WHERE ${where}`, params);
        return r.rowCount ?? 0;
      },
    };
  }

  /**
   * Runs `fn` on one pooled client between BEGIN and COMMIT. The read models are derived from the event
   * log and only the projection runner opens transactions (a batch and its checkpoint), so the
   * transaction commits with `synchronous_commit = off`: COMMIT does not wait for the WAL flush. A crash
   * of the database may lose the last few hundred milliseconds of committed batches, always together
   * with their checkpoints, which are then projected again from the log (same documents). Checkpoints set
   * inside the transaction are written in the same round trip as the COMMIT.
   */
  async transaction<R>(fn: (tx: ReadModelStore) => Promise<R>): Promise<R> {
    await this.ready;
    if (this.q !== this.pool) return fn(this);
    const client = await this.pool.connect();
    const tx = new PostgresReadModelStore(this.pool, client, this.schema, this.declared, this.ready, false);
    tx.pendingCheckpoints = new Map();
    try {
      await client.query('BEGIN; SET LOCAL synchronous_commit = off');
      const result = await fn(tx);
      const pending = [...tx.pendingCheckpoints];
      tx.pendingCheckpoints = null;
      const values = pending.map(([name, position]) => `(${client.escapeLiteral(name)}, ${position})`).join(', ');
      await client.query(
        pending.length
          ? `INSERT INTO ${this.schema}.rm_checkpoints (name, position) VALUES ${values} ON CONFLICT (name) DO UPDATE SET position = excluded.position; COMMIT`
          : 'COMMIT',
      );
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      tx.pendingCheckpoints = null;
      client.release();
    }
  }

  /** Inside {@link transaction}: checkpoints set so far, written with the COMMIT. */
  private pendingCheckpoints: Map<string, number> | null = null;

  async getCheckpoint(projection: string): Promise<number> {
    await this.ready;
    const pending = this.pendingCheckpoints?.get(projection);
    if (pending !== undefined) return pending;
    const r = await this.q.query<{ position: string }>(`SELECT position FROM ${this.schema}.rm_checkpoints WHERE name = $1`, [projection]);
    return r.rows[0] ? Number(r.rows[0].position) : 0;
  }

  /** @param position a global position of the event log (a non-negative safe integer) */
  async setCheckpoint(projection: string, position: number): Promise<void> {
    await this.ready;
    if (!Number.isSafeInteger(position) || position < 0) throw new Error(`invalid checkpoint position ${position}`);
    if (this.pendingCheckpoints) {
      this.pendingCheckpoints.set(projection, position);
      return;
    }
    await this.q.query(
      `INSERT INTO ${this.schema}.rm_checkpoints (name, position) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET position = excluded.position`,
      [projection, position],
    );
  }

  async truncate(collections: readonly string[]): Promise<void> {
    await this.ready;
    for (const name of collections) {
      await ddl(this.pool, `CREATE TABLE IF NOT EXISTS ${this.t(name)} (id text PRIMARY KEY, doc jsonb NOT NULL)`);
      await this.q.query(`DELETE FROM ${this.t(name)}`);
    }
  }

  /**
   * `VACUUM FULL` of each collection's table: the table is rewritten into a new file holding only the
   * live rows, so no dead version of an erased document stays in a page (plain `VACUUM` leaves its bytes in
   * the page's free space, seen with pageinspect). It holds an exclusive lock on the table while it
   * rewrites it: about 2 s for 200,000 documents (129 MB) on the 2-core test machine (docs/privacy.md).
   */
  async forget(collections: readonly string[]): Promise<void> {
    await this.ready;
    if (!this.ownsPool) throw new Error('forget cannot run inside a transaction');
    for (const name of collections) {
      await ddl(this.pool, `CREATE TABLE IF NOT EXISTS ${this.t(name)} (id text PRIMARY KEY, doc jsonb NOT NULL)`);
      await this.pool.query(`VACUUM (FULL) ${this.t(name)}`);
    }
  }

  /** Answers `SELECT 1` within the pool's connect timeout; used by `/v1/status`. */
  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }
}
