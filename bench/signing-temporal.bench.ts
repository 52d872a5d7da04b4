/**
 * Benchmark: the signing lifecycle with its workflows on Temporal (WORKFLOWS=temporal, the server at
 * TEMPORAL_ADDRESS, `npm run engines -- up`) against the embedded engine (SQLite, WORKFLOW_POLL_MS at its
 * default), in the same run: two real servers in this process, each with its own DATA_DIR, driven
 * alternately over HTTP, N lifecycles each after one warm-up each.
 *
 * Unlike bench/signing.bench.ts, the signers act on the links of the invitation e-mails, so the workflow
 * engine is on the measured path: create -> send-invitations -> (workflow) invitation 1 in the outbox ->
 * sign 1 -> (workflow) invitation 2 -> sign 2 -> (workflow) `document.completed` published -> finalize ->
 * (workflow) closed. Prints p50 / p95 of the whole sequence and of each step the engine drives, timed
 * from the HTTP answer that caused it (outbox, log and workflow status polled every 5 ms: steps shorter
 * than that read as 0-5 ms). Everything but the workflow
 * engine is embedded in both servers (SQLite event store and read models, local blobs, outbox mail).
 *
 *   node --import tsx bench/signing-temporal.bench.ts        # RUNS=15 PAGES=2
 */
import os from 'node:os';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { decodeQp, makePdf } from '../test/helpers/signing.ts';
import { pct, startBenchServer } from './signing-harness.ts';
import type { ApiApp } from '../apps/api/app.ts';
import type { Platform } from '../apps/platform/platform.ts';
import { temporalAddress, terminateTaskQueue } from '../test/helpers/temporal.ts';

const RUNS = Number(process.env.RUNS ?? 15);
const PAGES = Number(process.env.PAGES ?? 2);
const POLL_MS = 5;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Server {
  name: string;
  dir: string;
  ctx: Platform;
  app: ApiApp;
  base: string;
  tenantId: string;
  auth: Record<string, string>;
  /** Outbox files already read. */
  seen: Set<string>;
}

async function open(name: string, config: Record<string, unknown>): Promise<Server> {
  const b = await startBenchServer(`sign-temporal-${name}`, config, 'warn');
  return { name, dir: b.dir, ctx: b.ctx, app: b.app, base: b.base, tenantId: b.tenantId, auth: b.auth, seen: new Set() };
}

/** Polls `fn` every POLL_MS until it returns a value; throws after 60 s. */
async function until<T>(fn: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

/** The personal link (path + query) of the first new outbox mail to `email`. */
function newLink(s: Server, email: string): string | undefined {
  const dir = path.join(s.dir, 'outbox');
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.eml') && !s.seen.has(f));
  } catch {
    return undefined; // no mail yet
  }
  for (const f of files.sort()) {
    const body = decodeQp(readFileSync(path.join(dir, f), 'utf8'));
    if (!new RegExp(`^To: .*${email.replace('.', '\\.')}`, 'mi').test(body)) continue;
    s.seen.add(f);
    return /(\/sign\/doc_[0-9a-f]{24}\?t=sl_[A-Za-z0-9_-]{43})/.exec(body)?.[1];
  }
  return undefined;
}

interface Timings {
  total: number;
  invitation: number;
  nextInvitation: number;
  completedWebhook: number;
  workflowClosed: number;
}

