/**
 * Issue 28 item 7 (docs/operations.md "Backups", "Crypto-shredding keys"): restoring an event-log backup
 * taken before an erasure does not bring the erased data back. The log's personal fields are sealed under
 * per-subject keys kept apart (the key store); the erasure destroyed the key, so the old log's copy reads
 * as erased once restored, and the read models rebuilt from it show nothing of the subject.
 *
 * Embedded profile: `events.sqlite` is backed up with SQLite's online backup while the server runs, the
 * subject (a signing document's signer) is erased by e-mail, the server stops, the backup replaces the log
 * and the derived files (read models, vector index) are removed, and the server starts again on it.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { makePdf } from '../helpers/signing.ts';

const MARK = 'bkpmark3f9e1';
const EMAIL = `luz.${MARK}@example.com`;
const dataDir = mkdtempSync(join(tmpdir(), 'sello-backup-'));
const backupDir = mkdtempSync(join(tmpdir(), 'sello-backup-copy-'));
let s: TestServer | undefined;

afterAll(async () => {
  await s?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(backupDir, { recursive: true, force: true });
});

describe('restoring an event-log backup taken before an erasure', () => {
  it('brings nothing of the erased subject back: the old log reads as erased and the rebuilt views show nothing', async () => {
    s = await startTestServer({ dataDir, config: { WORKFLOW_POLL_MS: 20 } });
    const tenantId = await s.createTenant('pro');
    const key = (await s.createKey(tenantId, ['read', 'write', 'admin'])).key;
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'contrato.pdf');
    form.set('title', 'Contrato de arrendamiento');
    form.set('signers', JSON.stringify([{ email: EMAIL, name: `Luz ${MARK}`, order: 1 }]));
    const created = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { data: { document_id: string } }).data.document_id;
    expect(await (await s.fetch(`/v1/signing/documents/${id}`, { key })).text()).toContain(MARK);

    // The backup: SQLite's online backup of the live log (consistent while the server writes).
    const live = new Database(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
    await live.backup(join(backupDir, 'events.sqlite'));
    live.close();
    // Sealed from the start: the backup itself never held the name or address in clear.
    const backupBytes = readFileSync(join(backupDir, 'events.sqlite'));
    expect(backupBytes.includes(MARK)).toBe(false);

    const erased = await s.fetch('/v1/privacy/erasures', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAIL }) });
    expect(erased.status).toBe(202);
    expect(((await erased.json()) as any).data.erased.find((x: { kind: string }) => x.kind === 'signer_records')).toMatchObject({ count: 1, document_ids: [id] });
    await s.close();
    s = undefined;

    // Restore: the old log replaces the current one; the derived files are rebuilt from it.
    for (const f of ['events.sqlite-wal', 'events.sqlite-shm', 'read-models.sqlite', 'read-models.sqlite-wal', 'read-models.sqlite-shm']) rmSync(join(dataDir, f), { force: true });
    rmSync(join(dataDir, 'vectors'), { recursive: true, force: true });
    copyFileSync(join(backupDir, 'events.sqlite'), join(dataDir, 'events.sqlite'));
    expect(existsSync(join(dataDir, 'keys', 'keys.sqlite'))).toBe(true); // the key store was kept apart

    s = await startTestServer({ dataDir, config: { WORKFLOW_POLL_MS: 20 } });
    await s.ctx.projections.catchUp();
    const view = await s.fetch(`/v1/signing/documents/${id}`, { key });
    expect(view.status).toBe(200); // the document is back (it was in the backup) ...
    const text = await view.text();
    expect(text).not.toContain(MARK); // ... without its signer
    expect(text.toLowerCase()).not.toContain(EMAIL);
    const listed = await s.fetch('/v1/signing/documents?limit=100', { key });
    expect((await listed.text()).toLowerCase()).not.toContain(MARK);
    // The restored log's events open as erased: the sealed fields' key is destroyed.
    const events = (await s.ctx.events.readStream(`signing-${id}`)).events;
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain(MARK);
    expect(events[0]!.metadata?.erased_at).toEqual(expect.any(String));
  }, 300_000);
});
