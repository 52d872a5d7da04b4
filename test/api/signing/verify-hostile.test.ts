/**
 * `POST /v1/signing/verify` against hostile files, over HTTP (issue 31, items 2 and 7):
 * - the seal's field is named apart from a field of the upload already called Signature1 (item 8);
 * - our CMS seal, taken from a document finalized through the API and copied into a PDF of the test's own
 *   with a whole-file `/ByteRange`, is not vouched for: `signed_by_service` false, `invalid_service_signature`
 *   true, no document named (pdfsig also refuses it);
 * - a 10 MB file with 300 `/ByteRange` entries, each covering nearly the whole file and pointing at that
 *   same real seal, gets a clear answer with a bounded number of signatures examined, in bounded time and
 *   memory (the covered bytes are hashed in place, never copied per entry).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { haveValidators, makePdf, pdfsig, qpdfCheck } from '../../helpers/signing.ts';
import { pdfWithCopiedSignature } from '../../helpers/hostile-pdf.ts';
import { PDFDocument } from 'pdf-lib';
import { findSignatures } from '../../../domain/signing/pades.ts';
import { signingCapability } from '../../../apps/capabilities/signing.ts';

let s: TestServer;
let key: string;
let sealed: Buffer;
let docId: string;
const tmp = mkdtempSync(join(tmpdir(), 'sello-verify-'));

beforeAll(async () => {
  s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 } });
  const t = await s.tenantWithKey('pro');
  key = t.key;
  await s.setLimits(t.tenantId, null, null);
  // A document finalized through the API: its sealed PDF carries the service's real seal.
  const form = new FormData();
  // The upload has a text field already named Signature1 (the placeholder library's fixed name for the seal).
  const withField = await PDFDocument.load(await makePdf(1));
  withField.getForm().createTextField('Signature1').addToPage(withField.getPage(0), { x: 50, y: 100, width: 150, height: 20 });
  form.set('document', new Blob([new Uint8Array(await withField.save())], { type: 'application/pdf' }), 'c.pdf');
  form.set('title', 'Contrato');
  form.set('signers', JSON.stringify([{ email: 'ana@example.com', name: 'Ana' }]));
  const created = (await (await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key })).json()) as any;
  docId = created.data.document_id;
  expect((await s.fetch(`/v1/signing/documents/${docId}/send-invitations`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
  const link = (await s.ctx.use(signingCapability).service.issueLink(docId, created.data.signers[0].id, 'invitation'))!;
  const signed = await fetch(`${s.url}/sign/${docId}/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ t: link.token, consent: 'yes', method: 'typed', typed_name: 'Ana' }).toString(),
  });
  expect(signed.status).toBe(200);
  expect((await s.fetch(`/v1/signing/documents/${docId}/finalize`, { method: 'POST', key })).status).toBe(200);
  sealed = Buffer.from(await (await s.fetch(`/v1/signing/documents/${docId}/download`, { key })).arrayBuffer());
}, 120_000);
afterAll(async () => {
  await s?.close();
});

async function verify(bytes: Buffer) {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), 'x.pdf');
  const started = performance.now();
  const r = await s.fetch('/v1/signing/verify', { method: 'POST', body: form, key });
  return { status: r.status, body: (await r.json()) as any, ms: performance.now() - started };
}

describe('verify never vouches for a copied seal', () => {
  it('the genuine sealed file: signed_by_service, valid, unmodified, its document', async () => {
    const r = await verify(sealed);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ signed_by_service: true, invalid_service_signature: false, signature_valid: true, signatures_found: 1, signatures_examined: 1, unmodified: true });
    expect(r.body.data.document.document_id).toBe(docId);
  });

  it('the seal\'s field is named apart from the document\'s own fields (a text field was already Signature1)', async () => {
    const names = (await PDFDocument.load(sealed)).getForm().getFields().map((f) => f.getName());
    expect(names).toEqual(['Signature1', 'Signature2']);
    if (haveValidators()) {
      const file = join(tmp, 'sealed.pdf');
      writeFileSync(file, sealed);
      const out = pdfsig(file);
      expect(out).toContain('Signature #1');
      expect(out).not.toContain('Signature #2');
      expect(out).toContain('Signature Field Name: Signature2');
      expect(out).toContain('Signature Validation: Signature is Valid.');
      expect(out).toContain('Total document signed');
    }
  });

  it('our seal copied into another PDF with a whole-file /ByteRange: not signed_by_service; invalid_service_signature says it carries our certificate', async () => {
    const [seal] = findSignatures(sealed);
    const forged = pdfWithCopiedSignature(seal!.cms, `Sello document ${docId} (pdf)`);
    const file = join(tmp, 'forged.pdf');
    writeFileSync(file, forged);
    if (haveValidators()) {
      expect(qpdfCheck(file).output).toContain('No syntax or stream encoding errors found');
      const out = pdfsig(file);
      expect(out).toContain('Signature #1');
      expect(out).toContain('Total document signed');
      expect(out).not.toContain('Signature is Valid');
      expect(out).toMatch(/Digest Mismatch|Signature is Invalid/);
    }
    const r = await verify(forged);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      signed_by_service: false,
      invalid_service_signature: true,
      signature_valid: false,
      covers_whole_file: true,
      unmodified: false,
      modified_after_finalize: false,
      timestamp: null,
      document: null,
    });
    // The OpenAPI document describes the new fields.
    const spec = (await (await fetch(`${s.url}/docs/json`)).json()) as any;
    const schema = JSON.stringify(spec.paths['/v1/signing/verify'].post.responses['200']);
    expect(schema).toContain('invalid_service_signature');
    expect(schema).toContain('signatures_examined');
  });
});

describe('verify bounds the signatures it examines', () => {
  it('10 MB with 300 /ByteRange entries each covering nearly the whole file: a clear answer, few examined, bounded time and memory', async () => {
    const [seal] = findSignatures(sealed);
    const hex = seal!.cms.toString('hex');
    const SIZE = 10_000_000;
    const head = Buffer.from('%PDF-1.7\n% 300 signatures\n', 'latin1');
    const contents = Buffer.from(`<${hex}>`, 'latin1');
    const lt = head.length;
    const gt = lt + contents.length;
    const entries = Array.from({ length: 300 }, (_, i) => `<< /Type /Sig /ByteRange [0 ${lt} ${gt} ${SIZE - gt - i * 7}] /Reason (r${i}) >>\n`).join('');
    const file = Buffer.alloc(SIZE, 0x20);
    head.copy(file, 0);
    contents.copy(file, lt);
    Buffer.from(entries, 'latin1').copy(file, gt + 16);
    Buffer.from('\n%%EOF\n', 'latin1').copy(file, SIZE - 7);

    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 10);
    const r = await verify(file);
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    const growthMb = (rssPeak - rssBefore) / 1024 / 1024;
    console.log(`300 /ByteRange entries: ${r.ms.toFixed(0)} ms, ${r.body.data?.signatures_examined} examined, RSS +${growthMb.toFixed(0)} MB`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ signatures_found: 300, signed_by_service: false, invalid_service_signature: true, signature_valid: false, document: null });
    expect(r.body.data.signatures_examined).toBeGreaterThan(0);
    expect(r.body.data.signatures_examined).toBeLessThanOrEqual(16);
    expect(r.ms).toBeLessThan(10_000);
    // The request itself holds the 10 MB upload a few times over (multipart, the latin1 scan); 300 copies of
    // the covered bytes would be 3 GB.
    expect(growthMb).toBeLessThan(300);
  }, 60_000);
});
