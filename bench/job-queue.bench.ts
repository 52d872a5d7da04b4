/**
 * Per-job overhead of the job queues (issue 17), in the same run: the embedded in-process queue (a
 * worker-thread pool) against BullMQ on Redis (producer -> Redis -> consumer -> the same kind of
 * worker-thread pool -> Redis -> producer). The job is `system.checksum` of 16 bytes, so the figure is
 * the queue's own cost. Prints the load average: the machine may be shared.
 *
 *   npm run bench:job-queue [-- --jobs 400 --concurrency 8]
 *   (needs Redis at REDIS_URL, default redis://127.0.0.1:6379)
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { WorkerPoolJobQueue } from '../infra/job-queue/worker-pool/worker-pool-queue.ts';
import { BullMqConsumer, BullMqJobQueue } from '../infra/job-queue/bullmq/bullmq-queue.ts';
import { runOnPool } from '../infra/job-queue/run-on-pool.ts';
import type { JobQueue } from '../infra/ports/job-queue.ts';
import { WORKER_ENTRY } from '../apps/platform/platform.ts';

const { values } = parseArgs({ options: { jobs: { type: 'string', default: '400' }, concurrency: { type: 'string', default: '8' } } });
const jobs = Number(values.jobs);
const concurrency = Number(values.concurrency);
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const input = { bytes: new Uint8Array(16).fill(7) };

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** Sequential round trips (latency), then `concurrency` callers (throughput). */
async function measure(queue: JobQueue): Promise<{ p50: number; p99: number; perSecond: number }> {
  for (let i = 0; i < 20; i++) await queue.run('system.checksum', input); // warm-up: threads loaded, connections open
  const lat: number[] = [];
  for (let i = 0; i < jobs; i++) {
    const t0 = performance.now();
    await queue.run('system.checksum', input);
    lat.push(performance.now() - t0);
  }
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < jobs) await queue.run('system.checksum', input);
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { p50: pct(lat, 50), p99: pct(lat, 99), perSecond: jobs / seconds };
}

const fmt = (n: number): string => n.toFixed(2);
console.log(`load average before: ${loadavg().map((x) => x.toFixed(2)).join(' ')} | jobs ${jobs}, concurrency ${concurrency}`);

const embedded = new WorkerPoolJobQueue({ threads: 2, workerFile: WORKER_ENTRY });
const inProcess = await measure(embedded);
await embedded.close();

const prefix = `sello-bench-${process.pid}`;
const pool = new WorkerPoolJobQueue({ threads: 2, workerFile: WORKER_ENTRY });
const consumer = new BullMqConsumer({ url, prefix, concurrency: 8, run: runOnPool(pool) });
await consumer.ready();
const producer = new BullMqJobQueue({ url, prefix });
const bull = await measure(producer);
await producer.close();
await consumer.close();
await pool.close();

console.log('queue            p50 ms   p99 ms   jobs/s (concurrency ' + concurrency + ')');
console.log(`in-process       ${fmt(inProcess.p50).padStart(6)}   ${fmt(inProcess.p99).padStart(6)}   ${fmt(inProcess.perSecond)}`);
console.log(`bullmq (Redis)   ${fmt(bull.p50).padStart(6)}   ${fmt(bull.p99).padStart(6)}   ${fmt(bull.perSecond)}`);
console.log(`BullMQ overhead per job: p50 +${fmt(bull.p50 - inProcess.p50)} ms, p99 +${fmt(bull.p99 - inProcess.p99)} ms; throughput ratio ${fmt(bull.perSecond / inProcess.perSecond)}`);
console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
process.exit(0);
