/**
 * Blocking of a finalized signing document (issue 28 item 6, docs/privacy.md "Blocking") over real HTTP,
 * with the platform's injected clock moved past the retention period: a document signed by a signer whose
 * name and address carry a unique marker is finalized; an erasure of the address during the tenant's
 * `signed_documents_days` blocks it (the receipt says until when): the signer's page and a preview URL
 * answer as for an unavailable document, the API's view and listing withhold its personal fields, a
 * `read`/`write` key gets 403 `document_blocked` on the PDF and certificate, an `admin` key downloads them
 * and each download is recorded (an event with the key id, shown in the document's `blocked.downloads`).
 * Then the daily `privacy-retention` sweep past the period shreds it: its key is destroyed, its files and
 * read-model row go (downloads 404), the raw bytes of the event store and read models hold no marker,
 * and `/v1/signing/verify` still recognises the saved copy by its hash.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { jsonRequests, advanceAndSweep as advanceAndSweepTo } from '../../helpers/privacy.ts';
import { ManualClock } from '../../contract/workflows.contract.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../../helpers/signing.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-03-02T12:00:00.000Z');
const MARK = 'blkmark9c3f1';
const EMAIL = `eva.${MARK}@example.com`;
const TIMEOUT = 300_000;
let s: TestServer;
let clock: ManualClock;
let tenant: string;
let admin: string;
let adminKeyId: string;
let reader: string;

beforeAll(async () => {
  clock = new ManualClock(NOW);
  s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 }, overrides: { clock } });
  tenant = await s.createTenant('enterprise');
  const a = await s.createKey(tenant, ['read', 'write', 'admin']);
  admin = a.key;
  adminKeyId = a.keyId;
  reader = (await s.createKey(tenant, ['read', 'write'])).key;
}, TIMEOUT);
afterAll(async () => {
  await s?.close();
});

const json = jsonRequests(() => s);

const advanceAndSweep = (ms: number) => advanceAndSweepTo(s, clock, ms);

/** Raw bytes of the files named `prefix*` under DATA_DIR (database, WAL, SHM). */
function rawBytes(prefix: string): Buffer {
  const dir = s.ctx.config.DATA_DIR;
  return Buffer.concat(readdirSync(dir).filter((f) => f.startsWith(prefix)).map((f) => readFileSync(join(dir, f))));
}
/** Every file under the blob directory. */
function blobFiles(dir = join(s.ctx.config.DATA_DIR, 'blobs')): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? blobFiles(join(dir, f)) : [join(dir, f)]));
}

async function verify(bytes: Buffer, key: string) {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), 'copy.pdf');
  const r = await s.fetch('/v1/signing/verify', { method: 'POST', body: form, key });
  return { status: r.status, body: (await r.json()) as any };
}

