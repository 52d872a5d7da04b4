/**
 * Finalize of a document signed with e.firma (issue 29 items 3-5), over HTTP. The document is created and
 * sent through the API with two `efirma` signers; each signer's incremental PAdES signature is made as the
 * signing page would (domain/signing/incremental, the test PKI's FIEL certificates, `openssl ocsp` for the
 * OCSP answer) and recorded through decideSign like the e.firma routes do. Then `POST .../finalize` with a
 * TSA and a conservation provider: the final PDF keeps both signatures valid (pdfsig), the seal and the
 * document time-stamp come last, the DSS carries the OCSP responses and certificates, a flipped byte gives
 * "Digest Mismatch"; the certificate of completion lists holder, RFC, CURP, issuer, serial and OCSP status;
 * verify reports the file unmodified with its conservation record valid. A second case does the same with the
 * signers signing over HTTP through the e.firma routes (`/sign/{id}/efirma/prepare` and `/complete`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash, createPrivateKey, randomBytes, sign as cryptoSign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, decodePDFRawStream } from 'pdf-lib';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { haveValidators, linkOf, makePdf, pdfsig, readOutbox, waitFor } from '../../helpers/signing.ts';
import { createTestPki, haveOpenssl, type LocalService, type TestPki, type TestSigner } from '../../helpers/efirma-pki.ts';
import { addSignaturePlaceholder, assembleCms, buildSignedAttributes, embedCms, toIncrementalBase } from '../../../domain/signing/incremental/index.ts';
import { parseEfirmaCertificate } from '../../../domain/signing/efirma/certificate.ts';
import { documentStream, foldDocument } from '../../../domain/signing/document.ts';
import { decideSign } from '../../../domain/signing/decide.ts';
import { findSignatures } from '../../../domain/signing/pades.ts';

const havePdftotext = spawnSync('pdftotext', ['-v']).status !== null;
const run = haveOpenssl && haveValidators() && havePdftotext;
if (!run) console.log('skip: needs openssl, pdfsig, qpdf and pdftotext');
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe.skipIf(!run)('finalize of an e.firma document: B-LTA PDF, certificate of completion, conservation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sello-efirma-final-'));
  let pki: TestPki;
  let ocsp: LocalService;
  let tsa: LocalService & { certPath: string };
  let s: TestServer;
  let ana: TestSigner;
  let beto: TestSigner;

  beforeAll(async () => {
    pki = createTestPki();
    ana = pki.makeSigner({ name: 'ANA MARÍA LÓPEZ PÉREZ', rfc: 'LOPA800101AB1', curp: 'LOPA800101MDFPRN09' });
    beto = pki.makeSigner({ name: 'TERESA HERNÁNDEZ GARCÍA', rfc: 'HEGT7610034S2', curp: 'HEGT761003MDFRNN09', company: { rfc: 'IVA010101AB1', name: 'INMOBILIARIA DEL VALLE SA DE CV' } });
    ocsp = await pki.startOcsp();
    tsa = await pki.startTsa();
    s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20, SIGNING_TSA_URL: tsa.url, CONSERVATION_TSA_URL: tsa.url, EFIRMA_TRUST_LIST: pki.trustListPath, EFIRMA_OCSP_URL: ocsp.url, EFIRMA_OCSP_TIMEOUT_MS: 3000, EFIRMA_OCSP_ATTEMPTS: 2 } });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await ocsp?.stop();
    await tsa?.stop();
    pki?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One signer's e.firma signature appended to the working PDF and recorded as the e.firma routes record it. */
  async function signWithEfirma(tenantId: string, id: string, signer: TestSigner, index: number): Promise<void> {
    const stream = documentStream(id);
    const state = foldDocument((await s.ctx.events.readStream(stream)).events);
    const me = state.signers[index]!;
    const base = state.working_pdf_blob ? (await s.ctx.blobs.get(state.working_pdf_blob))! : await toIncrementalBase((await s.ctx.blobs.get(state.blob_key))!);
    const signingTime = new Date();
    const p = await addSignaturePlaceholder(base, { fieldName: `efirma-${me.id}`, page: 1, rect: [0, 0, 0, 0], name: signer.name, reason: 'Firma con e.firma', signingTime });
    const signedAttributes = buildSignedAttributes({ digest: p.digest, certificate: signer.cer, signingTime });
    const key = createPrivateKey({ key: signer.key, format: 'der', type: 'pkcs8', passphrase: signer.password });
    const working = embedCms(p, assembleCms({ signedAttributes, signature: cryptoSign('sha256', signedAttributes, key), certificate: signer.cer, chain: [pki.intermediateDer, pki.rootDer] }));
    const respFile = join(dir, `${me.id}.ocsp`);
    // Asynchronously: the responder answers from this process's event loop.
    await new Promise<void>((resolve, reject) =>
      execFile('openssl', ['ocsp', '-issuer', join(pki.dir, 'int.crt'), '-cert', signer.pemPath, '-url', ocsp.url, '-no_nonce', '-noverify', '-respout', respFile], (e) => (e ? reject(e) : resolve())),
    );
    const ocspDer = readFileSync(respFile);
    const workingSha = sha256(working);
    const workingBlob = `signing/${tenantId}/${id}/working-${workingSha}.pdf`;
    const ocspBlob = `signing/${tenantId}/${id}/ocsp-${me.id}.der`;
    await s.ctx.blobs.put(workingBlob, working, { contentType: 'application/pdf' });
    await s.ctx.blobs.put(ocspBlob, ocspDer);
    const cert = parseEfirmaCertificate(signer.cer);
    // Read again: the lifecycle workflow may have logged something meanwhile (expected revision).
    const now = foldDocument((await s.ctx.events.readStream(stream)).events);
    const evs = decideSign(
      now,
      {
        signerId: me.id,
        ip: '127.0.0.1',
        userAgent: 'test',
        signatureId: `sig_${randomBytes(10).toString('hex')}`,
        method: 'efirma',
        typedName: null,
        imageBlob: null,
        imageSha256: null,
        consent: true,
        efirma: {
          identity: { certificate_serial: cert.serialNumberHex, certificate_sha256: cert.sha256, holder_name: cert.holderName, rfc: cert.rfc, representative_rfc: cert.representativeRfc, curp: cert.curp, representative_curp: cert.representativeCurp },
          validation: { issuer: cert.issuerDn, ocsp_status: 'good', ocsp_produced_at: new Date().toISOString(), ocsp_responder: ocsp.url, working_pdf_blob: workingBlob, working_pdf_sha256: workingSha, ocsp_blob: ocspBlob },
          basePdfSha256: state.working_pdf_sha256,
        },
      },
      Date.now(),
    );
    await s.ctx.events.append(stream, evs.map((e) => ({ ...e, metadata: { tenant_id: tenantId } })), { expectedRevision: now.revision });
  }

  it('two e.firma signatures, then seal + DSS + document time-stamp; the certificate lists each signature; conservation valid', async () => {
    const { key, tenantId } = await s.tenantWithKey('pro');
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(await makePdf(2))], { type: 'application/pdf' }), 'arrendamiento.pdf');
    form.set('title', 'Contrato de arrendamiento');
    form.set('signers', JSON.stringify([
      { email: 'ana@example.com', name: 'Ana López', order: 1, signature_type: 'efirma', rfc: 'LOPA800101AB1' },
      { email: 'beto@example.com', name: 'Inmobiliaria del Valle', order: 2, signature_type: 'efirma', rfc: 'IVA010101AB1' },
    ]));
    const created = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as any).data.document_id as string;
    expect((await s.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    await signWithEfirma(tenantId, id, ana, 0);
    await signWithEfirma(tenantId, id, beto, 1);

    const t0 = performance.now();
    const fin = await s.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key });
    const finalizeMs = performance.now() - t0;
    const body = (await fin.json()) as any;
    expect(fin.status, JSON.stringify(body)).toBe(200);
    console.log(`e.firma finalize, first of this server (cold worker; figures: bench/efirma-finalize.bench.ts): ${finalizeMs.toFixed(0)} ms`);
    const pdf = Buffer.from(await (await s.fetch(`/v1/signing/documents/${id}/download`, { key })).arrayBuffer());
    expect(sha256(pdf)).toBe(body.data.final_sha256);
    const withAudit = Buffer.from(await (await s.fetch(`/v1/signing/documents/${id}/download?format=pdf_with_audit`, { key })).arrayBuffer());
    // pdf_with_audit: the certificate of completion appended (incremental) after the signers, then the seal.
    expect(withAudit.equals(pdf)).toBe(false);
    expect((await PDFDocument.load(withAudit, { updateMetadata: false })).getPageCount()).toBeGreaterThan((await PDFDocument.load(pdf, { updateMetadata: false })).getPageCount());
    writeFileSync(join(dir, `${id}-audit.pdf`), withAudit);
    const auditBlocks = pdfsig(join(dir, `${id}-audit.pdf`)).split(/^Signature #\d+:$/m).slice(1);
    expect(auditBlocks).toHaveLength(4);
    for (const b of auditBlocks.slice(0, 3)) expect(b).toContain('Signature Validation: Signature is Valid.');
    expect(auditBlocks[0]).toContain('Signer Certificate Common Name: ANA MARÍA LÓPEZ PÉREZ');
    expect(auditBlocks[2]).toMatch(/Signer Certificate Common Name: Sello/);
    const auditText = execFileSync('pdftotext', ['-layout', join(dir, `${id}-audit.pdf`), '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    expect(auditText).toContain('RFC: LOPA800101AB1');
    expect(auditText).toContain(body.data.final_sha256);

    // pdfsig: both e.firma signatures and the seal valid, each earlier one "not total", the time-stamp last and total.
    const file = join(dir, `${id}.pdf`);
    writeFileSync(file, pdf);
    const out = pdfsig(file);
    const blocks = out.split(/^Signature #\d+:$/m).slice(1);
    expect(blocks).toHaveLength(4);
    expect(blocks[0]).toContain('Signer Certificate Common Name: ANA MARÍA LÓPEZ PÉREZ');
    expect(blocks[1]).toContain('Signer Certificate Common Name: INMOBILIARIA DEL VALLE SA DE CV');
    for (const b of blocks.slice(0, 3)) {
      expect(b).toContain('Signature Validation: Signature is Valid.');
      expect(b).toContain('Not total document signed');
    }
    expect(blocks[2]).toMatch(/Signer Certificate Common Name: Sello/);
    // pdfsig 22.12 does not validate ETSI.RFC3161 document time-stamps ("Unimplemented Feature"): it names them.
    expect(blocks[3]).toContain('Signature Field Name: DocTimeStamp');
    expect(blocks[3]).toContain('Signer Certificate Common Name: Sello test TSA');
    expect(blocks[3]).toContain('Total document signed');
    const flipped = Buffer.from(pdf);
    const [first] = findSignatures(pdf);
    const at = first!.byteRange[0] + 200;
    flipped[at] = flipped[at]! ^ 0x01;
    writeFileSync(join(dir, 'flipped.pdf'), flipped);
    expect(pdfsig(join(dir, 'flipped.pdf'))).toContain('Digest Mismatch');

    // The DSS: both OCSP responses and the signers', the intermediate's, the seal's and the TSA's certificates.
    const doc = await PDFDocument.load(pdf, { updateMetadata: false });
    const dss = doc.catalog.lookup(PDFName.of('DSS'), PDFDict);
    const items = (name: string) => {
      const arr = dss.lookup(PDFName.of(name), PDFArray);
      return Array.from({ length: arr.size() }, (_, i) => Buffer.from(decodePDFRawStream(arr.lookup(i) as PDFRawStream).decode()));
    };
    expect(items('OCSPs')).toHaveLength(2);
    const certs = items('Certs').map(sha256);
    for (const [name, c] of Object.entries({ ana: ana.cer, beto: beto.cer, intermediate: pki.intermediateDer, root: pki.rootDer, responder: pki.responderDer })) expect(certs, name).toContain(sha256(c));
    const tsaDer = execFileSync('openssl', ['x509', '-in', tsa.certPath, '-outform', 'DER']);
    expect(certs).toContain(sha256(tsaDer));

    // Certificate of completion (Spanish, the document's language): each e.firma signature's fields.
    const cert = Buffer.from(await (await s.fetch(`/v1/signing/documents/${id}/certificate`, { key })).arrayBuffer());
    writeFileSync(join(dir, 'cert.pdf'), cert);
    const text = execFileSync('pdftotext', ['-layout', join(dir, 'cert.pdf'), '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    expect(text).toContain('ANA MARÍA LÓPEZ PÉREZ');
    expect(text).toContain('RFC: LOPA800101AB1');
    expect(text).toContain('CURP: LOPA800101MDFPRN09');
    expect(text).toContain('RFC: IVA010101AB1');
    expect(text).toContain('Representante legal · RFC: HEGT7610034S2 · CURP: HEGT761003MDFRNN09');
    expect(text).toContain(parseEfirmaCertificate(ana.cer).serialNumberHex);
    expect(text).toContain('AC DEL SERVICIO DE ADMINISTRACION TRIBUTARIA PRUEBAS');
    expect(text).toContain('Estado OCSP al firmar: vigente');
    expect(text).toContain(body.data.final_sha256);
    expect(pdfsig(join(dir, 'cert.pdf'))).toContain('Signature is Valid.');

    // Verify: the final file is unmodified, and its conservation record (over this file) is valid.
    const vform = new FormData();
    vform.set('document', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'v.pdf');
    const v = ((await (await s.fetch('/v1/signing/verify', { method: 'POST', body: vform, key })).json()) as any).data;
    expect(v.signed_by_service).toBe(true);
    expect(v.unmodified).toBe(true);
    expect(v.document.document_id).toBe(id);
    expect(v.conservation.valid).toBe(true);
    // Per signature: the two e.firma (holder, RFC, CURP, issuer, OCSP at signing time), the seal, the time-stamp.
    expect(v.signatures.map((x: any) => x.kind)).toEqual(['efirma', 'efirma', 'service', 'document_timestamp']);
    expect(v.signatures.map((x: any) => x.valid)).toEqual([true, true, true, true]);
    expect(v.signatures.map((x: any) => x.covers_document)).toEqual([false, false, false, true]);
    const [sa, sb] = v.signatures;
    expect(sa).toMatchObject({ holder_name: 'ANA MARÍA LÓPEZ PÉREZ', rfc: 'LOPA800101AB1', curp: 'LOPA800101MDFPRN09', representative_rfc: null, certificate_serial: parseEfirmaCertificate(ana.cer).serialNumberHex });
    expect(sa.issuer).toContain('AC DEL SERVICIO DE ADMINISTRACION TRIBUTARIA PRUEBAS');
    expect(sa.ocsp).toMatchObject({ status: 'good', responder: ocsp.url, source: 'record' });
    // Another account's verify does not identify the document: the OCSP status is read from the file's DSS.
    const other = await s.tenantWithKey('pro');
    const oform = new FormData();
    oform.set('document', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'o.pdf');
    const vo = ((await (await s.fetch('/v1/signing/verify', { method: 'POST', body: oform, key: other.key })).json()) as any).data;
    expect(vo.document).toBeNull();
    expect(vo.conservation).toBeNull();
    expect(vo.signatures.slice(0, 2).map((x: any) => [x.kind, x.rfc, x.ocsp?.status, x.ocsp?.source])).toEqual([
      ['efirma', 'LOPA800101AB1', 'good', 'dss'],
      ['efirma', 'IVA010101AB1', 'good', 'dss'],
    ]);
    expect(vo.signatures[0].ocsp.responder).toContain('OCSP RESPONDER PRUEBAS SAT');
    expect(sb).toMatchObject({ holder_name: 'INMOBILIARIA DEL VALLE SA DE CV', rfc: 'IVA010101AB1', representative_rfc: 'HEGT7610034S2', curp: null, representative_curp: 'HEGT761003MDFRNN09' });
    expect(v.signatures[3].signer_name).toBe('Sello test TSA');
    // The flipped file: signer 1's signature no longer verifies, the others still do.
    const fform = new FormData();
    fform.set('document', new Blob([new Uint8Array(flipped)], { type: 'application/pdf' }), 'f.pdf');
    const vf = ((await (await s.fetch('/v1/signing/verify', { method: 'POST', body: fform, key })).json()) as any).data;
    expect(vf.signatures[0].valid).toBe(false);
    expect(vf.signatures[0].error).toMatch(/digest/);
    expect(vf.unmodified).toBe(false);
    const tokenFile = join(dir, 'token.tst');
    writeFileSync(tokenFile, Buffer.from(await (await s.fetch(`/v1/signing/documents/${id}/conservation`, { key })).arrayBuffer()));
    const ok = spawnSync('openssl', ['ts', '-verify', '-digest', sha256(pdf), '-in', tokenFile, '-token_in', '-CAfile', tsa.certPath, '-untrusted', tsa.certPath], { encoding: 'utf8' });
    expect(`${ok.stdout}${ok.stderr}`).toContain('Verification: OK');
  }, 240_000);
  it('over HTTP: two signers sign through /sign/{id}/efirma/prepare and /complete, then finalize gives the B-LTA file and verify reports each signature', async () => {
    const { key } = await s.tenantWithKey('pro');
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'prestamo.pdf');
    form.set('title', 'Contrato de préstamo');
    form.set('language', 'en');
    form.set('signers', JSON.stringify([
      { email: 'ana.http@example.com', name: 'Ana López', order: 1, signature_type: 'efirma', rfc: ana.rfc },
      { email: 'beto.http@example.com', name: 'Inmobiliaria del Valle', order: 2, signature_type: 'efirma', rfc: 'HEGT7610034S2' },
    ]));
    const created = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as any).data.document_id as string;
    expect((await s.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    for (const [email, signer] of [['ana.http@example.com', ana], ['beto.http@example.com', beto]] as const) {
      const link = linkOf(await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes(email)), 15_000, `invitation of ${email}`));
      const t = new URL(s.url + link).searchParams.get('t')!;
      const post = async (step: string, body: unknown) => {
        const r = await fetch(`${s.url}/sign/${id}/efirma/${step}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const b = (await r.json()) as any;
        expect(r.status, JSON.stringify(b)).toBe(200);
        return b.data;
      };
      const prepared = await post('prepare', { t, certificate: signer.cer.toString('base64') });
      // What the browser does with the decrypted .key: RSASSA-PKCS1-v1_5 SHA-256 over the DER signed attributes.
      const k = createPrivateKey({ key: signer.key, format: 'der', type: 'pkcs8', passphrase: signer.password });
      const signature = cryptoSign('sha256', Buffer.from(prepared.signed_attributes, 'base64'), k).toString('base64');
      await post('complete', { t, prepare_id: prepared.prepare_id, signature, consent: 'yes' });
    }
    const fin = await s.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key });
    const body = (await fin.json()) as any;
    expect(fin.status, JSON.stringify(body)).toBe(200);
    const pdf = Buffer.from(await (await s.fetch(`/v1/signing/documents/${id}/download`, { key })).arrayBuffer());
    const file = join(dir, `${id}-http.pdf`);
    writeFileSync(file, pdf);
    const blocks = pdfsig(file).split(/^Signature #\d+:$/m).slice(1);
    expect(blocks).toHaveLength(4);
    expect(blocks[0]).toContain('Signer Certificate Common Name: ANA MARÍA LÓPEZ PÉREZ');
    expect(blocks[1]).toContain('Signer Certificate Common Name: INMOBILIARIA DEL VALLE SA DE CV');
    for (const b of blocks.slice(0, 3)) expect(b).toContain('Signature Validation: Signature is Valid.');
    expect(blocks[3]).toContain('Signature Field Name: DocTimeStamp');
    const vform = new FormData();
    vform.set('document', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'v.pdf');
    const v = ((await (await s.fetch('/v1/signing/verify', { method: 'POST', body: vform, key })).json()) as any).data;
    expect(v.unmodified).toBe(true);
    expect(v.conservation.valid).toBe(true);
    expect(v.signatures.map((x: any) => [x.kind, x.valid, x.covers_document, x.rfc, x.ocsp?.status ?? null])).toEqual([
      ['efirma', true, false, ana.rfc, 'good'],
      ['efirma', true, false, 'IVA010101AB1', 'good'],
      ['service', true, false, null, null],
      ['document_timestamp', true, true, null, null],
    ]);
    const cert = Buffer.from(await (await s.fetch(`/v1/signing/documents/${id}/certificate`, { key })).arrayBuffer());
    writeFileSync(join(dir, 'cert-http.pdf'), cert);
    const text = execFileSync('pdftotext', ['-layout', join(dir, 'cert-http.pdf'), '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    // This document reads in English: the certificate's e.firma lines too.
    expect(text).toContain(`Certificate holder: ANA MARÍA LÓPEZ PÉREZ · RFC: ${ana.rfc} · CURP: ${ana.curp}`);
    expect(text).toContain('Legal representative · RFC: HEGT7610034S2 · CURP: HEGT761003MDFRNN09');
    expect(text).toContain('OCSP status at signing: good');
    expect(text).not.toContain('Estado OCSP');
  }, 240_000);
});
