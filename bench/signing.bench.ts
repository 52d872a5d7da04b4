/**
 * Benchmark: the signing lifecycle of a 10-page PDF over HTTP against the real embedded server (SQLite
 * event store and read models, the workflow engine running in the background): create + send + two
 * signatures (through the signing page's POST) + finalize (render, certificate, three PAdES B-B seals).
 * The signers' links are issued with the service's own `issueLink` (what the invitation activity does)
 * instead of waiting for the e-mails, so the figures are server time, not mail latency.
 *
 * Prints p50 / p95 of the whole sequence and of finalize alone, then finalize throughput on one core
 * (sequential finalizes; Node runs each on the event loop's single thread). Prints the load average.
 *
 *   node --import tsx bench/signing.bench.ts          # RUNS=30 PAGES=10
 */
import os from 'node:os';
import { signingCapability } from '../apps/capabilities/signing.ts';
import { makeTextPdf, pct, startBenchServer } from './signing-harness.ts';

const RUNS = Number(process.env.RUNS ?? 30);
const PAGES = Number(process.env.PAGES ?? 10);

async function main(): Promise<void> {
  const server = await startBenchServer('sign');
  const { ctx, base } = server;
  const service = ctx.use(signingCapability).service;
  const pdf = await makeTextPdf(PAGES);
  const auth = server.auth;

  async function once(): Promise<{ total: number; finalize: number }> {
    const t0 = performance.now();
    const form = new FormData();
    form.set('document', new Blob([pdf as Uint8Array<ArrayBuffer>], { type: 'application/pdf' }), 'bench.pdf');
    form.set('title', 'Bench');
    form.set('signers', JSON.stringify([{ email: 'a@example.com', name: 'A', order: 1 }, { email: 'b@example.com', name: 'B', order: 2 }]));
    const created = (await (await fetch(`${base}/v1/signing/documents`, { method: 'POST', body: form, headers: auth })).json()) as any;
    const id = created.data.document_id as string;
    const sent = await fetch(`${base}/v1/signing/documents/${id}/send-invitations`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"reminder_days":0}' });
    if (sent.status !== 200) throw new Error(`send ${sent.status}`);
    for (const signer of created.data.signers as { id: string }[]) {
      const link = await service.issueLink(id, signer.id, 'invitation');
      if (!link) throw new Error('no link');
      const r = await fetch(`${base}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t: link.token, consent: 'yes', method: 'typed', typed_name: 'Bench Signer' }).toString() });
      if (r.status !== 200) throw new Error(`sign ${r.status}`);
    }
    const f0 = performance.now();
    const fin = await fetch(`${base}/v1/signing/documents/${id}/finalize`, { method: 'POST', headers: auth });
    if (fin.status !== 200) throw new Error(`finalize ${fin.status}: ${await fin.text()}`);
    const t1 = performance.now();
    return { total: t1 - t0, finalize: t1 - f0 };
  }

  await once(); // warm-up (MuPDF instantiation, pdf-lib fonts, JIT)
  const totals: number[] = [];
  const finals: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await once();
    totals.push(r.total);
    finals.push(r.finalize);
  }
  const sumFinal = finals.reduce((a, b) => a + b, 0);
  const [l1, l5] = os.loadavg();
  console.log(`signing bench: ${RUNS} runs, ${PAGES}-page PDF (${pdf.length} bytes), ${os.cpus().length} cores, load average ${l1!.toFixed(2)} / ${l5!.toFixed(2)} (1 / 5 min)`);
  console.log(`  create + send + 2 signatures + finalize: p50 ${pct(totals, 50).toFixed(0)} ms, p95 ${pct(totals, 95).toFixed(0)} ms`);
  console.log(`  finalize alone (3 PAdES B-B seals):      p50 ${pct(finals, 50).toFixed(0)} ms, p95 ${pct(finals, 95).toFixed(0)} ms`);
  console.log(`  finalize throughput, one core (sequential): ${(1000 / (sumFinal / RUNS)).toFixed(1)} documents/s`);
  console.log(`  finalize share of the sequence (same run): ${((pct(finals, 50) / pct(totals, 50)) * 100).toFixed(0)} %`);
  await server.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
