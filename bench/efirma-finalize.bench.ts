/**
 * Benchmark (issue 29): finalize of a document signed with e.firma, with long-term validation and the NOM-151
 * conservation record, over HTTP against the real embedded server. Per run: a 2-page PDF with two e.firma
 * signers is created and sent through the API; each signer's incremental PAdES signature is made as the
 * signing page would (test PKI of test/helpers/efirma-pki.ts, `openssl ocsp` answer) and recorded through
 * decideSign; then `POST .../finalize` is timed: seal B-T + DSS + document time-stamp (B-LTA) in the
 * `signing.seal` worker job, the certificate of completion, and the conservation token. The TSA is local
 * (`openssl ts -reply` per request, so each time-stamp costs an openssl process start: a remote TSA costs
 * its network round trip instead). Target (issue 29): p50 under 2 s.
 *
 *   node --import tsx bench/efirma-finalize.bench.ts          # RUNS=10
 */
import os from 'node:os';
import { execFile } from 'node:child_process';
import { createHash, createPrivateKey, randomBytes, sign as cryptoSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createTestPki, type TestSigner } from '../test/helpers/efirma-pki.ts';
import { addSignaturePlaceholder, assembleCms, buildSignedAttributes, embedCms, toIncrementalBase } from '../domain/signing/incremental/index.ts';
import { parseEfirmaCertificate } from '../domain/signing/efirma/certificate.ts';
import { documentStream, foldDocument } from '../domain/signing/document.ts';
import { decideSign } from '../domain/signing/decide.ts';
import { makeTextPdf, pct, startBenchServer } from './signing-harness.ts';

