/**
 * Incremental PAdES (domain/signing/incremental, issue 29): two e.firma signers sign a PDF in turn, each
 * signature an incremental update, the signed attributes signed with node:crypto as the browser does with
 * the decrypted `.key`; then Sello's seal (B-T), the DSS (B-LT) and a document time-stamp (B-LTA).
 * Debian's `pdfsig` and `qpdf --check` judge the files (skipped with a printed reason when absent).
 * Everything is made here: the SAT-shaped test PKI of test/helpers/efirma-pki.ts (root, intermediate,
 * FIEL certificates, `openssl ocsp` responder, `openssl ts -reply` TSA), the PDF with pdf-lib.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash, createPrivateKey, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRawStream, StandardFonts, decodePDFRawStream } from 'pdf-lib';
import { addDocumentTimestamp, addDss, addSignaturePlaceholder, appendPages, assembleCms, buildSignedAttributes, embedCms, sealIncremental, toIncrementalBase, verifyDocumentTimestamp } from '../../../domain/signing/incremental/index.ts';
import { checkSignature, derPrefix, findSignatures, type PadesKey } from '../../../domain/signing/pades.ts';
import { SigningError } from '../../../domain/signing/errors.ts';
import { createTestPki, haveOpenssl, type LocalService, type TestPki, type TestSigner } from '../../helpers/efirma-pki.ts';

const havePdfsig = spawnSync('which', ['pdfsig']).status === 0;
const haveQpdf = spawnSync('qpdf', ['--version']).status === 0;
if (!haveOpenssl) console.log('skip: openssl is not installed (the test PKI is made with it)');
if (!havePdfsig) console.log('skip pdfsig checks: `which pdfsig` finds nothing (Debian: poppler-utils)');
if (!haveQpdf) console.log('skip qpdf checks: qpdf is not installed');

const dir = mkdtempSync(join(tmpdir(), 'sello-incremental-'));
const o = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

/** A certificate holder with the key decrypted (what the signing page does with the `.key` and password). */
interface Holder {
  cn: string;
  der: Buffer;
  pem: string;
  key: KeyObject;
  keyPkcs8: Buffer;
}

function holder(s: TestSigner): Holder {
  const key = createPrivateKey({ key: s.key, format: 'der', type: 'pkcs8', passphrase: s.password });
  return { cn: s.name, der: s.cer, pem: s.pemPath, key, keyPkcs8: key.export({ format: 'der', type: 'pkcs8' }) as Buffer };
}

async function makePdf(pages: number, useObjectStreams = false): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) doc.addPage([595.28, 841.89]).drawText(`Contrato de arrendamiento, pagina ${i + 1}`, { x: 50, y: 780, size: 14, font });
  return Buffer.from(await doc.save({ useObjectStreams }));
}

/** What the signing page does with the e.firma key: RSASSA-PKCS1-v1_5 SHA-256 over the DER signed attributes. */
async function signAsBrowser(pdf: Buffer, signer: Holder, chain: Buffer[], fieldName: string, page: number, rect: [number, number, number, number], signingTime: Date): Promise<Buffer> {
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

/**
 * A DER OCSPResponse about `cert` from the test PKI's responder (`openssl ocsp -url` as the client; run
 * asynchronously: the responder is an HTTP server of this process).
 */
async function ocspResponse(cert: Holder, name: string): Promise<Buffer> {
  await promisify(execFile)('openssl', ['ocsp', '-issuer', 'int.pem', '-cert', cert.pem, '-url', ocsp.url, '-no_nonce', '-noverify', '-respout', `${name}.ocsp`], { cwd: dir, timeout: 30_000 });
  return readFileSync(join(dir, `${name}.ocsp`));
}

/** The /Contents bytes of signature field `n` (0-based, AcroForm order). */
function contentsOf(doc: PDFDocument, n: number): Buffer {
  const fields = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict).lookup(PDFName.of('Fields'), PDFArray);
  const v = fields.lookup(n, PDFDict).lookup(PDFName.of('V'), PDFDict);
  return Buffer.from(v.lookup(PDFName.of('Contents'), PDFHexString).asBytes());
}

