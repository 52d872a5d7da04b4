/**
 * Benchmark: the server part of signing with e.firma (issue 29) over HTTP against the real embedded server:
 * per signer, `POST /sign/:id/efirma/prepare` (certificate parsed and checked, chain, OCSP against a local
 * `openssl ocsp` responder, the placeholder appended on a PDF thread, the signed attributes built) then
 * `POST .../complete` (CMS assembled and verified, embedded on a PDF thread, stored, recorded). The
 * browser's part is replaced by node:crypto signing the signed attributes (timed apart); the browser test
 * (test/browser/efirma-page.test.ts) measures the whole step in Chromium. Two signers in order per
 * document, so the second one appends to the first one's revision. Links come from the service's own
 * `issueLink` (what the invitation does), not from the e-mails.
 *
 * Prints p50 / p95 of prepare, complete and the server part of one signature, and the load average.
 *
 *   node --import tsx bench/efirma-sign.bench.ts          # RUNS=20 PAGES=10
 */
import os from 'node:os';
import { createPrivateKey, sign as rsaSign } from 'node:crypto';
import { signingCapability } from '../apps/capabilities/signing.ts';
import { createTestPki, type TestSigner } from '../test/helpers/efirma-pki.ts';
import { makeTextPdf, pct, startBenchServer } from './signing-harness.ts';

const RUNS = Number(process.env.RUNS ?? 20);
const PAGES = Number(process.env.PAGES ?? 10);

async function main(): Promise<void> {
  const pki = createTestPki();
  const ocsp = await pki.startOcsp();
  const signers: TestSigner[] = [
    pki.makeSigner({ name: 'ANA LOPEZ ALVAREZ', rfc: 'LOAA850101AB1', curp: 'LOAA850101HDFPNN02' }),
    pki.makeSigner({ name: 'MARIO PEREZ MORA', rfc: 'PEMM900215KL2', curp: 'PEMM900215HJCRRR02' }),
  ];
  const keys = signers.map((s) => createPrivateKey({ key: s.key, format: 'der', type: 'pkcs8', passphrase: s.password }));
  const server = await startBenchServer('efirma-sign', { EFIRMA_TRUST_LIST: pki.trustListPath, EFIRMA_OCSP_URL: ocsp.url, PUBLIC_RATE_LIMIT_PER_ADDRESS: 100_000, PUBLIC_RATE_LIMIT_PER_DOCUMENT: 100_000 });
  const { ctx, base } = server;
  const service = ctx.use(signingCapability).service;
  const pdf = await makeTextPdf(PAGES, (p, l) => `Página ${p}, cláusula ${l}: las partes acuerdan los términos descritos en este documento.`);
  const auth = server.auth;
  const post = async (url: string, body: unknown) => {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const j = (await r.json()) as any;
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${JSON.stringify(j)}`);
    return j.data;
  };

  const prepares: number[] = [];
  const completes: number[] = [];
  const servers: number[] = [];
  const signs: number[] = [];
  async function once(record: boolean): Promise<void> {
    const form = new FormData();
    form.set('document', new Blob([pdf as Uint8Array<ArrayBuffer>], { type: 'application/pdf' }), 'bench.pdf');
    form.set('title', 'Bench');
    form.set('signers', JSON.stringify(signers.map((s, i) => ({ email: `s${i}@example.com`, name: s.name, order: i + 1, signature_type: 'efirma', fields: [{ page: PAGES, x: 60 + i * 260, y: 80, width: 220, height: 60 }] }))));
    const created = (await (await fetch(`${base}/v1/signing/documents`, { method: 'POST', body: form, headers: auth })).json()) as any;
    const id = created.data.document_id as string;
    const sent = await fetch(`${base}/v1/signing/documents/${id}/send-invitations`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"reminder_days":0}' });
    if (sent.status !== 200) throw new Error(`send ${sent.status}`);
    for (const [i, signer] of (created.data.signers as { id: string }[]).entries()) {
      const link = await service.issueLink(id, signer.id, 'invitation');
      if (!link) throw new Error('no link');
      const t0 = performance.now();
      const prepared = await post(`${base}/sign/${id}/efirma/prepare`, { t: link.token, certificate: signers[i]!.cer.toString('base64') });
      const t1 = performance.now();
      const signature = rsaSign('sha256', Buffer.from(prepared.signed_attributes, 'base64'), keys[i]!).toString('base64');
      const t2 = performance.now();
      await post(`${base}/sign/${id}/efirma/complete`, { t: link.token, prepare_id: prepared.prepare_id, signature, consent: 'yes' });
      const t3 = performance.now();
      if (record) {
        prepares.push(t1 - t0);
        signs.push(t2 - t1);
        completes.push(t3 - t2);
        servers.push(t1 - t0 + (t3 - t2));
      }
    }
  }

  await once(false); // warm-up (PDF thread start, MuPDF, pdf-lib, JIT)
  for (let i = 0; i < RUNS; i++) await once(true);
  const [l1, l5] = os.loadavg();
  const line = (name: string, xs: number[]) => `  ${name.padEnd(44)} p50 ${pct(xs, 50).toFixed(0)} ms, p95 ${pct(xs, 95).toFixed(0)} ms`;
  console.log(`e.firma signing bench: ${RUNS} documents x 2 signers, ${PAGES}-page PDF (${pdf.length} bytes), ${os.cpus().length} cores, load average ${l1!.toFixed(2)} / ${l5!.toFixed(2)} (1 / 5 min)`);
  console.log(line('prepare (checks, OCSP, placeholder):', prepares));
  console.log(line('complete (CMS, embed, store, record):', completes));
  console.log(line('server part of one signature:', servers));
  console.log(line('node:crypto RSA-2048 sign (browser stand-in):', signs));
  await ocsp.stop();
  pki.cleanup();
  await server.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