const RUNS = Number(process.env.RUNS ?? 10);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function main(): Promise<void> {
  const pki = createTestPki();
  const ana = pki.makeSigner({ name: 'ANA MARÍA LÓPEZ PÉREZ', rfc: 'LOPA800101AB1', curp: 'LOPA800101MDFPRN09' });
  const beto = pki.makeSigner({ name: 'ROBERTO GÓMEZ DÍAZ', rfc: 'GODR750505XY2', curp: 'GODR750505HDFMZB02' });
  const ocsp = await pki.startOcsp();
  const tsa = await pki.startTsa();
  const server = await startBenchServer('efirma-finalize', { SIGNING_TSA_URL: tsa.url, CONSERVATION_TSA_URL: tsa.url });
  const { dir, ctx, base, tenantId } = server;
  const auth = server.auth;
  const pdf = await makeTextPdf(2);
  const ocspOf = new Map<TestSigner, Buffer>();
  for (const [i, s] of [ana, beto].entries()) {
    const out = path.join(dir, `ocsp-${i}.der`);
    await new Promise<void>((resolve, reject) => execFile('openssl', ['ocsp', '-issuer', path.join(pki.dir, 'int.crt'), '-cert', s.pemPath, '-url', ocsp.url, '-no_nonce', '-noverify', '-respout', out], (e) => (e ? reject(e) : resolve())));
    ocspOf.set(s, readFileSync(out));
  }

  async function sign(id: string, signer: TestSigner, index: number): Promise<void> {
    const stream = documentStream(id);
    let state = foldDocument((await ctx.events.readStream(stream)).events);
    const me = state.signers[index]!;
    const basePdf = state.working_pdf_blob ? (await ctx.blobs.get(state.working_pdf_blob))! : await toIncrementalBase((await ctx.blobs.get(state.blob_key))!);
    const signingTime = new Date();
    const p = await addSignaturePlaceholder(basePdf, { fieldName: `efirma-${me.id}`, page: 1, rect: [0, 0, 0, 0], name: signer.name, reason: 'Firma con e.firma', signingTime });
    const attrs = buildSignedAttributes({ digest: p.digest, certificate: signer.cer, signingTime });
    const k = createPrivateKey({ key: signer.key, format: 'der', type: 'pkcs8', passphrase: signer.password });
    const working = embedCms(p, assembleCms({ signedAttributes: attrs, signature: cryptoSign('sha256', attrs, k), certificate: signer.cer, chain: [pki.intermediateDer, pki.rootDer] }));
    const workingBlob = `signing/${tenantId}/${id}/working-${sha256(working)}.pdf`;
    const ocspBlob = `signing/${tenantId}/${id}/ocsp-${me.id}.der`;
    await ctx.blobs.put(workingBlob, working);
    await ctx.blobs.put(ocspBlob, ocspOf.get(signer)!);
    const cert = parseEfirmaCertificate(signer.cer);
    state = foldDocument((await ctx.events.readStream(stream)).events);
    const evs = decideSign(
      state,
      {
        signerId: me.id, ip: '127.0.0.1', userAgent: 'bench', signatureId: `sig_${randomBytes(10).toString('hex')}`, method: 'efirma', typedName: null, imageBlob: null, imageSha256: null, consent: true,
        efirma: {
          identity: { certificate_serial: cert.serialNumberHex, certificate_sha256: cert.sha256, holder_name: cert.holderName, rfc: cert.rfc, representative_rfc: cert.representativeRfc, curp: cert.curp, representative_curp: cert.representativeCurp },
          validation: { issuer: cert.issuerDn, ocsp_status: 'good', ocsp_produced_at: new Date().toISOString(), ocsp_responder: ocsp.url, working_pdf_blob: workingBlob, working_pdf_sha256: sha256(working), ocsp_blob: ocspBlob },
          basePdfSha256: state.working_pdf_sha256,
        },
      },
      Date.now(),
    );
    await ctx.events.append(stream, evs.map((e) => ({ ...e, metadata: { tenant_id: tenantId } })), { expectedRevision: state.revision });
  }

  async function once(): Promise<number> {
    const form = new FormData();
    form.set('document', new Blob([pdf as Uint8Array<ArrayBuffer>], { type: 'application/pdf' }), 'bench.pdf');
    form.set('title', 'Bench e.firma');
    form.set('signers', JSON.stringify([
      { email: 'a@example.com', name: 'A', order: 1, signature_type: 'efirma' },
      { email: 'b@example.com', name: 'B', order: 2, signature_type: 'efirma' },
    ]));
    const created = (await (await fetch(`${base}/v1/signing/documents`, { method: 'POST', body: form, headers: auth })).json()) as any;
    const id = created.data.document_id as string;
    const sent = await fetch(`${base}/v1/signing/documents/${id}/send-invitations`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"reminder_days":0}' });
    if (sent.status !== 200) throw new Error(`send ${sent.status}`);
    for (let attempt = 0; ; attempt++) {
      try {
        await sign(id, ana, 0);
        break;
      } catch (e) {
        if (attempt > 3) throw e; // the lifecycle workflow appended meanwhile: read again
      }
    }
    for (let attempt = 0; ; attempt++) {
      try {
        await sign(id, beto, 1);
        break;
      } catch (e) {
        if (attempt > 3) throw e;
      }
    }
    const t0 = performance.now();
    const fin = await fetch(`${base}/v1/signing/documents/${id}/finalize`, { method: 'POST', headers: auth });
    if (fin.status !== 200) throw new Error(`finalize ${fin.status}: ${await fin.text()}`);
    return performance.now() - t0;
  }

  await once(); // warm-up (fonts, pdf-lib, JIT, the worker's identity)
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await once());
  const tsaRequests = tsa.requests();
  const [l1, l5] = os.loadavg();
  console.log(`e.firma finalize bench: ${RUNS} runs, 2 e.firma signers, ${os.cpus().length} cores, load average ${l1!.toFixed(2)} / ${l5!.toFixed(2)} (1 / 5 min)`);
  console.log(`  finalize (seal B-T + DSS + document time-stamp + certificate B-T + conservation token): p50 ${pct(times, 50).toFixed(0)} ms, p95 ${pct(times, 95).toFixed(0)} ms, min ${Math.min(...times).toFixed(0)} ms (target p50 < 2000 ms)`);
  console.log(`  local TSA requests: ${tsaRequests} (${(tsaRequests / (RUNS + 1)).toFixed(0)} per finalize, each an openssl process)`);
  await ocsp.stop();
  await tsa.stop();
  pki.cleanup();
  await server.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
