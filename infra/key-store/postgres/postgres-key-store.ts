import pg from 'pg';
import type { KeyLookup, KeyStore, WrappedKey } from '../../ports/key-store.ts';
import { runLockedDdl, SCHEMA_NAME } from '../../postgres/locked-ddl.ts';

interface Row {
  key_ref: string;
  subject: string;
  wrapped: Buffer | null;
  master_id: string | null;
  created_at: Date;
  destroyed_at: Date | null;
}

const live = (r: Row): WrappedKey => ({ keyRef: r.key_ref, subject: r.subject, wrapped: r.wrapped!, masterId: r.master_id!, createdAt: r.created_at.toISOString() });

/** DDL of the key store in `schema` (idempotent). One live key per subject: a partial unique index. */
function schemaSql(schema: string): string {
  return `
CREATE SCHEMA IF NOT EXISTS ${schema};
CREATE TABLE IF NOT EXISTS ${schema}.privacy_data_keys (
  key_ref text PRIMARY KEY,
  subject text NOT NULL,
  wrapped bytea,
  master_id text,
  created_at timestamptz NOT NULL,
  destroyed_at timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS privacy_data_keys_live_subject ON ${schema}.privacy_data_keys (subject) WHERE destroyed_at IS NULL;
`;
}

/** Creates or upgrades the key store's table in `schema` (`npm run cli -- migrate`, and lazily on first use). */
export async function migratePostgresKeyStore(pool: pg.Pool, schema: string): Promise<void> {
  await runLockedDdl(pool, schema, schemaSql(schema));
}

/**
 * Scaled-out key store: the table `privacy_data_keys` in `DATABASE_SCHEMA` of `DATABASE_URL`.
 * A destroyed key's row keeps its reference and subject, with the wrapped bytes set to NULL. PostgreSQL
 * keeps the old row version (a dead tuple) until vacuum, so each destruction is followed by a
 * `VACUUM` of this small table; a hot standby or a base backup taken before it may still hold the row
 * (docs/operations.md: back the key store up with a retention no longer than the blocking period).
 */
export class PostgresKeyStore implements KeyStore {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly table: string,
    private readonly ready: Promise<void>,
  ) {}

  /**
   * Opens the store on `connectionString`; the table is created in `schema` on first use.
   * @throws Error when `schema` is not a plain lower-case identifier.
   */
  static create(connectionString: string, options: { schema?: string; poolSize?: number } = {}): PostgresKeyStore {
    const schema = options.schema ?? 'public';
    if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${schema}`);
    const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 4 });
    pool.on('error', () => undefined);
    const ready = migratePostgresKeyStore(pool, schema);
    ready.catch(() => undefined);
    return new PostgresKeyStore(pool, `${schema}.privacy_data_keys`, ready);
  }

  private async q<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> {
    await this.ready;
    return (await this.pool.query<R>(sql, params)).rows;
  }

  async current(subject: string): Promise<WrappedKey | null> {
    const [r] = await this.q<Row>(`SELECT * FROM ${this.table} WHERE subject = $1 AND destroyed_at IS NULL`, [subject]);
    return r ? live(r) : null;
  }

  async createIfAbsent(key: WrappedKey): Promise<WrappedKey> {
    await this.q(
      `INSERT INTO ${this.table} (key_ref, subject, wrapped, master_id, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
      [key.keyRef, key.subject, key.wrapped, key.masterId, key.createdAt],
    );
    const found = await this.current(key.subject);
    // The winner could have been destroyed between the insert and the read: try again with ours.
    return found ?? this.createIfAbsent(key);
  }

  async lookup(keyRefs: readonly string[]): Promise<Map<string, KeyLookup>> {
    const out = new Map<string, KeyLookup>();
    if (keyRefs.length === 0) return out;
    const rows = await this.q<Row>(`SELECT * FROM ${this.table} WHERE key_ref = ANY($1::text[])`, [[...new Set(keyRefs)]]);
    for (const r of rows) {
      out.set(r.key_ref, r.destroyed_at === null ? { status: 'live', key: live(r) } : { status: 'destroyed', keyRef: r.key_ref, subject: r.subject, destroyedAt: r.destroyed_at.toISOString() });
    }
    return out;
  }

  async destroy(subject: string, at: string): Promise<string[]> {
    const rows = await this.q<{ key_ref: string }>(
      `UPDATE ${this.table} SET wrapped = NULL, master_id = NULL, destroyed_at = $2 WHERE subject = $1 AND destroyed_at IS NULL RETURNING key_ref`,
      [subject, at],
    );
    // The previous row version, wrapped key included, stays in the table file until vacuumed.
    if (rows.length) await this.pool.query(`VACUUM ${this.table}`);
    return rows.map((r) => r.key_ref);
  }

  async listLive(afterKeyRef: string, limit: number): Promise<WrappedKey[]> {
    const rows = await this.q<Row>(`SELECT * FROM ${this.table} WHERE key_ref > $1 AND destroyed_at IS NULL ORDER BY key_ref LIMIT $2`, [afterKeyRef, limit]);
    return rows.map(live);
  }

  async rewrap(keys: readonly { keyRef: string; wrapped: Buffer; masterId: string }[]): Promise<void> {
    await this.ready;
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      for (const k of keys) {
        await client.query(`UPDATE ${this.table} SET wrapped = $1, master_id = $2 WHERE key_ref = $3 AND destroyed_at IS NULL`, [k.wrapped, k.masterId, k.keyRef]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    await this.pool.query(`VACUUM ${this.table}`);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
