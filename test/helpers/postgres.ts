import pg from 'pg';
import { serverMissing } from './servers.ts';

/** The PostgreSQL server tests use: `DATABASE_URL`, else the one `npm run engines -- up` starts. */
export function testDatabaseUrl(): string {
  return process.env.DATABASE_URL ?? 'postgres://sello@127.0.0.1:5432/sello';
}

/**
 * True when the test server answers; otherwise prints why the caller's tests are skipped, or, where the
 * servers are required (`SELLO_REQUIRE_SERVERS=1`, as `.ci/run` sets), throws: CI never skips them.
 */
export async function postgresReachable(what: string): Promise<boolean> {
  const url = testDatabaseUrl();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    return serverMissing(what, `no PostgreSQL server at ${url} (${(error as Error).message})`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A fresh schema name for one test (`<prefix>_<random>`), so tests sharing the server never collide. */
export function uniqueSchema(prefix: string): string {
  return `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
}

/** Drops the schemas a test created (CASCADE). */
export async function dropSchemas(schemas: readonly string[]): Promise<void> {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  } finally {
    await client.end();
  }
}
