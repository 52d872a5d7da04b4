/**
 * Benchmark: the incremental PAdES steps of domain/signing/incremental (issue 29) on a 10-page PDF, in this
 * process (no HTTP): the server's part of one e.firma signature (placeholder + signed attributes, then
 * assembleCms + embedCms around a value signed with node:crypto as the browser would), and the finalize
 * steps (seal B-T, DSS, document time-stamp) with the local `openssl ts -reply` TSA of
 * test/helpers/efirma-pki.ts. The document carries SIGNERS e.firma signatures before finalize.
 *
 * Prints p50 / p95 per step and the file size, then the load average (the machine is shared).
 *
 *   node --import tsx bench/incremental-pades.bench.ts      # RUNS=20 PAGES=10 SIGNERS=2
 */
import os from 'node:os';
import { createPrivateKey, sign as cryptoSign } from 'node:crypto';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { addDocumentTimestamp, addDss, addSignaturePlaceholder, assembleCms, buildSignedAttributes, embedCms, sealIncremental, toIncrementalBase } from '../domain/signing/incremental/index.ts';
import { createTestPki } from '../test/helpers/efirma-pki.ts';

const RUNS = Number(process.env.RUNS ?? 20);
const PAGES = Number(process.env.PAGES ?? 10);
const SIGNERS = Number(process.env.SIGNERS ?? 2);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function makePdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) {
    const p = doc.addPage([595.28, 841.89]);
    for (let l = 0; l < 40; l++) p.drawText(`Pagina ${i + 1}, clausula ${l + 1}: las partes acuerdan los terminos descritos en este documento.`, { x: 40, y: 800 - l * 19, size: 10, font });
  }
  return Buffer.from(await doc.save());
}

const pki = createTestPki();
const tsa = await pki.startTsa();
try {
  const signer = pki.makeSigner({ name: 'ANA MARIA LOPEZ PEREZ', rfc: 'LOPA800101AB1', curp: 'LOPA800101MDFPRN09' });
  const seal = pki.makeSigner({ name: 'SELLO PRUEBAS', rfc: 'SEPR800101AB1', curp: 'SEPR800101HDFLLL01' });
  const signerKey = createPrivateKey({ key: signer.key, format: 'der', type: 'pkcs8', passphrase: signer.password });
  const sealPkcs8 = createPrivateKey({ key: seal.key, format: 'der', type: 'pkcs8', passphrase: seal.password }).export({ format: 'der', type: 'pkcs8' }) as Buffer;
  const chain = [pki.intermediateDer, pki.rootDer];
  const tsaOptions = { url: tsa.url, timeoutMs: 10_000, attempts: 1 };
  const base = await toIncrementalBase(await makePdf(PAGES));

  const times: Record<string, number[]> = { prepare: [], complete: [], seal: [], dss: [], docTimestamp: [], finalize: [] };
  let size = 0;
  for (let r = 0; r < RUNS; r++) {
    let pdf = base;
    for (let s = 0; s < SIGNERS; s++) {
      let t = performance.now();
      const p = await addSignaturePlaceholder(pdf, { fieldName: `efirma_${s}`, page: PAGES, rect: [40 + s * 180, 40, 200 + s * 180, 90], name: signer.name, reason: 'Firma', signingTime: new Date() });
      const attrs = buildSignedAttributes({ digest: p.digest, certificate: signer.cer, signingTime: new Date() });
      times.prepare!.push(performance.now() - t);
      const value = cryptoSign('sha256', attrs, signerKey); // the browser's part, not timed here
      t = performance.now();
      pdf = embedCms(p, assembleCms({ signedAttributes: attrs, signature: value, certificate: signer.cer, chain }));
      times.complete!.push(performance.now() - t);
    }
    const t0 = performance.now();
    pdf = await sealIncremental(pdf, { certificate: seal.cer, chain, privateKeyPkcs8: sealPkcs8, subjectName: seal.name }, { reason: 'Sello', signingTime: new Date(), tsa: tsaOptions });
    const t1 = performance.now();
    pdf = await addDss(pdf, { certificates: [...chain, signer.cer, seal.cer], ocspResponses: [] });
    const t2 = performance.now();
    pdf = await addDocumentTimestamp(pdf, tsaOptions);
    const t3 = performance.now();
    times.seal!.push(t1 - t0);
    times.dss!.push(t2 - t1);
    times.docTimestamp!.push(t3 - t2);
    times.finalize!.push(t3 - t0);
    size = pdf.length;
  }
  console.log(`incremental PAdES, ${PAGES} pages (base ${(base.length / 1024).toFixed(0)} KiB), ${SIGNERS} e.firma signatures, ${RUNS} runs; final file ${(size / 1024).toFixed(0)} KiB`);
  for (const [step, xs] of Object.entries(times)) console.log(`  ${step.padEnd(13)} p50 ${pct(xs, 50).toFixed(1).padStart(7)} ms   p95 ${pct(xs, 95).toFixed(1).padStart(7)} ms`);
  console.log(`  (prepare = placeholder + signed attributes; complete = assembleCms + embedCms; the TSA is openssl per request)`);
  console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}, ${os.cpus().length} cores`);
} finally {
  await tsa.stop();
  pki.cleanup();
}
