/**
 * `npm run cli -- migrate`: creates or upgrades the PostgreSQL schemas of every port configured on
 * PostgreSQL (`EVENT_STORE=postgres`; read models on `DATABASE_URL` migrate on first use). Idempotent and
 * safe to run from several machines at once (each adapter serialises its DDL with an advisory lock).
 * Processes also migrate lazily on first use; running this first keeps DDL out of the request path and
 * fails a deployment early when the database is unreachable.
 */
import pg from 'pg';
import type { Config } from '../shared/adapter.ts';
import { migratePostgresEventStore } from '../event-store/postgres/postgres-event-store.ts';

/** What was migrated, by port (`skipped` when that port is not on PostgreSQL). */
export interface MigrationReport {
  database: string | null;
  schema: string;
  eventStore: 'migrated' | 'skipped';
}

/**
 * Runs the migrations the configuration needs.
 * @throws Error when a port is on PostgreSQL without `DATABASE_URL`, or the server refuses the DDL.
 */
export async function migratePostgres(config: Config): Promise<MigrationReport> {
  const report: MigrationReport = {
    database: config.DATABASE_URL ? redactUrl(config.DATABASE_URL) : null,
    schema: config.DATABASE_SCHEMA,
    eventStore: 'skipped',
  };
  if (config.EVENT_STORE !== 'postgres') return report;
  if (!config.DATABASE_URL) throw new Error('migrate: DATABASE_URL is required when EVENT_STORE is postgres');
  const pool = new pg.Pool({ connectionString: config.DATABASE_URL, max: 2 });
  try {
    await migratePostgresEventStore(pool, config.DATABASE_SCHEMA);
    report.eventStore = 'migrated';
  } finally {
    await pool.end();
  }
  return report;
}

/** The URL without its password (the report is printed). */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}
