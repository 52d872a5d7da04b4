import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, it } from 'vitest';
import { PostgresReadModelStore } from '../../infra/read-models/postgres/postgres-read-models.ts';
import { SqliteReadModelStore } from '../../infra/read-models/sqlite/sqlite-read-models.ts';
import { readModelContract } from './read-models.contract.ts';
import { testDatabaseUrl } from '../helpers/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'sello-rm-'));
readModelContract('sqlite', () => new SqliteReadModelStore(join(dir, 'rm.sqlite')));

const url = testDatabaseUrl();
const reachable = await (async () => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    console.warn(`PostgreSQL read-model contract skipped: no server at ${url} (${(error as Error).message})`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
})();

if (reachable) readModelContract('postgres', () => PostgresReadModelStore.create(url, 'sello_contract'));
else describe.skip('read model contract: postgres (no server reachable)', () => it('skipped', () => undefined));
