import type pg from 'pg';

/** A PostgreSQL schema name the adapters accept (it is interpolated into DDL, so nothing else is). */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,50}$/;

/**
 * Advisory-lock class of every schema migration (event store, key store...): one class for all, so two
 * adapters migrating the same schema at once do not both run `CREATE SCHEMA IF NOT EXISTS`, which is not
 * safe under concurrency in PostgreSQL (the loser fails on `pg_namespace_nspname_index`; seen in a CI run
 * when the key store's migration, then under a class of its own, met the event store's).
 */
export const SCHEMA_MIGRATION_LOCK_CLASS = 0x5e111;

/** SQLSTATEs of "another session created it first": unique_violation, duplicate_table, duplicate_object, duplicate_schema. */
const CREATED_MEANWHILE = new Set(['23505', '42P07', '42710', '42P06']);

/**
 * Runs `sql` (idempotent DDL for `schema`) in one transaction under a transaction-level advisory lock
 * keyed by (`SCHEMA_MIGRATION_LOCK_CLASS`, hash of `schema`), so several processes migrating at once run it
 * one after the other. DDL run outside the lock (the read models declare their tables lazily) can still
 * create an object between our check and our create: the transaction is then run once more, when the
 * idempotent DDL finds it. Used by the PostgreSQL event store and key store (`npm run cli -- migrate`).
 * @throws Error when `schema` is not a plain lower-case identifier; any database error (rolled back).
 */
export async function runLockedDdl(pool: pg.Pool, schema: string, sql: string): Promise<void> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${schema}`);
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [SCHEMA_MIGRATION_LOCK_CLASS, schema]);
      await client.query(sql);
      await client.query('COMMIT');
      return;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (attempt < 3 && CREATED_MEANWHILE.has((error as { code?: string }).code ?? '')) continue;
      throw error;
    } finally {
      client.release();
    }
  }
}
