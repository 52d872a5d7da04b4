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
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { buildApp } from '../apps/api/app.ts';
import { loadConfig } from '../apps/api/config.ts';
import { createPlatform } from '../apps/platform/platform.ts';
import { signingCapability } from '../apps/capabilities/signing.ts';
import { createApiKey, createTenant } from '../domain/tenancy/operations.ts';

const RUNS = Number(process.env.RUNS ?? 30);
const PAGES = Number(process.env.PAGES ?? 10);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function makePdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) {
    const p = doc.addPage([595.28, 841.89]);
    for (let l = 0; l < 40; l++) p.drawText(`Page ${i + 1}, clause ${l + 1}: the parties agree to the terms described in this document.`, { x: 40, y: 800 - l * 19, size: 10, font });
  }
  return doc.save();
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sello-sign-bench-'));
  const config = loadConfig({}, { DATA_DIR: dir, PORT: 0, HOST: '127.0.0.1', LOG_LEVEL: 'silent', BOOTSTRAP: 'false', WORKER_THREADS: 1 });
  const ctx = await createPlatform(config, { kind: 'api', overrides: { log: pino({ level: 'silent' }) } });
  const app = await buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const { tenantId } = await createTenant({ store: ctx.events, name: 'bench', plan: 'enterprise' });
  const { key } = await createApiKey({ store: ctx.events, tenantId, permissions: ['read', 'write'] });
  await ctx.tenancy.catchUp();
  await ctx.credits.grant(tenantId, 100_000);
  ctx.secrets.signingIdentity(); // generated once, outside the timings
  const service = ctx.use(signingCapability).service;
  const pdf = await makePdf(PAGES);
  const auth = { authorization: `Bearer ${key}` };

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
  await app.close();
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
