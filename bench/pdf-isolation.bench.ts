/**
 * Benchmark: does one tenant's costly PDFs stall the others (issue 31, item 1)? The real embedded server
 * over HTTP, two tenants. Another tenant (the victim) calls `GET /v1/credits/balance` in a closed loop
 * (VICTIM_LOOPS loops, 20 ms apart) for SECONDS, first alone (baseline), then while the attacker runs
 * ATTACKERS loops of costly work, in the same run:
 * - upload 200 pages sharing one stream of 60,000 text operators (422 `pdf_too_complex`, content bound);
 * - upload a 14,400-point page stroking one wide line 400,000 times (22 KB; 422, content bound);
 * - upload the same page with 2,000 strokes (accepted), then fetch its page image from the preview URL
 *   (422 after the 5 s render deadline; a new document each round, so every round renders again).
 * Prints the victim's p50 / p95 / p99 / max latency in both phases, the attacker's answers, and the load
 * average. Target: victim p99 under 200 ms during the attack.
 *
 *   node --import tsx bench/pdf-isolation.bench.ts        # SECONDS=20 ATTACKERS=3 VICTIM_LOOPS=2
 */
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestServer, type TestServer } from '../test/helpers/server.ts';
import { hugePagePdf, sharedHeavyStreamPdf } from '../test/helpers/hostile-pdf.ts';

const SECONDS = Number(process.env.SECONDS ?? 20);
const ATTACKERS = Number(process.env.ATTACKERS ?? 3);
const VICTIM_LOOPS = Number(process.env.VICTIM_LOOPS ?? 2);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function victim(s: TestServer, key: string, until: number): Promise<number[]> {
  const out: number[] = [];
  await Promise.all(
    Array.from({ length: VICTIM_LOOPS }, async () => {
      while (Date.now() < until) {
        const t = performance.now();
        const r = await s.fetch('/v1/credits/balance', { key });
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`balance answered ${r.status}`);
        out.push(performance.now() - t);
        await sleep(20);
      }
    }),
  );
  return out;
}

async function upload(s: TestServer, key: string, pdf: Buffer): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'costly.pdf');
  form.set('title', 'Costly');
  form.set('signers', JSON.stringify([{ email: 'ana@example.com', name: 'Ana' }]));
  const r = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key });
  return { status: r.status, body: await r.json() };
}

async function attacker(s: TestServer, key: string, until: number, answers: Map<string, number>): Promise<void> {
  const note = (what: string, status: number, body?: any) => {
    const k = `${what} -> ${status}${body?.error?.code ? ` ${body.error.code}` : ''}`;
    answers.set(k, (answers.get(k) ?? 0) + 1);
  };
  const shared = sharedHeavyStreamPdf(200, 60_000);
  const huge = hugePagePdf(400_000);
  const page = hugePagePdf(2_000);
  while (Date.now() < until) {
    let r = await upload(s, key, shared);
    note('upload 200 pages sharing one heavy stream', r.status, r.body);
    r = await upload(s, key, huge);
    note('upload 14,400 pt page, 400,000 strokes', r.status, r.body);
    r = await upload(s, key, page);
    note('upload 14,400 pt page, 2,000 strokes', r.status, r.body);
    if (r.status !== 201) continue;
    const id = r.body.data.document_id as string;
    const pv = (await (await s.fetch(`/v1/signing/documents/${id}/public-preview`, { key })).json()) as any;
    const q = new URL(pv.data.preview_url).search;
    const img = await fetch(`${s.url}/sign/preview/${id}/pages/1.png${q}`);
    await img.arrayBuffer();
    note('its page image', img.status);
  }
}

const s = await startTestServer({ config: { WORKFLOW_POLL_MS: 50 } });
try {
  const a = await s.tenantWithKey('pro');
  const v = await s.tenantWithKey('pro');
  await s.setLimits(a.tenantId, null, null);
  await s.setLimits(v.tenantId, null, null);
  await s.grant(a.tenantId, 100_000);
  // warm-up: the first balance calls and one PDF thread start
  await victim(s, v.key, Date.now() + 1_000);
  await upload(s, a.key, hugePagePdf(10));

  // The server's event loop (this process: the bench's clients share it, as the test helpers do): its
  // delay tells a blocked loop from a starved CPU.
  const eld = monitorEventLoopDelay({ resolution: 10 });
  const loopDelay = () => `event loop delay p99 ${(eld.percentile(99) / 1e6).toFixed(1)} ms, max ${(eld.max / 1e6).toFixed(1)} ms`;
  const load0 = os.loadavg()[0]!;
  eld.enable();
  const baseline = await victim(s, v.key, Date.now() + SECONDS * 1_000);
  eld.disable();
  const loopBaseline = loopDelay();
  eld.reset();
  const answers = new Map<string, number>();
  const until = Date.now() + SECONDS * 1_000;
  eld.enable();
  const [attacked] = await Promise.all([victim(s, v.key, until), ...Array.from({ length: ATTACKERS }, () => attacker(s, a.key, until, answers))]);
  eld.disable();
  const loopAttack = loopDelay();
  const load1 = os.loadavg()[0]!;

  const row = (name: string, xs: number[]) =>
    `${name.padEnd(28)} n=${String(xs.length).padStart(5)}  p50 ${pct(xs, 50).toFixed(1).padStart(7)} ms  p95 ${pct(xs, 95).toFixed(1).padStart(7)} ms  p99 ${pct(xs, 99).toFixed(1).padStart(7)} ms  max ${Math.max(...xs).toFixed(1).padStart(7)} ms`;
  console.log(`pdf-isolation: victim GET /v1/credits/balance (${VICTIM_LOOPS} loops, 20 ms apart), ${SECONDS} s per phase, ${ATTACKERS} attacker loops; ${os.cpus().length} cores`);
  console.log(`${row('baseline (no attack)', baseline)}  (${loopBaseline})`);
  console.log(`${row('during the attack', attacked)}  (${loopAttack})`);
  console.log(`p99 ratio attack/baseline: ${(pct(attacked, 99) / pct(baseline, 99)).toFixed(2)}; target p99 < 200 ms: ${pct(attacked, 99) < 200 ? 'met' : 'NOT met'}`);
  console.log('attacker answers:');
  for (const [k, n] of [...answers].sort()) console.log(`  ${String(n).padStart(4)} x ${k}`);
  console.log(`load average (1 min): ${load0.toFixed(2)} before, ${load1.toFixed(2)} after`);
} finally {
  await s.close();
}