async function once(s: Server, pdf: Uint8Array, run: number): Promise<Timings> {
  const a = `a${run}@example.com`;
  const b = `b${run}@example.com`;
  const sign = async (link: string) => {
    const url = new URL(s.base + link);
    const id = url.pathname.split('/')[2]!;
    const r = await fetch(`${s.base}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t: url.searchParams.get('t')!, consent: 'yes', method: 'typed', typed_name: 'Bench Signer' }).toString() });
    if (r.status !== 200) throw new Error(`sign ${r.status}`);
    return performance.now();
  };
  const t0 = performance.now();
  const form = new FormData();
  form.set('document', new Blob([pdf as Uint8Array<ArrayBuffer>], { type: 'application/pdf' }), 'bench.pdf');
  form.set('title', 'Bench');
  form.set('signers', JSON.stringify([{ email: a, name: 'A', order: 1 }, { email: b, name: 'B', order: 2 }]));
  const created = await fetch(`${s.base}/v1/signing/documents`, { method: 'POST', body: form, headers: s.auth });
  if (created.status !== 201) throw new Error(`create ${created.status}: ${await created.text()}`);
  const id = ((await created.json()) as { data: { document_id: string } }).data.document_id;
  const sent = await fetch(`${s.base}/v1/signing/documents/${id}/send-invitations`, { method: 'POST', headers: { ...s.auth, 'content-type': 'application/json' }, body: '{"reminder_days":0}' });
  if (sent.status !== 200) throw new Error(`send ${sent.status}`);
  const tSent = performance.now();
  const link1 = await until(() => newLink(s, a), `invitation of ${a}`);
  const tInv1 = performance.now();
  const tSigned1 = await sign(link1);
  const link2 = await until(() => newLink(s, b), `invitation of ${b}`);
  const tInv2 = performance.now();
  const tSigned2 = await sign(link2);
  await until(async () => {
    const { events } = await s.ctx.events.readStream(`webhook-events-${s.tenantId}`);
    return events.some((e) => e.type === 'document.completed' && (e.data as { document_id?: string }).document_id === id) ? true : undefined;
  }, 'document.completed');
  const tCompleted = performance.now();
  const fin = await fetch(`${s.base}/v1/signing/documents/${id}/finalize`, { method: 'POST', headers: s.auth });
  if (fin.status !== 200) throw new Error(`finalize ${fin.status}: ${await fin.text()}`);
  const tFinalized = performance.now();
  await until(async () => ((await s.ctx.workflows.get(id))?.status === 'completed' ? true : undefined), 'workflow closed');
  const tClosed = performance.now();
  return { total: tClosed - t0, invitation: tInv1 - tSent, nextInvitation: tInv2 - tSigned1, completedWebhook: tCompleted - tSigned2, workflowClosed: tClosed - tFinalized };
}

async function main(): Promise<void> {
  const address = await temporalAddress('signing bench on Temporal');
  if (!address) {
    console.error('no Temporal server at TEMPORAL_ADDRESS (default 127.0.0.1:7233): start one with npm run engines -- up');
    process.exit(1);
  }
  const taskQueue = `signing-bench-${process.pid}-${Date.now()}`;
  const servers = [await open('embedded', {}), await open('temporal', { WORKFLOWS: 'temporal', TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue })];
  const pdf = await makePdf(PAGES);
  const results = new Map<string, Timings[]>(servers.map((s) => [s.name, []]));
  for (const s of servers) await once(s, pdf, -1); // warm-up (workflow bundle, MuPDF, pdf-lib fonts, JIT)
  for (let i = 0; i < RUNS; i++) for (const s of servers) results.get(s.name)!.push(await once(s, pdf, i)); // alternating: same conditions

  const [l1, l5] = os.loadavg();
  const embedded = servers[0]!.ctx.config;
  console.log(`signing lifecycle, workflows on Temporal vs embedded: ${RUNS} lifecycles each (alternating, after one warm-up each), ${PAGES}-page PDF (${pdf.length} bytes)`);
  console.log(`  ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), load average ${l1!.toFixed(2)} / ${l5!.toFixed(2)} (1 / 5 min), Node ${process.version}`);
  console.log(`  embedded: SQLite workflows, WORKFLOW_POLL_MS ${embedded.WORKFLOW_POLL_MS}; temporal: server ${address} (task queue ${taskQueue}), engine defaults; both: SQLite events and read models, local blobs, outbox mail, 1 worker thread`);
  const rows: [keyof Timings, string][] = [
    ['total', 'create -> closed workflow (whole sequence)'],
    ['invitation', 'send-invitations answered -> invitation 1 in outbox'],
    ['nextInvitation', 'signature 1 answered -> invitation 2 in outbox'],
    ['completedWebhook', 'signature 2 answered -> document.completed published'],
    ['workflowClosed', 'finalize answered -> workflow completed'],
  ];
  console.log(`  ${'ms'.padEnd(54)} ${'embedded p50 / p95'.padStart(20)} ${'temporal p50 / p95'.padStart(20)}  p50 ratio`);
  for (const [k, label] of rows) {
    const [e, t] = servers.map((s) => results.get(s.name)!.map((r) => r[k]));
    const cell = (xs: number[]) => `${pct(xs, 50).toFixed(0)} / ${pct(xs, 95).toFixed(0)}`.padStart(20);
    // A ratio over a step the embedded engine finishes within the polling interval says nothing.
    const ratio = pct(e!, 50) >= POLL_MS ? `${(pct(t!, 50) / pct(e!, 50)).toFixed(2)}x` : `(embedded < ${POLL_MS} ms poll)`;
    console.log(`  ${label.padEnd(54)} ${cell(e!)} ${cell(t!)}  ${ratio}`);
  }
  for (const s of servers) {
    await s.app.close();
    await s.ctx.close();
    rmSync(s.dir, { recursive: true, force: true });
  }
  await terminateTaskQueue(address, taskQueue); // nothing should be left running; a failed run leaves nothing either
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