describe('blocking of a finalized signing document (issue 28 item 6)', () => {
  it('blocks it on erasure during the retention period, then shreds it when the period ends', async () => {
    expect((await json('PUT', '/v1/privacy/retention', admin, { signed_documents_days: 30 })).status).toBe(200);

    // Create, sign (typed, the marker as name) and finalize.
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'contrato.pdf');
    form.set('title', `Contrato ${MARK}`);
    form.set('expiry_date', '2099-12-31');
    form.set('signers', JSON.stringify([{ name: `Eva ${MARK}`, email: EMAIL }]));
    const created = await s.fetch('/v1/signing/documents', { method: 'POST', key: admin, body: form });
    const id = ((await created.json()) as any).data.document_id as string;
    expect(created.status).toBe(201);
    expect((await json('POST', `/v1/signing/documents/${id}/send-invitations`, admin, {})).status).toBe(200);
    const mail = await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes(EMAIL)), 30_000, 'invitation');
    const link = linkOf(mail);
    expect((await fetch(s.url + link)).status).toBe(200);
    const t = new URL(s.url + link).searchParams.get('t')!;
    const signed = await fetch(`${s.url}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: `Eva ${MARK}` }).toString() });
    expect(signed.status).toBe(200);
    const fin = await s.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key: admin });
    expect(fin.status, await fin.clone().text()).toBe(200);
    const finalizedAt = ((await fin.json()) as any).data.finalized_at as string;
    const saved = Buffer.from(await (await s.fetch(`/v1/signing/documents/${id}/download`, { key: reader })).arrayBuffer());
    expect(saved.subarray(0, 5).toString()).toBe('%PDF-');
    await s.ctx.projections.catchUp();
    // Positive control: the read models hold the marker before (the signing row).
    expect(rawBytes('read-models').includes(MARK)).toBe(true);

    await advanceAndSweep(10 * DAY); // within the 30 days: nothing happens to it
    expect((await json('GET', `/v1/signing/documents/${id}`, admin)).text).toContain(MARK);

    // A preview URL issued before the erasure (valid for an hour of the clock).
    const preview = (await json('GET', `/v1/signing/documents/${id}/public-preview`, admin)).body.data.preview_url as string;
    const previewPath = new URL(preview).pathname + new URL(preview).search;
    expect((await fetch(s.url + previewPath)).status).toBe(200);
    const previewPage = new URL(preview).pathname + '/pages/1' + new URL(preview).search;
    expect((await fetch(s.url + previewPage)).status).toBe(200);

    // Erasure by e-mail during the retention period: blocked, not shredded.
    const er = await json('POST', '/v1/privacy/erasures', admin, { email: EMAIL });
    expect(er.status, er.text).toBe(202);
    const line = er.body.data.erased.find((x: any) => x.kind === 'signer_records_blocked');
    const until = new Date(Date.parse(finalizedAt) + 30 * DAY).toISOString();
    expect(line).toMatchObject({ count: 1, document_ids: [id], stores: ['read_models'], blocked: [{ document_id: id, blocked_until: until }] });
    expect(er.body.data.erased.find((x: any) => x.kind === 'signer_records')).toMatchObject({ count: 0 });
    expect(er.text).not.toContain(MARK);

    // No longer served to signers, nor by a preview URL issued before.
    expect((await fetch(s.url + link)).status).toBe(404);
    expect((await fetch(`${s.url}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: 'x' }).toString() })).status).toBe(404);
    expect((await fetch(s.url + previewPath)).status).toBe(404);
    expect((await fetch(s.url + previewPage)).status).toBe(404);
    expect((await json('GET', `/v1/signing/documents/${id}/public-preview`, admin)).body.error.code).toBe('document_blocked');

    // Listed and shown as blocked, without names or addresses.
    const view = await json('GET', `/v1/signing/documents/${id}`, reader);
    expect(view.status).toBe(200);
    expect(view.text).not.toContain(MARK);
    expect(view.body.data).toMatchObject({ status: 'completed', title: '[blocked]', signers: [], blocked: { blocked_until: until, downloads: [] } });
    const list = await json('GET', '/v1/signing/documents?per_page=100', reader);
    expect(list.text).not.toContain(MARK);
    expect(list.body.data.documents.find((d: any) => d.document_id === id)).toMatchObject({ title: '[blocked]', blocked: true });

    // read/write keys: 403 document_blocked; admin: the files, each download recorded.
    for (const url of [`/v1/signing/documents/${id}/download`, `/v1/signing/documents/${id}/download?format=pdf_with_audit`, `/v1/signing/documents/${id}/certificate`]) {
      const r = await json('GET', url, reader);
      expect(r.status, url).toBe(403);
      expect(r.body.error.code).toBe('document_blocked');
    }
    const dl = await s.fetch(`/v1/signing/documents/${id}/download`, { key: admin });
    expect(dl.status).toBe(200);
    expect(Buffer.from(await dl.arrayBuffer()).equals(saved)).toBe(true);
    expect((await s.fetch(`/v1/signing/documents/${id}/certificate`, { key: admin })).status).toBe(200);
    const downloads = (await json('GET', `/v1/signing/documents/${id}`, admin)).body.data.blocked.downloads;
    expect(downloads.map((d: any) => d.file)).toEqual(['pdf', 'certificate']);
    for (const d of downloads) expect(d.key_id).toBe(adminKeyId);
    const recorded = (await s.ctx.events.readStream(`privacy-blocked-downloads-${tenant}`)).events;
    expect(recorded.map((e) => e.type)).toEqual(['PrivacyBlockedDocumentDownloaded', 'PrivacyBlockedDocumentDownloaded']);
    expect(JSON.stringify(recorded)).not.toContain(MARK);
    // verify during the blocking: recognised, without the signers.
    const during = await verify(saved, reader);
    expect(during.body.data.document).toMatchObject({ document_id: id, title: '[blocked]', signers: [] });

    // The 403 and the receipt's blocked_until are in the OpenAPI document.
    const spec = (await (await s.fetch('/openapi.json')).json()) as any;
    const dlSpec = spec.paths['/v1/signing/documents/{document_id}/download'].get;
    expect(Object.keys(dlSpec.responses)).toContain('403');
    expect(dlSpec.description).toContain('document_blocked');
    expect(spec.paths['/v1/signing/documents/{document_id}/certificate'].get.description).toContain('document_blocked');
    expect(JSON.stringify(spec.paths['/v1/privacy/erasures'])).toContain('blocked_until');

    // Still within the period: a sweep keeps it blocked.
    await advanceAndSweep(10 * DAY);
    expect((await s.fetch(`/v1/signing/documents/${id}/download`, { key: admin })).status).toBe(200);

    // Past the period: shredded.
    await advanceAndSweep(11 * DAY);
    expect(clock.now()).toBeGreaterThan(Date.parse(until));
    for (const k of [admin, reader]) {
      expect((await s.fetch(`/v1/signing/documents/${id}/download`, { key: k })).status).toBe(404);
      expect((await s.fetch(`/v1/signing/documents/${id}`, { key: k })).status).toBe(404);
    }
    expect(await s.ctx.blobs.list(`signing/${tenant}/${id}/`)).toEqual([]);
    expect(blobFiles().some((f) => f.includes(id))).toBe(false);
    const keys = (await s.ctx.events.readStream(`signing-${id}`)).events;
    expect(keys[0]!.metadata).toHaveProperty('erased_at');
    expect(JSON.stringify(keys)).not.toContain(MARK);
    expect(rawBytes('events').includes(MARK)).toBe(false);
    expect(rawBytes('read-models').includes(MARK)).toBe(false);
    const swept = (await json('GET', '/v1/privacy/retention', admin)).body.data.last_sweep;
    expect(swept.items).toEqual(expect.arrayContaining([{ kind: 'signed_documents', count: 1 }]));

    // The hash stays: verify still recognises the saved copy.
    const after = await verify(saved, admin);
    expect(after.status).toBe(200);
    expect(after.body.data).toMatchObject({ signed_by_service: true, unmodified: true });
    expect(after.body.data.document).toMatchObject({ document_id: id, variant: 'pdf' });
    expect(JSON.stringify(after.body)).not.toContain(MARK);
  }, TIMEOUT);
});
