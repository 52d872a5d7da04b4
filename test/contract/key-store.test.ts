import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { SqliteKeyStore } from '../../infra/key-store/sqlite/sqlite-key-store.ts';
import { keyStoreContract } from './key-store.contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'sello-keys-'));
let n = 0;

keyStoreContract('sqlite (file, WAL)', () => {
  const file = join(dir, `keys-${n++}.sqlite`);
  return { store: new SqliteKeyStore(file), reopen: () => new SqliteKeyStore(file) };
});

it('sqlite: a destroyed key leaves no copy of its wrapped bytes in the database file or its WAL', async () => {
  const sub = join(dir, `raw-${n++}`);
  const file = join(sub, 'keys.sqlite');
  const store = new SqliteKeyStore(file);
  const other = new SqliteKeyStore(file); // a second connection (another process) that read the key
  const wrapped = randomBytes(60);
  const k = await store.createIfAbsent({ keyRef: 'ref-raw', subject: 'subject:t:raw', wrapped, masterId: 'm', createdAt: '2026-01-01T00:00:00.000Z' });
  for (let i = 0; i < 50; i++) await store.createIfAbsent({ keyRef: `ref-${i}`, subject: `subject:t:${i}`, wrapped: randomBytes(60), masterId: 'm', createdAt: '2026-01-01T00:00:00.000Z' });
  expect((await other.lookup([k.keyRef])).get(k.keyRef)!.status).toBe('live');
  const everything = () => Buffer.concat(readdirSync(sub).map((f) => readFileSync(join(sub, f))));
  expect(everything().includes(wrapped)).toBe(true);
  await store.destroy('subject:t:raw', '2026-02-01T00:00:00.000Z');
  expect(everything().includes(wrapped)).toBe(false);
  await other.close();
  await store.close();
  expect(everything().includes(wrapped)).toBe(false);
});
