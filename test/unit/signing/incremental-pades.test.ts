/**
 * Incremental PAdES (domain/signing/incremental, issue 29): two signers sign a PDF in turn, each signature an
 * incremental update, the signed attributes signed with node:crypto as the browser does with the e.firma key.
 * Debian's `pdfsig` and `qpdf --check` judge the files (skipped with a printed reason when absent).
 * Everything is made here: a CA and two signer certificates with the openssl CLI, the PDF with pdf-lib.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { createPrivateKey, sign as cryptoSign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { addSignaturePlaceholder, assembleCms, buildSignedAttributes, embedCms, toIncrementalBase } from '../../../domain/signing/incremental/index.ts';
import { SigningError } from '../../../domain/signing/errors.ts';

const haveOpenssl = spawnSync('openssl', ['version']).status === 0;
const havePdfsig = spawnSync('pdfsig', ['-v']).status !== null && spawnSync('which', ['pdfsig']).status === 0;
const haveQpdf = spawnSync('qpdf', ['--version']).status === 0;
if (!haveOpenssl) console.log('skip: openssl is not installed (the test PKI is made with it)');
if (!havePdfsig) console.log('skip pdfsig checks: pdfsig (poppler-utils) is not installed');
if (!haveQpdf) console.log('skip qpdf checks: qpdf is not installed');

const dir = mkdtempSync(join(tmpdir(), 'sello-incremental-'));
const o = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

interface TestCert {
  cn: string;
  der: Buffer;
  pem: string;
  key: ReturnType<typeof createPrivateKey>;
  keyPkcs8: Buffer;
}

/** A certificate issued by the test CA (`ca` = the CA itself). */
function makeCert(name: string, cn: string, ca = false): TestCert {
  if (ca) {
    o(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '30', '-utf8', '-subj', `/CN=${cn}/O=Sello pruebas/C=MX`,
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  } else {
    o(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-utf8', '-subj', `/CN=${cn}/C=MX`]);
    writeFileSync(join(dir, `${name}.ext`), 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n');
    o(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '30', '-sha256', '-extfile', `${name}.ext`, '-out', `${name}.pem`]);
  }
  const key = createPrivateKey(readFileSync(join(dir, `${name}.key`)));
  return {
    cn,
    der: o(['x509', '-in', `${name}.pem`, '-outform', 'DER']),
    pem: join(dir, `${name}.pem`),
    key,
    keyPkcs8: key.export({ format: 'der', type: 'pkcs8' }) as Buffer,
  };
}

async function makePdf(pages: number, useObjectStreams = false): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) doc.addPage([595.28, 841.89]).drawText(`Contrato de arrendamiento, pagina ${i + 1}`, { x: 50, y: 780, size: 14, font });
  return Buffer.from(await doc.save({ useObjectStreams }));
}

/** What the signing page does with the e.firma key: RSASSA-PKCS1-v1_5 SHA-256 over the DER signed attributes. */
async function signAsBrowser(pdf: Buffer, signer: TestCert, chain: Buffer[], fieldName: string, page: number, rect: [number, number, number, number], signingTime: Date): Promise<Buffer> {
  const p = await addSignaturePlaceholder(pdf, { fieldName, page, rect, name: signer.cn, reason: 'Firma del contrato', location: 'Ciudad de México', signingTime });
  const signedAttributes = buildSignedAttributes({ digest: p.digest, certificate: signer.der, signingTime });
  const signature = cryptoSign('sha256', signedAttributes, signer.key);
  return embedCms(p, assembleCms({ signedAttributes, signature, certificate: signer.der, chain }));
}

function pdfsig(pdf: Buffer, name: string): string {
  const f = join(dir, name);
  writeFileSync(f, pdf);
  const r = spawnSync('pdfsig', ['-nocert', f], { encoding: 'utf8' });
  return `${r.stdout}\n${r.stderr}`;
}

