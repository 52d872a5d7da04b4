/**
 * OCR latency benchmark over real HTTP (the API server with its worker-thread pool, 2 workers):
 * p50/p95 of `POST /v1/ocr/extract/id` with an INE front + back, and of `POST /v1/ocr/extract/document`
 * with a bill, on degraded synthetic documents (test/generators). Requests are sent one at a time
 * (latency, not throughput). Prints the machine's load average with the figures: other processes on
 * the 2 cores inflate them.
 *
 *   node --import tsx bench/ocr.bench.ts [--count 20] [--seed bench]
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { generateDocument } from '../test/generators/index.ts';
import { startTestServer } from '../test/helpers/server.ts';

const { values: args } = parseArgs({ options: { count: { type: 'string', default: '20' }, seed: { type: 'string', default: 'bench' } } });
const count = Number(args.count);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

// A long job timeout: on a loaded shared machine a 60 s timeout aborts a job, and the pool's abort
// terminates the worker thread mid-inference (the ONNX Runtime addon then aborts the process).
const s = await startTestServer({ config: { WORKER_THREADS: 2, JOB_TIMEOUT_MS: 300_000 } });
const { key } = await s.tenantWithKey('enterprise');

function form(parts: Record<string, Buffer | string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(parts)) {
    if (typeof v === 'string') f.append(k, v);
    else f.append(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), `${k}.jpg`);
  }
  return f;
}

async function timed(path: string, body: FormData): Promise<number> {
  const t0 = performance.now();
  const r = await s.fetch(path, { method: 'POST', body, key });
  await r.arrayBuffer();
  if (r.status !== 200) console.warn(`  ${path} answered ${r.status}`);
  return performance.now() - t0;
}

console.log(`OCR benchmark: ${count} degraded documents per case, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load average at start ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
const ines = await Promise.all(Array.from({ length: count }, (_, i) => generateDocument({ type: 'ine', seed: args.seed, index: i, degrade: true })));
const billTypes = ['electricity_bill', 'phone_bill', 'cable_bill'] as const;
const bills = await Promise.all(Array.from({ length: count }, (_, i) => generateDocument({ type: billTypes[i % 3]!, seed: args.seed, index: i, degrade: true })));

// Warm-up: both workers load the models once.
await Promise.all([
  timed('/v1/ocr/extract/id', form({ front: ines[0]!.images.front!.data, back: ines[0]!.images.back!.data })),
  timed('/v1/ocr/extract/document', form({ image: bills[0]!.images.front!.data, document_type: bills[0]!.truth.type })),
]);

// CPU seconds of this process (main + worker threads) per request: a figure the other processes on the
// machine do not inflate, unlike wall-clock latency.
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const ineMs: number[] = [];
let c0 = cpu();
for (const d of ines) ineMs.push(await timed('/v1/ocr/extract/id', form({ front: d.images.front!.data, back: d.images.back!.data, document_type: 'ine' })));
const ineCpu = (cpu() - c0) / ines.length;
const billMs: number[] = [];
c0 = cpu();
for (const d of bills) billMs.push(await timed('/v1/ocr/extract/document', form({ image: d.images.front!.data, document_type: d.truth.type })));
const billCpu = (cpu() - c0) / bills.length;

const row = (name: string, xs: number[]) =>
  console.log(`  ${name.padEnd(34)} p50 ${(pct(xs, 50) / 1000).toFixed(2)} s   p95 ${(pct(xs, 95) / 1000).toFixed(2)} s   mean ${(xs.reduce((a, b) => a + b, 0) / xs.length / 1000).toFixed(2)} s   (n=${xs.length})`);
row('INE front+back /v1/ocr/extract/id', ineMs);
console.log(`    CPU per request ${ineCpu.toFixed(2)} s (both sides run in parallel on the 2 workers)`);
row('bill /v1/ocr/extract/document', billMs);
console.log(`    CPU per request ${billCpu.toFixed(2)} s`);
console.log(`  target: INE front+back and bill p50 < 1 s (issue 18); load average at end ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
await s.close();
process.exit(0);
