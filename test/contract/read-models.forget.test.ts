/**
 * `ReadModelStore.forget` (issue 28): after a document is rewritten without its personal data, no copy of
 * the old version stays in the store's own files. SQLite: the database file and its WAL, read raw while the
 * store is open. PostgreSQL (where it answers): the table's raw pages (`pageinspect`, needs a superuser,
 * as in CI), which plain `VACUUM` would leave holding the old version.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresReadModelStore } from '../../infra/read-models/postgres/postgres-read-models.ts';
import { SqliteReadModelStore } from '../../infra/read-models/sqlite/sqlite-read-models.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import { dropSchemas, postgresReachable, testDatabaseUrl, uniqueSchema } from '../helpers/postgres.ts';
import { scanDirs, textNeedle } from '../helpers/byte-scan.ts';

/** Writes 200 documents, one holding `marker`, then rewrites that one without it (what an erasure's scrub does). */
async function scrubbed(store: ReadModelStore, marker: string): Promise<void> {
  const col = await store.collection('forget_docs', { indexes: ['tenant_id'] });
  await col.putMany(Array.from({ length: 200 }, (_, i) => [`d${i}`, { tenant_id: 't', n: i, metadata: { note: `other ${i}` } }] as const));
  await col.put('d77', { tenant_id: 't', n: 77, metadata: { name: marker } });
  await col.put('d77', { tenant_id: 't', n: 77, metadata: { name: marker }, is_active: false });
  await col.put('d77', { tenant_id: 't', n: 77, metadata: {}, is_active: false });
}

const url = testDatabaseUrl();
const pgReady = await postgresReachable('read-model forget on PostgreSQL');

describe('read models forget the bytes of rewritten documents', () => {
  it('sqlite: neither the file nor the WAL keeps the old version (secure_delete, WAL truncated)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sello-rm-forget-'));
    const store = new SqliteReadModelStore(join(dir, 'rm.sqlite'));
    try {
      const marker = 'MARKER-rm-forget-sqlite';
      await scrubbed(store, marker);
      expect(scanDirs([dir], [textNeedle('marker', marker)]).length).toBeGreaterThan(0); // the WAL holds it
      await store.forget(['forget_docs']);
      expect(scanDirs([dir], [textNeedle('marker', marker)])).toEqual([]);
      expect((await (await store.collection('forget_docs')).get('d77'))?.metadata).toEqual({});
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(pgReady)('postgres: no raw page of the table keeps the old version (VACUUM FULL)', async () => {
    const schema = uniqueSchema('sello_rm_forget');
    const store = PostgresReadModelStore.create(url, schema);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const marker = 'MARKER-rm-forget-postgres';
      await scrubbed(store, marker);
      await client.query('CREATE EXTENSION IF NOT EXISTS pageinspect');
      const pages = async (): Promise<Buffer> => {
        const table = `${schema}.rm_forget_docs`;
        const { rows } = await client.query<{ n: string }>('SELECT pg_relation_size($1::regclass) / 8192 AS n', [table]);
        const out: Buffer[] = [];
        for (let i = 0; i < Number(rows[0]!.n); i++) out.push((await client.query<{ p: Buffer }>('SELECT get_raw_page($1, $2) AS p', [table, i])).rows[0]!.p);
        return Buffer.concat(out);
      };
      await client.query(`VACUUM ${schema}.rm_forget_docs`);
      expect((await pages()).includes(marker)).toBe(true); // plain VACUUM leaves the dead version's bytes
      await store.forget(['forget_docs']);
      expect((await pages()).includes(marker)).toBe(false);
      expect((await (await store.collection('forget_docs')).get('d77'))?.metadata).toEqual({});
    } finally {
      await client.end();
      await store.close();
      await dropSchemas([schema]);
    }
  });
});
