/** The PostgreSQL server tests use: `DATABASE_URL`, else the development machine's `test` database. */
export function testDatabaseUrl(): string {
  return process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
}