function qpdfCheck(pdf: Buffer, name: string): { status: number | null; output: string } {
  const f = join(dir, name);
  writeFileSync(f, pdf);
  const r = spawnSync('qpdf', ['--check', f], { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

/** pdfsig's block for signature `n` (1-based). */
function block(out: string, n: number): string {
  return out.split(/^Signature #/m)[n] ?? '';
}

let ca: TestCert;
let ana: TestCert;
let beto: TestCert;

describe.skipIf(!haveOpenssl)('incremental PAdES', () => {
  beforeAll(() => {
    ca = makeCert('ca', 'AC PRUEBAS SELLO', true);
    ana = makeCert('ana', 'ANA MARÍA LÓPEZ PÉREZ');
    beto = makeCert('beto', 'ROBERTO GÓMEZ DÍAZ');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('two signers in turn: each signature an incremental update, both valid, the first not covering the whole file', async () => {
    const original = await makePdf(2);
    const base = await toIncrementalBase(original);
    const t1 = new Date('2026-03-01T10:00:00Z');
    const one = await signAsBrowser(base, ana, [ca.der], 'efirma_ana', 1, [50, 50, 250, 110], t1);
    expect(one.subarray(0, base.length).equals(base)).toBe(true);
    const two = await signAsBrowser(one, beto, [ca.der], 'efirma_beto', 2, [300, 50, 500, 110], new Date('2026-03-01T11:00:00Z'));
    expect(two.subarray(0, one.length).equals(one)).toBe(true);
    // The file is still a readable PDF with the content of the original.
    expect((await PDFDocument.load(two)).getPageCount()).toBe(2);
    if (haveQpdf) {
      const q = qpdfCheck(two, 'two.pdf');
      expect(q.output).toContain('No syntax or stream encoding errors found');
      expect(q.status, q.output).toBe(0);
    }
    if (havePdfsig) {
      const out = pdfsig(two, 'two.pdf');
      console.log(out);
      const [s1, s2] = [block(out, 1), block(out, 2)];
      expect(s1).toContain('Signature Field Name: efirma_ana');
      expect(s1).toContain('Signer Certificate Common Name: ANA MARÍA LÓPEZ PÉREZ');
      expect(s1).toContain('Signature Type: ETSI.CAdES.detached');
      expect(s1).toContain('Signature Validation: Signature is Valid.');
      expect(s1).toContain('Not total document signed');
      expect(s1).toContain('Signing Time: Mar 01 2026 10:00:00');
      expect(s2).toContain('Signer Certificate Common Name: ROBERTO GÓMEZ DÍAZ');
      expect(s2).toContain('Signature Validation: Signature is Valid.');
      expect(s2).toContain('Total document signed');
      expect(s2).not.toContain('Not total document signed');
      // One byte flipped inside the range the first signature covers (a digit of the first page's /MediaBox).
      const flipped = Buffer.from(two);
      const at = base.indexOf('595.28') + 1;
      expect(at).toBeGreaterThan(0);
      expect(at).toBeLessThan(Number(/\[0 - (\d+)\]/.exec(s1)![1]));
      flipped[at] = flipped[at]! ^ 0x01;
      expect(block(pdfsig(flipped, 'flipped.pdf'), 1)).toContain('Digest Mismatch');
    }
  });

  it('a PDF saved with object streams and an xref stream is signed after toIncrementalBase', async () => {
    const original = await makePdf(1, true);
    expect(original.includes(Buffer.from('/ObjStm'))).toBe(true);
    await expect(addSignaturePlaceholder(original, { fieldName: 's', page: 1, rect: [0, 0, 0, 0], name: 'x', reason: 'x', signingTime: new Date() })).rejects.toThrow(/toIncrementalBase/);
    const base = await toIncrementalBase(original);
    expect(base.includes(Buffer.from('/ObjStm'))).toBe(false);
    const signed = await signAsBrowser(base, ana, [ca.der], 'efirma_ana', 1, [0, 0, 0, 0], new Date());
    if (havePdfsig) {
      const out = pdfsig(signed, 'objstm.pdf');
      expect(out).toContain('Signature is Valid.');
      expect(out).toContain('Total document signed');
    }
    if (haveQpdf) expect(qpdfCheck(signed, 'objstm.pdf').status).toBe(0);
  });

  it('assembleCms refuses a signature made with another key (efirma_signature_invalid, 422)', async () => {
    const p = await addSignaturePlaceholder(await toIncrementalBase(await makePdf(1)), { fieldName: 'f', page: 1, rect: [0, 0, 0, 0], name: ana.cn, reason: 'r', signingTime: new Date() });
    const signedAttributes = buildSignedAttributes({ digest: p.digest, certificate: ana.der, signingTime: new Date() });
    const byBeto = cryptoSign('sha256', signedAttributes, beto.key);
    let error: unknown;
    try {
      assembleCms({ signedAttributes, signature: byBeto, certificate: ana.der, chain: [ca.der] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SigningError);
    expect((error as SigningError).code).toBe('efirma_signature_invalid');
    expect((error as SigningError).status).toBe(422);
    // Attributes naming Ana's certificate, signed by Beto and presented with Beto's certificate: refused too.
    expect(() => assembleCms({ signedAttributes, signature: byBeto, certificate: beto.der, chain: [] })).toThrow(SigningError);
  });

  it('embedCms refuses a CMS larger than the placeholder; the page and field name are checked', async () => {
    const base = await toIncrementalBase(await makePdf(1));
    const p = await addSignaturePlaceholder(base, { fieldName: 'f', page: 1, rect: [0, 0, 0, 0], name: 'n', reason: 'r', signingTime: new Date(), contentsBytes: 1024 });
    expect(p.byteRange[2] - p.byteRange[1]).toBe(1024 * 2 + 2);
    expect(() => embedCms(p, Buffer.alloc(1025, 1))).toThrow(/does not fit/);
    expect(embedCms(p, Buffer.alloc(1024, 0xab)).length).toBe(p.pdf.length);
    await expect(addSignaturePlaceholder(base, { fieldName: 'f', page: 2, rect: [0, 0, 0, 0], name: 'n', reason: 'r', signingTime: new Date() })).rejects.toMatchObject({ code: 'invalid_placement' });
    await expect(addSignaturePlaceholder(p.pdf, { fieldName: 'f', page: 1, rect: [0, 0, 0, 0], name: 'n', reason: 'r', signingTime: new Date() })).rejects.toThrow(/already exists/);
  });
});
