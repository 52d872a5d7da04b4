/**
 * Benchmark: `POST /v1/face/verify` over real HTTP with two 640x480 photos (crops of the face-api demo
 * photo, generated at start), on the embedded deployment (worker pool of WORKER_THREADS threads,
 * default 2). Prints p50/p95 latency at concurrency 1 and 4, and the process memory (the worker pool
 * lives in the process: RSS covers the workers' wasm heaps) before the models load, at rest after
 * warm-up, and the peak under load. Run: `npm run bench:face` (BENCH_N to change the request count,
 * default 40). Each line also gives p99, the process CPU time per request (HTTP thread + workers: less
 * sensitive to other load than latency) and, at concurrency 4, p99 over the concurrency-1 p50 (issue 18
 * asks < 4). The machine's load average is printed with every figure: on a shared 2-core machine
 * latencies move with it.
 */
import { loadavg } from 'node:os';
import { startTestServer } from '../test/helpers/server.ts';
import { faceCrop } from '../test/api/face/fixtures.ts';

const N = Number(process.env.BENCH_N ?? 40);
const threads = Number(process.env.WORKER_THREADS ?? 2);
const mb = (b: number) => (b / 1024 / 1024).toFixed(0);

const s = await startTestServer({ config: { WORKER_THREADS: threads } });
const { tenantId, key } = await s.tenantWithKey('pro');
await s.setLimits(tenantId, null, null);
await s.grant(tenantId, 1_000_000);
const img1 = await faceCrop('a', 0.6);
const img2 = await faceCrop('a', 0.35, { brightness: 1.1, flip: true });

function body(): FormData {
  const fd = new FormData();
  fd.append('image1', new Blob([new Uint8Array(img1)], { type: 'image/jpeg' }), 'a.jpg');
  fd.append('image2', new Blob([new Uint8Array(img2)], { type: 'image/jpeg' }), 'b.jpg');
  return fd;
}
async function once(): Promise<number> {
  const t = performance.now();
  const res = await fetch(`${s.url}/v1/face/verify`, { method: 'POST', body: body(), headers: { authorization: `Bearer ${key}` } });
  const j = (await res.json()) as { success: boolean; data?: { verified: boolean } };
  if (res.status !== 200 || !j.data?.verified) throw new Error(`unexpected answer ${res.status} ${JSON.stringify(j)}`);
  return performance.now() - t;
}
let peakRss = 0;
const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 50);
async function run(concurrency: number, n: number): Promise<number[]> {
  const lat: number[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) { next++; lat.push(await once()); }
  }));
  return lat.sort((a, b) => a - b);
}
const q = (v: number[], p: number) => v[Math.min(v.length - 1, Math.floor(p * v.length))]!;

const before = process.memoryUsage().rss;
const tWarm = performance.now();
await run(2, 6); // loads the models in both workers
console.log(`warm-up (model load in ${threads} workers + 6 requests): ${((performance.now() - tWarm) / 1000).toFixed(1)} s`);
await new Promise((r) => setTimeout(r, 1000));
const rest = process.memoryUsage().rss;
console.log(`setup: ${threads} worker threads (nets on onnxruntime-node, pre-processing on tfjs-backend-wasm), 2 cores; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
const p50s: Record<number, number> = {};
for (const c of [1, 4]) {
  peakRss = 0;
  const t = performance.now();
  const cpu0 = process.cpuUsage(); // the whole process: HTTP thread and the worker threads
  const lat = await run(c, N);
  const cpu = process.cpuUsage(cpu0);
  const secs = (performance.now() - t) / 1000;
  p50s[c] = q(lat, 0.5);
  const ratio = c === 4 ? `  p99/p50(c1) ${(q(lat, 0.99) / p50s[1]!).toFixed(2)}` : '';
  console.log(`verify concurrency ${c}: n=${N} p50 ${q(lat, 0.5).toFixed(0)} ms  p95 ${q(lat, 0.95).toFixed(0)} ms  p99 ${q(lat, 0.99).toFixed(0)} ms  max ${lat.at(-1)!.toFixed(0)} ms${ratio}  throughput ${(N / secs).toFixed(2)} req/s  CPU ${((cpu.user + cpu.system) / 1000 / N).toFixed(0)} ms/request  peak RSS ${mb(peakRss)} MB  load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
}
clearInterval(sampler);
console.log(`memory (process RSS incl. worker pool): before models ${mb(before)} MB, at rest after warm-up ${mb(rest)} MB, peak under load ${mb(peakRss)} MB; load average now ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
await s.close();
