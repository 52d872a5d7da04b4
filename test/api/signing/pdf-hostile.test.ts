/**
 * Hostile PDFs at intake and on the page-image routes, over HTTP (issue 31, items 1 and 8), with files the
 * test makes itself (`test/helpers/hostile-pdf.ts`):
 * - one tenant's costly PDFs (200 pages sharing one stream of 60,000 text operators; a 14,400-point page
 *   whose stream strokes the same wide line 2,000 times) get a clear 422 `pdf_too_complex`, and meanwhile
 *   another tenant's `GET /v1/credits/balance` keeps answering (the PDF work runs on PDF threads);
 * - active content, embedded files and earlier signatures are refused with their 422 codes, wherever the
 *   object sits (in an object stream too), while a plain PDF is accepted.
 * Debian's qpdf reads each crafted file without error first (so the refusal is about content, not
 * damage), and pdfsig sees the signature of the signed one. Latency targets are the benchmark's
 * (bench/pdf-isolation.bench.ts); the bounds here only catch a blocked event loop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, PDFName, PDFString, StandardFonts } from 'pdf-lib';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { haveValidators, makePdf, pdfsig, qpdfCheck } from '../../helpers/signing.ts';
import { hugePagePdf, pdfWithCopiedSignature, plainPdf, sharedHeavyStreamPdf } from '../../helpers/hostile-pdf.ts';

let s: TestServer;
let attacker: { key: string; tenantId: string };
let victim: { key: string; tenantId: string };
const tmp = mkdtempSync(join(tmpdir(), 'sello-hostile-'));

beforeAll(async () => {
  s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 } });
  attacker = await s.tenantWithKey('pro');
  victim = await s.tenantWithKey('pro');
  await s.setLimits(attacker.tenantId, null, null);
  await s.setLimits(victim.tenantId, null, null);
});
afterAll(async () => {
  await s?.close();
});

async function upload(pdf: Buffer, key = attacker.key) {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'hostile.pdf');
  form.set('title', 'Hostile');
  form.set('signers', JSON.stringify([{ email: 'ana@example.com', name: 'Ana' }]));
  const started = Date.now();
  const r = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key });
  return { status: r.status, body: (await r.json()) as any, ms: Date.now() - started, cost: r.headers.get('x-credit-cost') };
}

/**
 * Polls the victim's balance every 25 ms while `work` runs; resolves with `work`'s result and the slowest
 * balance answer in ms (and how many were made).
 */
async function whileVictimPolls<T>(work: () => Promise<T>): Promise<{ result: T; slowestMs: number; calls: number }> {
  let done = false;
  let slowest = 0;
  let calls = 0;
  const poller = (async () => {
    while (!done) {
      const t = performance.now();
      const r = await s.fetch('/v1/credits/balance', { key: victim.key });
      expect(r.status).toBe(200);
      await r.arrayBuffer();
      slowest = Math.max(slowest, performance.now() - t);
      calls += 1;
      await new Promise((res) => setTimeout(res, 25));
    }
  })();
  try {
    const result = await work();
    return { result, slowestMs: slowest, calls };
  } finally {
    done = true;
    await poller;
  }
}

function validPdfFile(name: string, pdf: Buffer): string {
  const file = join(tmp, name);
  writeFileSync(file, pdf);
  if (haveValidators()) {
    const q = qpdfCheck(file);
    expect(q.output, name).toContain('No syntax or stream encoding errors found');
    expect(q.status, `${name}: ${q.output}`).toBe(0);
  }
  return file;
}

