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
        for (let i = 0; i < unique.length; i += 5000) {
          const r = await q.query<{ id: string; doc: T }>(`SELECT id, doc FROM ${table} WHERE id = ANY($1::text[])`, [unique.slice(i, i + 5000)]);
          for (const row of r.rows) out.set(row.id, row.doc);
        }
        return out;
      },
      async putMany(entries) {
        // Last entry per id wins (ON CONFLICT cannot touch one row twice in a statement).
        const last = new Map<string, T>();
        for (const [id, doc] of entries) last.set(id, doc);
        const all = [...last];
        for (let i = 0; i < all.length; i += 2000) {
          const chunk = all.slice(i, i + 2000);
          await q.query(
            `INSERT INTO ${table} (id, doc) SELECT * FROM unnest($1::text[], $2::jsonb[]) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`,
            [chunk.map(([id]) => id), chunk.map(([, doc]) => JSON.stringify(doc))],
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

  async transaction<R>(fn: (tx: ReadModelStore) => Promise<R>): Promise<R> {
    await this.ready;
    if (this.q !== this.pool) return fn(this);
    const client = await this.pool.connect();
    const tx = new PostgresReadModelStore(this.pool, client, this.schema, this.declared, this.ready, false);
    try {
      await client.query('BEGIN');
      const result = await fn(tx);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async getCheckpoint(projection: string): Promise<number> {
    await this.ready;
    const r = await this.q.query<{ position: string }>(`SELECT position FROM ${this.schema}.rm_checkpoints WHERE name = $1`, [projection]);
    return r.rows[0] ? Number(r.rows[0].position) : 0;
  }

  async setCheckpoint(projection: string, position: number): Promise<void> {
    await this.ready;
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

  /** Answers `SELECT 1` within the pool's connect timeout; used by `/v1/status`. */
  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }
}