/** pdfsig's block for signature `n` (1-based). */
function block(out: string, n: number): string {
  return out.split(/^Signature #/m)[n] ?? '';
}

let pki: TestPki;
let ocsp: LocalService;
let tsa: LocalService & { certPath: string };
let ana: Holder;
let beto: Holder;
let sello: Holder;
/** The signers' chain above them: intermediate, root. */
let chain: Buffer[];

describe.skipIf(!haveOpenssl)('incremental PAdES', () => {
  beforeAll(async () => {
    pki = createTestPki();
    ana = holder(pki.makeSigner({ name: 'ANA MARÍA LÓPEZ PÉREZ', rfc: 'LOPA800101AB1', curp: 'LOPA800101MDFPRN09' }));
    beto = holder(pki.makeSigner({ name: 'ROBERTO GÓMEZ DÍAZ', rfc: 'GODR750505XY2', curp: 'GODR750505HDFMZB02' }));
    sello = holder(pki.makeSigner({ name: 'SELLO FIRMA ELECTRONICA PRUEBAS', rfc: 'SFE200101AB1', curp: 'SFEX200101HDFLLL01' }));
    chain = [pki.intermediateDer, pki.rootDer];
    writeFileSync(join(dir, 'int.der'), pki.intermediateDer);
    o(['x509', '-inform', 'DER', '-in', 'int.der', '-out', 'int.pem']);
    ocsp = await pki.startOcsp();
    tsa = await pki.startTsa();
  });
  afterAll(async () => {
    await ocsp?.stop();
    await tsa?.stop();
    pki?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('signer 1, signer 2, seal (B-T), DSS (B-LT), document time-stamp (B-LTA): pdfsig and qpdf accept the result', async () => {
    const base = await toIncrementalBase(await makePdf(2));
    const one = await signAsBrowser(base, ana, chain, 'efirma_ana', 1, [50, 50, 250, 110], new Date('2026-03-01T10:00:00Z'));
    const two = await signAsBrowser(one, beto, chain, 'efirma_beto', 2, [300, 50, 500, 110], new Date('2026-03-01T11:00:00Z'));
    const tsaOptions = { url: tsa.url, timeoutMs: 10_000, attempts: 1 };
    const key: PadesKey = { certificate: sello.der, chain, privateKeyPkcs8: sello.keyPkcs8, subjectName: sello.cn };
    const sealed = await sealIncremental(two, key, { reason: 'Sello: documento doc_123 finalizado', signingTime: new Date('2026-03-01T12:00:00Z'), tsa: tsaOptions });
    expect(sealed.subarray(0, two.length).equals(two)).toBe(true);
    const tsaDer = o(['x509', '-in', tsa.certPath, '-outform', 'DER']);
    const ocspAna = await ocspResponse(ana, 'ana');
    const ocspBeto = await ocspResponse(beto, 'beto');
    const lt = await addDss(sealed, { certificates: [...chain, ana.der, beto.der, sello.der, tsaDer, pki.responderDer], ocspResponses: [ocspAna, ocspBeto] });
    // A second store merges: nothing repeated.
    const lt2 = await addDss(lt, { certificates: [pki.rootDer], ocspResponses: [ocspAna] });
    const lta = await addDocumentTimestamp(lt2, tsaOptions);
    expect(lta.subarray(0, lt2.length).equals(lt2)).toBe(true);

    // The store: every item once, the OCSPs being the whole OCSPResponse, a VRI entry per signature.
    const doc = await PDFDocument.load(lta);
    const dss = doc.catalog.lookup(PDFName.of('DSS'), PDFDict);
    const bytesOf = (arr: PDFArray) => arr.asArray().map((r) => Buffer.from(decodePDFRawStream(doc.context.lookup(r) as PDFRawStream).decode()));
    const dssCerts = bytesOf(dss.lookup(PDFName.of('Certs'), PDFArray));
    const dssOcsps = bytesOf(dss.lookup(PDFName.of('OCSPs'), PDFArray));
    expect(dssCerts.length).toBe(7);
    expect(dssOcsps.map((b) => b.toString('hex')).sort()).toEqual([ocspAna, ocspBeto].map((b) => b.toString('hex')).sort());
    const vri = dss.lookup(PDFName.of('VRI'), PDFDict);
    const vriOf = (n: number) => vri.lookup(PDFName.of(createHash('sha1').update(contentsOf(doc, n)).digest('hex').toUpperCase()), PDFDict);
    const certsIn = (d: PDFDict) => bytesOf(d.lookup(PDFName.of('Cert'), PDFArray)).map((b) => b.toString('hex')).sort();
    expect(certsIn(vriOf(0))).toEqual([...chain, ana.der].map((b) => b.toString('hex')).sort());
    expect(bytesOf(vriOf(0).lookup(PDFName.of('OCSP'), PDFArray))).toEqual([ocspAna]);
    expect(bytesOf(vriOf(1).lookup(PDFName.of('OCSP'), PDFArray))).toEqual([ocspBeto]);
    expect(certsIn(vriOf(2))).toEqual([...chain, sello.der, tsaDer].map((b) => b.toString('hex')).sort()); // the seal's chain and its signature time-stamp's TSA

    // The document time-stamp: an RFC 3161 token over the SHA-256 of its byte range, accepted by openssl.
    const sigs = findSignatures(lta);
    expect(sigs.length).toBe(4);
    const dts = sigs[3]!;
    expect(dts.byteRange[2] + dts.byteRange[3]).toBe(lta.length);
    const digest = createHash('sha256').update(lta.subarray(0, dts.byteRange[1])).update(lta.subarray(dts.byteRange[2])).digest('hex');
    writeFileSync(join(dir, 'dts.der'), derPrefix(contentsOf(doc, 3)));
    const verify = spawnSync('openssl', ['ts', '-verify', '-in', join(dir, 'dts.der'), '-token_in', '-digest', digest, '-CAfile', tsa.certPath, '-untrusted', tsa.certPath], { encoding: 'utf8' });
    expect(`${verify.stdout}${verify.stderr}`).toContain('Verification: OK');
    // verifyDocumentTimestamp agrees, names the TSA's certificate, and sees a byte changed under the token.
    const dtsCheck = await verifyDocumentTimestamp(lta, dts.byteRange, contentsOf(doc, 3));
    expect(dtsCheck).toMatchObject({ valid: true, coversWholeFile: true, error: null, tsaCertificateSha256: createHash('sha256').update(tsaDer).digest('hex') });
    expect(Math.abs(dtsCheck.genTime!.getTime() - Date.now())).toBeLessThan(120_000);
    const changed = Buffer.from(lta);
    changed[lt2.length - 10] = changed[lt2.length - 10]! ^ 0x01;
    expect(await verifyDocumentTimestamp(changed, dts.byteRange, contentsOf(doc, 3))).toMatchObject({ valid: false, error: 'the token imprint does not match the covered bytes' });
    const forged = Buffer.from(derPrefix(contentsOf(doc, 3)));
    forged[forged.length - 1] = forged[forged.length - 1]! ^ 0x01; // the last byte of the TSA's signature value
    expect(await verifyDocumentTimestamp(lta, dts.byteRange, forged)).toMatchObject({ valid: false, error: 'the TSA signature does not verify' });
    // Our own verifier (what /v1/signing/verify runs) agrees on the three CAdES signatures.
    for (const sig of sigs.slice(0, 3)) expect((await checkSignature(lta, sig)).error).toBeNull();
    expect((await checkSignature(lta, sigs[2]!)).timestamp).not.toBeNull();

    if (haveQpdf) {
      const q = qpdfCheck(lta, 'lta.pdf');
      expect(q.status, q.output).toBe(0);
    }
    if (havePdfsig) {
      const out = pdfsig(lta, 'lta.pdf');
      console.log(out);
      const blocks = [1, 2, 3, 4].map((n) => block(out, n));
      expect(blocks[0]).toContain('Signer Certificate Common Name: ANA MARÍA LÓPEZ PÉREZ');
      expect(blocks[1]).toContain('Signer Certificate Common Name: ROBERTO GÓMEZ DÍAZ');
      expect(blocks[2]).toContain('Signer Certificate Common Name: SELLO FIRMA ELECTRONICA PRUEBAS');
      // The document time-stamp: poppler 22.12 (Debian 12) names its TSA but does not validate ETSI.RFC3161
      // ("Signature Type: unknown", "Unable to validate this type of signature"); openssl did above.
      expect(blocks[3]).toContain('Signature Field Name: DocTimeStamp');
      expect(blocks[3]).toContain('Signer Certificate Common Name: Sello test TSA');
      if (/Signature Type: ETSI\.RFC3161/.test(blocks[3]!)) expect(blocks[3]).toContain('Signature is Valid.');
      else expect(out).toContain('Unable to validate this type of signature');
      for (const b of blocks.slice(0, 3)) {
        expect(b).toContain('Signature Validation: Signature is Valid.');
        expect(b).toContain('Not total document signed');
      }
      expect(blocks[3]).toContain('Total document signed');
      expect(blocks[3]).not.toContain('Not total document signed');
      const flipped = Buffer.from(lta);
      const at = base.indexOf('595.28') + 1;
      flipped[at] = flipped[at]! ^ 0x01;
      expect(block(pdfsig(flipped, 'lta-flipped.pdf'), 1)).toContain('Digest Mismatch');
    }
  });

  it('two signers in turn: each signature an incremental update, both valid, the first not covering the whole file', async () => {
    const original = await makePdf(2);
    const base = await toIncrementalBase(original);
    const t1 = new Date('2026-03-01T10:00:00Z');
    const one = await signAsBrowser(base, ana, chain, 'efirma_ana', 1, [50, 50, 250, 110], t1);
    expect(one.subarray(0, base.length).equals(base)).toBe(true);
    const two = await signAsBrowser(one, beto, chain, 'efirma_beto', 2, [300, 50, 500, 110], new Date('2026-03-01T11:00:00Z'));
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

  it('pages appended after a signature (the certificate of completion) leave it valid; the seal after them covers the whole file', async () => {
    const base = await toIncrementalBase(await makePdf(1));
    const signed = await signAsBrowser(base, ana, chain, 'efirma_ana', 1, [50, 50, 250, 110], new Date('2026-03-01T10:00:00Z'));
    const withPages = await appendPages(signed, await makePdf(2));
    expect(withPages.subarray(0, signed.length).equals(signed)).toBe(true); // an update: the signed bytes are kept
    expect((await PDFDocument.load(withPages)).getPageCount()).toBe(3);
    const key: PadesKey = { certificate: sello.der, chain, privateKeyPkcs8: sello.keyPkcs8, subjectName: sello.cn };
    const sealed = await sealIncremental(withPages, key, { reason: 'Sello: certificado de conclusión', signingTime: new Date('2026-03-01T12:00:00Z') });
    const sigs = findSignatures(sealed);
    expect(sigs).toHaveLength(2);
    for (const sig of sigs) expect((await checkSignature(sealed, sig)).valid).toBe(true);
    if (havePdfsig) {
      const out = pdfsig(sealed, 'appended-pages.pdf');
      expect(out.match(/Signature is Valid/g)).toHaveLength(2);
      const [first, second] = out.split(/Signature #2/);
      expect(first).toContain(ana.cn);
      expect(first).toContain('Not total document signed');
      expect(second).toContain('Total document signed');
    }
    if (haveQpdf) expect(qpdfCheck(sealed, 'appended-pages.pdf').output).toContain('No syntax or stream encoding errors found');
  });

  it('a PDF saved with object streams and an xref stream is signed after toIncrementalBase', async () => {
    const original = await makePdf(1, true);
    expect(original.includes(Buffer.from('/ObjStm'))).toBe(true);
    await expect(addSignaturePlaceholder(original, { fieldName: 's', page: 1, rect: [0, 0, 0, 0], name: 'x', reason: 'x', signingTime: new Date() })).rejects.toThrow(/toIncrementalBase/);
    const base = await toIncrementalBase(original);
    expect(base.includes(Buffer.from('/ObjStm'))).toBe(false);
    const signed = await signAsBrowser(base, ana, chain, 'efirma_ana', 1, [0, 0, 0, 0], new Date());
    if (havePdfsig) {
      const out = pdfsig(signed, 'objstm.pdf');
      expect(out).toContain('Signature is Valid.');
      expect(out).toContain('Total document signed');
    }
    if (haveQpdf) expect(qpdfCheck(signed, 'objstm.pdf').status).toBe(0);
  });

  it('a PDF with a form keeps its AcroForm entries and fields; a third signer adds a third field', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const field = doc.getForm().createTextField('nombre');
    field.setText('Ana María');
    field.addToPage(doc.getPage(0), { x: 50, y: 700, width: 200, height: 20 });
    const base = await toIncrementalBase(Buffer.from(await doc.save({ useObjectStreams: false })));
    const keysBefore = (await PDFDocument.load(base)).catalog.lookup(PDFName.of('AcroForm'), PDFDict).keys().map(String);
    let pdf = base;
    for (const [i, who] of [ana, beto, sello].entries()) pdf = await signAsBrowser(pdf, who, chain, `firma_${i + 1}`, 1, [50 + i * 150, 50, 190 + i * 150, 100], new Date());
    const after = await PDFDocument.load(pdf);
    const acro = after.catalog.lookup(PDFName.of('AcroForm'), PDFDict);
    expect(acro.keys().map(String)).toEqual(expect.arrayContaining(keysBefore));
    expect(after.getForm().getFields().map((f) => f.getName())).toEqual(['nombre', 'firma_1', 'firma_2', 'firma_3']);
    expect(after.getForm().getTextField('nombre').getText()).toBe('Ana María');
    expect(after.getPage(0).node.Annots()!.size()).toBe(4);
    if (havePdfsig) {
      const out = pdfsig(pdf, 'form.pdf');
      expect(out.match(/Signature is Valid\./g)?.length).toBe(3);
      expect(out.match(/Not total document signed/g)?.length).toBe(2);
    }
    if (haveQpdf) expect(qpdfCheck(pdf, 'form.pdf').status).toBe(0);
  });

  it('addDss stores CRLs and names them in the VRI of the signatures their issuer certified; refuses items that are not what they claim', async () => {
    // A CRL of the signers' issuer (the test PKI's intermediate key), made with `openssl ca -gencrl` on a database of our own.
    writeFileSync(join(dir, 'crl-index.txt'), '');
    writeFileSync(join(dir, 'crl.cnf'), `[ ca ]\ndefault_ca = crl\n[ crl ]\ndatabase = ${dir}/crl-index.txt\ncrlnumber = ${dir}/crlnumber\ndefault_md = sha256\ndefault_crl_days = 1\n`);
    writeFileSync(join(dir, 'crlnumber'), '01\n');
    o(['ca', '-gencrl', '-config', 'crl.cnf', '-keyfile', join(pki.dir, 'int.key'), '-cert', 'int.pem', '-out', 'int.crl']);
    const crl = o(['crl', '-in', 'int.crl', '-outform', 'DER']);
    const signed = await signAsBrowser(await toIncrementalBase(await makePdf(1)), ana, chain, 'efirma_ana', 1, [0, 0, 0, 0], new Date());
    const lt = await addDss(signed, { certificates: chain, ocspResponses: [], crls: [crl] });
    const doc = await PDFDocument.load(lt);
    const dss = doc.catalog.lookup(PDFName.of('DSS'), PDFDict);
    const entry = dss.lookup(PDFName.of('VRI'), PDFDict).lookup(PDFName.of(createHash('sha1').update(contentsOf(doc, 0)).digest('hex').toUpperCase()), PDFDict);
    const crlRef = dss.lookup(PDFName.of('CRLs'), PDFArray).get(0);
    expect(Buffer.from(decodePDFRawStream(doc.context.lookup(crlRef) as PDFRawStream).decode())).toEqual(crl);
    expect(entry.lookup(PDFName.of('CRL'), PDFArray).asArray()).toEqual([crlRef]);
    expect(entry.get(PDFName.of('OCSP'))).toBeUndefined();
    if (havePdfsig) expect(pdfsig(lt, 'crl.pdf')).toContain('Signature is Valid.');
    await expect(addDss(signed, { certificates: [], ocspResponses: [ana.der] })).rejects.toThrow(/ocspResponses\[0\] is not a successful DER OCSPResponse/);
    await expect(addDss(signed, { certificates: [crl], ocspResponses: [] })).rejects.toThrow(/certificates\[0\] is not a DER X.509 certificate/);
    await expect(addDss(signed, { certificates: [], ocspResponses: [], crls: [ana.der] })).rejects.toThrow(/crls\[0\] is not a DER CRL/);
  });

  it('assembleCms refuses a signature made with another key (efirma_signature_invalid, 422)', async () => {
    const p = await addSignaturePlaceholder(await toIncrementalBase(await makePdf(1)), { fieldName: 'f', page: 1, rect: [0, 0, 0, 0], name: ana.cn, reason: 'r', signingTime: new Date() });
    const signedAttributes = buildSignedAttributes({ digest: p.digest, certificate: ana.der, signingTime: new Date() });
    const byBeto = cryptoSign('sha256', signedAttributes, beto.key);
    let error: unknown;
    try {
      assembleCms({ signedAttributes, signature: byBeto, certificate: ana.der, chain: chain });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SigningError);
    expect((error as SigningError).code).toBe('efirma_signature_invalid');
    expect((error as SigningError).status).toBe(422);
    // Attributes naming Ana's certificate, signed by Beto and presented with Beto's certificate: refused too.
    expect(() => assembleCms({ signedAttributes, signature: byBeto, certificate: beto.der, chain: [] })).toThrow(SigningError);
  });

  it('embedCms refuses a CMS larger than the placeholder or made for another placeholder; the page and field name are checked', async () => {
    const base = await toIncrementalBase(await makePdf(1));
    /** A CMS by Ana over placeholder `q`'s bytes. */
    const cmsFor = (q: { digest: Buffer }, withChain = true) => {
      const signedAttributes = buildSignedAttributes({ digest: q.digest, certificate: ana.der, signingTime: new Date() });
      return assembleCms({ signedAttributes, signature: cryptoSign('sha256', signedAttributes, ana.key), certificate: ana.der, chain: withChain ? chain : [] });
    };
    const small = await addSignaturePlaceholder(base, { fieldName: 'f', page: 1, rect: [0, 0, 0, 0], name: 'n', reason: 'r', signingTime: new Date(), contentsBytes: 1024 });
    expect(small.byteRange[2] - small.byteRange[1]).toBe(1024 * 2 + 2);
    const big = cmsFor(small);
    expect(big.length).toBeGreaterThan(1024);
    expect(() => embedCms(small, big)).toThrow(/does not fit the placeholder/);
    const p = await addSignaturePlaceholder(base, { fieldName: 'f', page: 1, rect: [0, 0, 0, 0], name: 'n', reason: 'r', signingTime: new Date(Date.now() + 1000) });
    expect(p.digest.equals(small.digest)).toBe(false);
    expect(() => embedCms(p, cmsFor(small))).toThrow(/does not sign the bytes of this placeholder/);
    expect(() => embedCms(p, Buffer.alloc(100, 0xab))).toThrow(/not a DER ContentInfo/);
    expect(embedCms(p, cmsFor(p)).length).toBe(p.pdf.length);
    await expect(addSignaturePlaceholder(base, { fieldName: 'f', page: 2, rect: [0, 0, 0, 0], name: 'n', reason: 'r', signingTime: new Date() })).rejects.toMatchObject({ code: 'invalid_placement' });
    await expect(addSignaturePlaceholder(p.pdf, { fieldName: 'f', page: 1, rect: [0, 0, 0, 0], name: 'n', reason: 'r', signingTime: new Date() })).rejects.toThrow(/already exists/);
  });
});
