/**
 * Job-queue fairness, before and after in the same run (issue 18, item 5). Four closed-loop clients
 * each send "requests" of two jobs (like `POST /v1/face/verify`) to a pool of two worker threads; a job
 * is `system.sleep` (a timer in the worker), so the figures hardly move with the machine's load.
 * - before: piscina fed directly, every task with an abort signal (what WorkerPoolJobQueue did);
 * - after: WorkerPoolJobQueue (FIFO gate in front of the same pool).
 * With first-in-first-out service every request waits for the three ahead of it: latency ~ 4 x the job
 * time, p99 close to p50. Prints p50/p99/max and how many jobs finished out of submission order.
 * Run: `npm run bench:job-queue-fairness` (BENCH_N requests, default 60).
 */
import { loadavg } from 'node:os';
import { Piscina } from 'piscina';
import { WORKER_ENTRY } from '../apps/platform/platform.ts';
import { loadConfig } from '../apps/api/config.ts';
import { WorkerPoolJobQueue } from '../infra/job-queue/worker-pool/worker-pool-queue.ts';

const N = Number(process.env.BENCH_N ?? 60);
const JOB_MS = 40;
const config = loadConfig({}, { LOG_LEVEL: 'silent', BOOTSTRAP: 'false' });
type RunJob = (i: number) => Promise<unknown>;

async function closedLoop(runJob: RunJob): Promise<{ lat: number[]; outOfOrder: number }> {
  const lat: number[] = [];
  const finished: number[] = [];
  let next = 0, seq = 0;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next < N) {
      next++;
      const t = performance.now();
      await Promise.all([0, 1].map(() => { const id = seq++; return runJob(id).then(() => finished.push(id)); }));
      lat.push(performance.now() - t);
    }
  }));
  // a job finished out of order when a job submitted later had already finished before it
  let maxSeen = -1, outOfOrder = 0;
  for (const id of finished) { if (id < maxSeen - 1) outOfOrder++; maxSeen = Math.max(maxSeen, id); }
  return { lat: lat.sort((a, b) => a - b), outOfOrder };
}
const q = (v: number[], p: number) => v[Math.min(v.length - 1, Math.floor(p * v.length))]!;
const show = (name: string, r: { lat: number[]; outOfOrder: number }) =>
  console.log(`${name.padEnd(36)} p50 ${q(r.lat, 0.5).toFixed(0)} ms  p99 ${q(r.lat, 0.99).toFixed(0)} ms  max ${r.lat.at(-1)!.toFixed(0)} ms  p99/p50 ${(q(r.lat, 0.99) / q(r.lat, 0.5)).toFixed(2)}  jobs out of order ${r.outOfOrder}  load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);

console.log(`${N} requests of 2 x ${JOB_MS} ms jobs, 4 clients, 2 worker threads (ideal latency ~${4 * JOB_MS} ms)`);
const pool = new Piscina({ filename: WORKER_ENTRY, workerData: { config }, minThreads: 2, maxThreads: 2, maxQueue: 1000, idleTimeout: Number.POSITIVE_INFINITY, execArgv: [] });
await Promise.all([0, 1].map(() => pool.run({ type: 'system.health', input: {} })));
show('before: piscina, signalled tasks', await closedLoop(() => pool.run({ type: 'system.sleep', input: { ms: JOB_MS } }, { signal: new AbortController().signal })));
await pool.destroy();

const queue = new WorkerPoolJobQueue({ threads: 2, workerFile: WORKER_ENTRY, workerData: { config } });
await Promise.all([0, 1].map(() => queue.run('system.health', {})));
show('after: WorkerPoolJobQueue (FIFO gate)', await closedLoop(() => queue.run('system.sleep', { ms: JOB_MS })));
await queue.close();
