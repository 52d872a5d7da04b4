import pg from 'pg';
import { describe, it } from 'vitest';
import { PostgresReadModelStore } from '../../../infra/read-models/postgres/postgres-read-models.ts';
import type { ReadModelStore } from '../../../infra/ports/read-models.ts';
import { testDatabaseUrl } from '../../helpers/postgres.ts';

/** Whether the test PostgreSQL answers (printed reason when not). */
export async function postgresReachable(label: string): Promise<boolean> {
  const url = testDatabaseUrl();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    console.warn(`${label}: PostgreSQL variant skipped, no server at ${url} (${(error as Error).message})`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export type ReadModelVariant = {
  name: string;
  /** A fresh store for one server (undefined = the server's embedded default). */
  readModels: () => ReadModelStore | undefined;
  /** Drops what `readModels` created (call after the server closed). */
  cleanup: () => Promise<void>;
};

/**
 * The read-model adapters every usage API test runs on: the embedded SQLite default, and PostgreSQL in a
 * fresh schema per server (so runs never see each other's rows).
 */
export async function readModelVariants(label: string): Promise<ReadModelVariant[]> {
  const list: ReadModelVariant[] = [{ name: 'sqlite', readModels: () => undefined, cleanup: async () => undefined }];
  if (await postgresReachable(label)) {
    const schemas: string[] = [];
    list.push({
      name: 'postgres',
      readModels: () => {
        const schema = `usage_t_${Math.random().toString(36).slice(2, 10)}`;
        schemas.push(schema);
        return PostgresReadModelStore.create(testDatabaseUrl(), schema);
      },
      cleanup: async () => {
        const client = new pg.Client({ connectionString: testDatabaseUrl() });
        await client.connect();
        try {
          for (const schema of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        } finally {
          await client.end();
        }
      },
    });
  } else list.push({ name: 'postgres', readModels: () => undefined, cleanup: async () => undefined });
  return list;
}

export const skipNote = (name: string) => describe.skip(`${name} (no PostgreSQL)`, () => it('skipped', () => undefined));
