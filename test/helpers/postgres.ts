import pg from 'pg';

/** The PostgreSQL server tests use: `DATABASE_URL`, else the development machine's `test` database. */
export function testDatabaseUrl(): string {
  return process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
}

/** True when the test server answers; otherwise prints why the caller's tests are skipped. */
export async function postgresReachable(what: string): Promise<boolean> {
  const url = testDatabaseUrl();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    console.warn(`${what} skipped: no PostgreSQL server at ${url} (${(error as Error).message})`);
    return false;
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