describe('costly PDFs: a clear 422, and other tenants keep their latency', () => {
  it('200 pages sharing one heavy stream of text operators: 422 pdf_too_complex (content bound), not charged', async () => {
    const pdf = sharedHeavyStreamPdf(200, 60_000);
    expect(pdf.length).toBeLessThan(64 * 1024);
    // qpdf --check reads every page's content (55 s for the 200 pages here): check the same structure on 3.
    validPdfFile('shared-3.pdf', sharedHeavyStreamPdf(3, 60_000));
    const { result: r, slowestMs, calls } = await whileVictimPolls(() => upload(pdf));
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body.error).toMatchObject({ code: 'pdf_too_complex', details: { reason: 'content_size', max_content_bytes: 8 * 1024 * 1024 } });
    expect(r.cost).not.toBe('5');
    expect(r.ms).toBeLessThan(15_000);
    console.log(`shared heavy stream: 422 in ${r.ms} ms; victim balance slowest ${slowestMs.toFixed(0)} ms over ${calls} calls`);
    expect(calls).toBeGreaterThan(0);
    expect(slowestMs).toBeLessThan(1_000);
  }, 60_000);

  it('the same huge page drawing its line 400,000 times (22 KB; 20 minutes of silence before): 422 pdf_too_complex at intake', async () => {
    const pdf = hugePagePdf(400_000);
    expect(pdf.length).toBeLessThan(64 * 1024);
    const r = await upload(pdf);
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body.error).toMatchObject({ code: 'pdf_too_complex', details: { reason: 'content_size' } });
  }, 60_000);

  it('a huge page drawing one wide line 2,000 times: accepted (cheap to read), its page image is a 422 past the render deadline, remembered', async () => {
    const pdf = hugePagePdf(2_000);
    validPdfFile('huge.pdf', pdf);
    const created = await upload(pdf);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.document_id as string;
    const pv = (await (await s.fetch(`/v1/signing/documents/${id}/public-preview`, { key: attacker.key })).json()) as any;
    const url = new URL(pv.data.preview_url);
    const pageUrl = `${s.url}/sign/preview/${id}/pages/1.png${url.search}`;
    const { result, slowestMs, calls } = await whileVictimPolls(async () => {
      const t = Date.now();
      const r = await fetch(pageUrl);
      return { status: r.status, text: await r.text(), ms: Date.now() - t };
    });
    expect(result.status, result.text).toBe(422);
    expect(result.text).toContain('too complex');
    // 5 s of the PDF thread's CPU, or 15 s of wall time on a machine too busy to give it that (plus a thread
    // start after the previous test's termination)
    expect(result.ms).toBeLessThan(40_000);
    console.log(`huge page render: 422 in ${result.ms} ms; victim balance slowest ${slowestMs.toFixed(0)} ms over ${calls} calls`);
    expect(calls).toBeGreaterThan(3);
    expect(slowestMs).toBeLessThan(1_000);
    // Asked again: answered from the remembered failure, without rendering.
    const t = Date.now();
    const again = await fetch(pageUrl);
    expect(again.status).toBe(422);
    expect(Date.now() - t).toBeLessThan(2_000);
  }, 90_000);

  it('an ordinary PDF is still accepted and its page rendered', async () => {
    const created = await upload(await makePdf(2), victim.key);
    expect(created.status).toBe(201);
    const id = created.body.data.document_id as string;
    const pv = (await (await s.fetch(`/v1/signing/documents/${id}/public-preview`, { key: victim.key })).json()) as any;
    const url = new URL(pv.data.preview_url);
    const r = await fetch(`${s.url}/sign/preview/${id}/pages/2.png${url.search}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await r.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
  }, 60_000);
});

/** A pdf-lib document (saved with object streams: the catalog entries end up compressed). */
async function pdfLibWith(edit: (doc: PDFDocument) => void): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([595, 842]).drawText('Contrato', { x: 72, y: 760, size: 12, font });
  edit(doc);
  return Buffer.from(await doc.save({ useObjectStreams: true }));
}

describe('intake refuses active content, embedded files and earlier signatures (422)', () => {
  const cases: Array<[string, () => Buffer | Promise<Buffer>, string, string]> = [
    ['OpenAction JavaScript', () => plainPdf('/OpenAction << /S /JavaScript /JS (app.alert\\("hi"\\)) >>'), 'pdf_active_content', 'javascript'],
    ['a page\'s additional action running JavaScript', () => plainPdf('', [], '/AA << /O << /S /JavaScript /JS (this.print\\(\\)) >> >>'), 'pdf_active_content', 'javascript'],
    ['a JavaScript name tree', () => plainPdf('/Names << /JavaScript << /Names [(init) 6 0 R] >> >>', ['<< /S /JavaScript /JS (1) >>']), 'pdf_active_content', 'javascript'],
    ['a Launch action', () => plainPdf('/OpenAction << /S /Launch /F (cmd.exe) >>'), 'pdf_active_content', 'launch'],
    [
      'OpenAction JavaScript inside an object stream (pdf-lib)',
      () =>
        pdfLibWith((doc) => {
          doc.catalog.set(PDFName.of('OpenAction'), doc.context.obj({ S: 'JavaScript', JS: PDFString.of('app.alert(1)') }));
        }),
      'pdf_active_content',
      'javascript',
    ],
    [
      'an embedded executable (EmbeddedFiles name tree)',
      () => plainPdf('/Names << /EmbeddedFiles << /Names [(setup.exe) 6 0 R] >> >>', ['<< /Type /Filespec /F (setup.exe) /UF (setup.exe) /EF << /F 7 0 R >> >>', { dict: '/Type /EmbeddedFile /Subtype /application#2Fx-msdownload', stream: 'MZ\x90\x00\x03' }]),
      'pdf_embedded_file',
      'embedded_file',
    ],
    [
      'a file-attachment annotation',
      () => plainPdf('', ['<< /Type /Annot /Subtype /FileAttachment /Rect [72 600 92 620] /FS << /Type /Filespec /F (a.txt) >> /Contents (a) >>'], '/Annots [6 0 R]'),
      'pdf_embedded_file',
      'file_attachment',
    ],
    ['an unsigned signature field', () => plainPdf('/AcroForm << /Fields [6 0 R] >>', ['<< /Type /Annot /Subtype /Widget /FT /Sig /T (Signature1) /Rect [72 100 272 140] /P 3 0 R >>'], '/Annots [6 0 R]'), 'pdf_already_signed', 'signature_field'],
    ['a signed PDF (a /ByteRange and a /Sig value)', () => pdfWithCopiedSignature(Buffer.from('3082000a06092a864886f70d010702', 'hex')), 'pdf_already_signed', 'signature'],
  ];
  for (const [name, make, code, kind] of cases) {
    it(`${name}: ${code}`, async () => {
      const pdf = await make();
      const file = validPdfFile(`${code}-${kind}.pdf`, pdf);
      if (kind === 'signature' && haveValidators()) expect(pdfsig(file)).toMatch(/Signature #1/);
      const r = await upload(pdf);
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(r.body.success).toBe(false);
      expect(r.body.error.code).toBe(code);
      expect(r.body.error.details.found.map((f: any) => f.kind)).toContain(kind);
      expect(r.cost).not.toBe('5');
    }, 30_000);
  }

  it('the same files without the active parts are accepted', async () => {
    expect((await upload(plainPdf())).status).toBe(201);
    const withUri = await pdfLibWith((doc) => {
      const page = doc.getPage(0);
      const link = doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [72, 700, 200, 720], A: { S: 'URI', URI: PDFString.of('https://example.com') } }));
      page.node.set(PDFName.of('Annots'), doc.context.obj([link]));
    });
    expect((await upload(withUri)).status).toBe(201);
  }, 30_000);
});
