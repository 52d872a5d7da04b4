import type pg from 'pg';

/** A PostgreSQL schema name the adapters accept (it is interpolated into DDL, so nothing else is). */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,50}$/;

/**
 * Runs `sql` (idempotent DDL for `schema`) in one transaction under a transaction-level advisory lock
 * keyed by (`lockClass`, hash of `schema`), so several processes migrating at once run it one after the
 * other. Used by the PostgreSQL event store and workflow engine (`npm run cli -- migrate`).
 * @throws Error when `schema` is not a plain lower-case identifier; any database error (rolled back).
 */
export async function runLockedDdl(pool: pg.Pool, schema: string, lockClass: number, sql: string): Promise<void> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${schema}`);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [lockClass, schema]);
    await client.query(sql);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
