import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresKeyStore } from '../../infra/key-store/postgres/postgres-key-store.ts';
import { keyStoreContract } from './key-store.contract.ts';
import { dropSchemas, postgresReachable, testDatabaseUrl, uniqueSchema } from '../helpers/postgres.ts';

const url = testDatabaseUrl();
const reachable = await postgresReachable('PostgreSQL key-store contract');
const schemas: string[] = [];
const fresh = (): string => {
  const s = uniqueSchema('sello_keys');
  schemas.push(s);
  return s;
};
afterAll(() => dropSchemas(schemas));

if (!reachable) {
  describe.skip('key store contract: postgres (no server reachable)', () => it('skipped', () => undefined));
} else {
  keyStoreContract('postgres', () => {
    const schema = fresh();
    return { store: PostgresKeyStore.create(url, { schema }), reopen: () => PostgresKeyStore.create(url, { schema }) };
  });

  it('postgres: a destroyed key leaves no copy of its wrapped bytes in the table pages (dead tuple vacuumed)', async () => {
    const schema = fresh();
    const store = PostgresKeyStore.create(url, { schema });
    const wrapped = randomBytes(60);
    for (let i = 0; i < 20; i++) await store.createIfAbsent({ keyRef: `ref-${i}`, subject: `subject:t:${i}`, wrapped: randomBytes(60), masterId: 'm', createdAt: '2026-01-01T00:00:00.000Z' });
    await store.createIfAbsent({ keyRef: 'ref-raw', subject: 'subject:t:raw', wrapped, masterId: 'm', createdAt: '2026-01-01T00:00:00.000Z' });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // The raw 8 KB pages of the table (pageinspect, a contrib extension; needs a superuser, as in CI).
      await client.query('CREATE EXTENSION IF NOT EXISTS pageinspect');
      const pages = async (): Promise<Buffer> => {
        const { rows } = await client.query<{ n: string }>(`SELECT pg_relation_size('${schema}.privacy_data_keys') / 8192 AS n`);
        const out: Buffer[] = [];
        for (let i = 0; i < Number(rows[0]!.n); i++) out.push((await client.query<{ p: Buffer }>(`SELECT get_raw_page('${schema}.privacy_data_keys', ${i}) AS p`)).rows[0]!.p);
        return Buffer.concat(out);
      };
      expect((await pages()).includes(wrapped)).toBe(true);
      await store.destroy('subject:t:raw', '2026-02-01T00:00:00.000Z');
      expect((await pages()).includes(wrapped)).toBe(false);
      const row = await client.query(`SELECT wrapped FROM ${schema}.privacy_data_keys WHERE key_ref = 'ref-raw'`);
      expect(row.rows[0].wrapped).toBeNull();
    } finally {
      await client.end();
      await store.close();
    }
  });
}
