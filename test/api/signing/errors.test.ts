/**
 * Every signing endpoint's errors in the structured shape, permissions, credits and tenant isolation,
 * the alternative paths, list filters, cancel, decline, delete and the preview URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../../helpers/signing.ts';

let s: TestServer;
let key: string;
let tenantId: string;
let other: { key: string; tenantId: string };
const DATA = join(import.meta.dirname, '../../../../shared/data/pdf');

beforeAll(async () => {
  s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 } });
  ({ key, tenantId } = await s.tenantWithKey('pro'));
  other = await s.tenantWithKey('pro');
});
afterAll(async () => {
  await s?.close();
});

const SIGNERS = [
  { email: 'ana@example.com', name: 'Ana', order: 1 },
  { email: 'beto@example.com', name: 'Beto', order: 2 },
];

async function create(pdf: Buffer | null, fields: Record<string, string> = {}, k = key) {
  const form = new FormData();
  if (pdf) form.set('document', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'doc.pdf');
  if (!('title' in fields)) form.set('title', 'T');
  if (!('signers' in fields)) form.set('signers', JSON.stringify(SIGNERS));
  for (const [n, v] of Object.entries(fields)) form.set(n, v);
  const r = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key: k });
  return { status: r.status, body: (await r.json()) as any, headers: r.headers };
}
const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
async function call(method: string, path: string, k = key, body?: unknown) {
  const r = await s.fetch(path, { method, key: k, ...(body !== undefined ? json(body) : {}) });
  const ct = r.headers.get('content-type') ?? '';
  return { status: r.status, body: ct.includes('json') ? ((await r.json()) as any) : await r.text(), headers: r.headers };
}
function expectError(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.success).toBe(false);
  expect(r.body.error.code).toBe(code);
  expect(typeof r.body.error.message).toBe('string');
  expect(r.body.error.details).toBeTypeOf('object');
}

describe('create: validation, permissions, credits', () => {
  it('needs a key with write permission; charges 5 credits on success only', async () => {
    expect((await s.fetch('/v1/signing/documents', { method: 'POST' })).status).toBe(401);
    const ro = await s.createKey(tenantId, ['read']);
    expectError(await create(await makePdf(1), {}, ro.key), 403, 'insufficient_permissions');
    const ok = await create(await makePdf(1));
    expect(ok.status).toBe(201);
    expect(ok.headers.get('x-credit-cost')).toBe('5');
    const bad = await create(Buffer.from('%PDF-1.7 broken'));
    expect(bad.headers.get('x-credit-cost')).not.toBe('5');
  });

  it('rejects bad signers, titles, dates and placements with the spec codes', async () => {
    const pdf = await makePdf(2);
    expectError(await create(pdf, { signers: JSON.stringify([{ email: 'not-an-email', name: 'X' }]) }), 400, 'invalid_signer');
    expectError(await create(pdf, { signers: 'not json' }), 400, 'invalid_signer');
    expectError(await create(pdf, { signers: '[]' }), 400, 'invalid_signer');
    expectError(await create(pdf, { signers: JSON.stringify([{ email: 'a@example.com', name: 'A' }, { email: 'A@example.com', name: 'B' }]) }), 400, 'invalid_signer');
    expectError(await create(pdf, { title: '' }), 400, 'validation_error');
    expectError(await create(pdf, { notify_email: 'boss at example' }), 400, 'validation_error');
    expectError(await create(pdf, { expiry_date: '2026-02-30' }), 400, 'validation_error');
    expectError(await create(pdf, { expiry_date: '2001-01-01' }), 400, 'invalid_expiry_date');
    const outOfRange = await create(pdf, { signers: JSON.stringify([{ email: 'a@example.com', name: 'A', fields: [{ page: 3, x: 10, y: 10, width: 100, height: 40 }] }]) });
    expectError(outOfRange, 400, 'invalid_placement');
    expect(outOfRange.body.error.message).toContain('page 3 is out of range');
    const outside = await create(pdf, { signers: JSON.stringify([{ email: 'a@example.com', name: 'A', fields: [{ page: 1, x: 500, y: 10, width: 200, height: 40 }] }]) });
    expectError(outside, 400, 'invalid_placement');
    expect(outside.body.error.details).toMatchObject({ page: 1, page_width: expect.any(Number) });
  });

  it('judges the PDF: missing, truncated, not a PDF, too many pages, too large', async () => {
    expectError(await create(null), 400, 'pdf_corrupted');
    const pdf = await makePdf(3);
    expectError(await create(pdf.subarray(0, pdf.length - 400)), 400, 'pdf_corrupted');
    expectError(await create(Buffer.from('GIF89a not a pdf')), 400, 'pdf_corrupted');
    const tooMany = await create(await makePdf(201));
    expectError(tooMany, 400, 'pdf_too_many_pages');
    expect(tooMany.body.error.details).toMatchObject({ pages: 201, max_pages: 200 });
    const huge = Buffer.concat([pdf, Buffer.alloc(10 * 1024 * 1024 + 10, 0x20)]);
    expectError(await create(huge), 413, 'pdf_too_large');
  });

  it.skipIf(!existsSync(DATA))('answers pdf_corrupted for hostile files of the shared corpus', async () => {
    for (const f of ['qpdf/bad/bad1.pdf', 'qpdf/bad/bad2.pdf', 'qpdf/bad/bad16.pdf', 'pyhanko/pdf/circular-page-tree.pdf', 'pyhanko/pdf/broken-objstream1.pdf', 'py-pdf-sample-files/005-libreoffice-writer-password/libreoffice-writer-password.pdf', 'derived-tampered/test-SHA256_RSA-signed-cms-tampered-byte94.pdf']) {
      if (!existsSync(join(DATA, f))) continue;
      const r = await create(readFileSync(join(DATA, f)));
      expectError(r, 400, 'pdf_corrupted');
    }
  });
});

describe('lifecycle errors, list, alternative paths', () => {
  it('document_not_found for unknown ids and for another tenant on every route', async () => {
    const mine = (await create(await makePdf(1))).body.data.document_id as string;
    const routes: [string, string, unknown?][] = [
      ['GET', `/v1/signing/documents/ID`],
      ['GET', `/v1/signing/status/ID`],
      ['POST', `/v1/signing/documents/ID/send-invitations`, {}],
      ['POST', `/v1/signing/documents/ID/finalize`],
      ['GET', `/v1/signing/documents/ID/download`],
      ['GET', `/v1/signing/download/ID`],
      ['GET', `/v1/signing/documents/ID/certificate`],
      ['GET', `/v1/signing/documents/ID/public-preview`],
      ['POST', `/v1/signing/documents/ID/cancel`, {}],
      ['DELETE', `/v1/signing/documents/ID`],
    ];
    for (const [m, p, b] of routes) {
      expectError(await call(m, p.replace('ID', 'doc_000000000000000000000000'), key, b), 404, 'document_not_found');
      expectError(await call(m, p.replace('ID', 'nonsense'), key, b), 404, 'document_not_found');
      expectError(await call(m, p.replace('ID', mine), other.key, b), 404, 'document_not_found');
    }
    // Still intact for its owner.
    expect((await call('GET', `/v1/signing/documents/${mine}`)).body.data.status).toBe('draft');
  });

  it('send twice, finalize early, download early: 409 invalid_document_status', async () => {
    const id = (await create(await makePdf(1))).body.data.document_id as string;
    expectError(await call('POST', `/v1/signing/documents/${id}/finalize`), 409, 'invalid_document_status');
    expectError(await call('GET', `/v1/signing/documents/${id}/download`), 409, 'invalid_document_status');
    expect((await call('POST', `/v1/signing/documents/${id}/send-invitations`, key, {})).status).toBe(200);
    expectError(await call('POST', `/v1/signing/documents/${id}/send-invitations`, key, {}), 409, 'invalid_document_status');
  });

  it('lists with status filter, sort, order and pagination; per_page max 100; tenant-scoped', async () => {
    const t = await s.tenantWithKey('pro');
    for (const title of ['Charlie', 'Alpha', 'Bravo']) await create(await makePdf(1), { title }, t.key);
    const sentId = (await create(await makePdf(1), { title: 'Delta' }, t.key)).body.data.document_id;
    await call('POST', `/v1/signing/documents/${sentId}/send-invitations`, t.key, {});
    const all = await call('GET', '/v1/signing/documents?sort=title&order=asc&per_page=2', t.key);
    expect(all.status).toBe(200);
    expect(all.body.data.documents.map((d: any) => d.title)).toEqual(['Alpha', 'Bravo']);
    expect(all.body.data.pagination).toEqual({ page: 1, per_page: 2, total: 4, total_pages: 2 });
    const p2 = await call('GET', '/v1/signing/documents?sort=title&order=asc&per_page=2&page=2', t.key);
    expect(p2.body.data.documents.map((d: any) => d.title)).toEqual(['Charlie', 'Delta']);
    expect(p2.body.data.documents[1]).toMatchObject({ status: 'sent', signers_count: 2, signed_count: 0 });
    const sent = await call('GET', '/v1/signing/documents?status=sent', t.key);
    expect(sent.body.data.documents.map((d: any) => d.document_id)).toEqual([sentId]);
    expect((await call('GET', '/v1/signing/documents?per_page=101', t.key)).status).toBe(400);
    expect((await call('GET', '/v1/signing/documents?status=bogus', t.key)).status).toBe(400);
    const fresh = await s.tenantWithKey('pro');
    expect((await call('GET', '/v1/signing/documents', fresh.key)).body.data.pagination.total).toBe(0);
  });

  it('POST /v1/signing/create takes base64 and expires_in, and sends at once', async () => {
    const pdf = await makePdf(2);
    const r = await call('POST', '/v1/signing/create', key, { document: pdf.toString('base64'), signers: [{ name: 'Ana', email: 'alt@example.com', title: 'Alt title', message: 'hola' }], expires_in: '7d' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ title: 'Alt title', status: 'sent', file: { pages: 2 } });
    expect(Date.parse(r.body.data.expiry_date) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    const st = await call('GET', `/v1/signing/status/${r.body.data.document_id}`);
    expect(st.body.data.status).toBe('sent');
    expectError(await call('POST', '/v1/signing/create', key, { document: '!!!', signers: [{ name: 'A', email: 'a@example.com' }] }), 400, 'pdf_corrupted');
    expectError(await call('POST', '/v1/signing/create', key, { document: pdf.toString('base64'), signers: [{ name: 'A', email: 'a@example.com' }], expires_in: 'soon' }), 400, 'validation_error');
    expectError(await call('POST', '/v1/signing/create', key, { document: Buffer.from('nope').toString('base64'), signers: [{ name: 'A', email: 'a@example.com' }] }), 400, 'pdf_corrupted');
  });
});

describe('cancel, decline, delete, preview', () => {
  it('the owner cancels: links stop working, further sends are document_cancelled', async () => {
    const id = (await create(await makePdf(1), { signers: JSON.stringify([{ email: 'cx@example.com', name: 'Cx' }]) })).body.data.document_id;
    await call('POST', `/v1/signing/documents/${id}/send-invitations`, key, {});
    const mail = await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes('cx@example.com')), 15_000, 'cx invitation');
    const c = await call('POST', `/v1/signing/documents/${id}/cancel`, key, { reason: 'wrong contract' });
    expect(c.status).toBe(200);
    expect(c.body.data).toMatchObject({ status: 'cancelled', cancellation: { by: 'owner', reason: 'wrong contract' } });
    const page = await fetch(s.url + linkOf(mail));
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('cancelado');
    expectError(await call('POST', `/v1/signing/documents/${id}/cancel`, key, {}), 400, 'document_cancelled');
    expect((await call('GET', `/v1/signing/documents/${id}`)).body.data.audit_trail.at(-1)).toMatchObject({ event: 'document_cancelled', reason: 'wrong contract' });
  });

  it('a signer declines with a reason: cancelled, webhook document.declined, owner e-mail', async () => {
    const id = (await create(await makePdf(1), { signers: JSON.stringify([{ email: 'dx@example.com', name: 'Dx' }]), notify_email: 'boss@example.com' })).body.data.document_id;
    await call('POST', `/v1/signing/documents/${id}/send-invitations`, key, {});
    const mail = await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes('dx@example.com')), 15_000, 'dx invitation');
    const t = new URL(s.url + linkOf(mail)).searchParams.get('t')!;
    const r = await fetch(`${s.url}/sign/${id}/decline`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, reason: 'El precio es incorrecto' }).toString() });
    expect(r.status).toBe(200);
    const doc = (await call('GET', `/v1/signing/documents/${id}`)).body.data;
    expect(doc).toMatchObject({ status: 'cancelled', cancellation: { by: 'signer', reason: 'El precio es incorrecto' } });
    expect(doc.signers[0]).toMatchObject({ status: 'declined', decline_reason: 'El precio es incorrecto' });
    const hook = await waitFor(async () => (await s.ctx.events.readStream(`webhook-events-${tenantId}`)).events.find((e) => e.type === 'document.declined' && (e.data as any).document_id === id), 15_000, 'declined webhook');
    expect(hook.data).toMatchObject({ reason: 'El precio es incorrecto', signer: { email: 'dx@example.com' } });
    const owner = await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes('boss@example.com')), 15_000, 'owner mail');
    expect(owner.body).toContain('El precio es incorrecto');
  });

  it('delete removes the document and its files', async () => {
    const id = (await create(await makePdf(1))).body.data.document_id;
    const d = await call('DELETE', `/v1/signing/documents/${id}`);
    expect(d.body).toEqual({ success: true, data: { message: expect.any(String), document_id: id } });
    expectError(await call('GET', `/v1/signing/documents/${id}`), 404, 'document_not_found');
    expect(await s.ctx.blobs.list(`signing/${tenantId}/${id}/`)).toEqual([]);
    expect((await call('GET', '/v1/signing/documents?per_page=100')).body.data.documents.some((x: any) => x.document_id === id)).toBe(false);
  });

  it('public-preview gives a short-lived view-only URL; a forged one is refused', async () => {
    const id = (await create(await makePdf(2))).body.data.document_id;
    const p = await call('GET', `/v1/signing/documents/${id}/public-preview`);
    expect(p.status).toBe(200);
    const exp = Date.parse(p.body.data.expires_at) - Date.now();
    expect(exp).toBeGreaterThan(10 * 60_000);
    expect(exp).toBeLessThanOrEqual(15 * 60_000 + 1000);
    const page = await fetch(p.body.data.preview_url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Solo vista previa');
    expect(html).not.toContain('/sign"');
    expect(html).not.toContain('Firmar documento');
    const img = /src="([^"]+pages\/1\.png[^"]*)"/.exec(html)![1]!.replace(/&amp;/g, '&');
    const png = await fetch(s.url + img);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const forged = p.body.data.preview_url.replace(/sig=[^&]+/, 'sig=AAAA');
    expect((await fetch(forged)).status).toBe(403);
    const otherDoc = p.body.data.preview_url.replace(id, (await create(await makePdf(1))).body.data.document_id);
    expect((await fetch(otherDoc)).status).toBe(403);
  });

  it('a made-up signing token is refused and no API answer ever shows a signer token', async () => {
    const created = await create(await makePdf(1));
    const id = created.body.data.document_id;
    await call('POST', `/v1/signing/documents/${id}/send-invitations`, key, {});
    const bad = await fetch(`${s.url}/sign/${id}?t=sl_${'A'.repeat(43)}`);
    expect(bad.status).toBe(403);
    const landing = await fetch(`${s.url}/sign/${id}`);
    expect(await landing.text()).toContain('enlace personal');
    const doc = await call('GET', `/v1/signing/documents/${id}`);
    expect(JSON.stringify(doc.body)).not.toMatch(/sl_[A-Za-z0-9_-]{43}/);
    expect(JSON.stringify(doc.body)).not.toMatch(/token/);
  });
});

describe('OpenAPI', () => {
  it('documents every signing route (and hides the signing page, but for its e.firma JSON routes)', async () => {
    const doc = (await (await s.fetch('/openapi.json')).json()) as any;
    const paths = Object.keys(doc.paths);
    for (const p of [
      '/v1/signing/documents',
      '/v1/signing/create',
      '/v1/signing/documents/{document_id}',
      '/v1/signing/status/{document_id}',
      '/v1/signing/documents/{document_id}/send-invitations',
      '/v1/signing/documents/{document_id}/finalize',
      '/v1/signing/documents/{document_id}/download',
      '/v1/signing/download/{document_id}',
      '/v1/signing/documents/{document_id}/certificate',
      '/v1/signing/documents/{document_id}/public-preview',
      '/v1/signing/documents/{document_id}/cancel',
      '/v1/signing/verify',
    ]) {
      expect(paths, p).toContain(p);
    }
    // The page's HTML routes are hidden; its JSON e.firma routes (issue 29) are documented for custom signing UIs.
    expect(paths.filter((p) => p.startsWith('/sign/'))).toEqual(['/sign/{document_id}/efirma/prepare', '/sign/{document_id}/efirma/complete']);
    expect(doc.paths['/v1/signing/documents'].post.description).toContain('pdf_corrupted');
  });
});

describe('verify with files this service did not seal', () => {
  const post = async (bytes: Buffer) => {
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), 'x.pdf');
    const r = await s.fetch('/v1/signing/verify', { method: 'POST', body: form, key });
    return { status: r.status, body: (await r.json()) as any };
  };
  it('refuses a non-PDF', async () => {
    expectError(await post(Buffer.from('plain text')), 400, 'pdf_corrupted');
  });
  it.skipIf(!existsSync(DATA))('counts foreign signatures without claiming them', async () => {
    for (const f of ['node-signpdf/resources/signed-once.pdf', 'node-signpdf/resources/signed-twice.pdf', 'derived-tampered/signed-once-tampered-byte225.pdf']) {
      if (!existsSync(join(DATA, f))) continue;
      const r = await post(readFileSync(join(DATA, f)));
      expect(r.status, f).toBe(200);
      expect(r.body.data, f).toMatchObject({ signed_by_service: false, unmodified: false, document: null });
      expect(r.body.data.signatures_found, f).toBeGreaterThan(0);
    }
  });
});
