/**
 * Per-job overhead of the job queues (issues 17 and 27), in the same run: the embedded in-process queue (a
 * worker-thread pool), BullMQ on Redis (producer -> Redis -> consumer -> the same kind of worker-thread
 * pool -> Redis -> producer) and Kafka (producer -> `<prefix>.jobs` -> consumer group -> the same kind of
 * pool -> reply topic -> producer). Two trivial jobs, so the figure is the queue's own cost:
 * `system.health` (no binary input: it travels inside the message) and `system.checksum` of 16 bytes
 * (binary input: on Kafka it goes by claim check, one S3 put, get and delete per job). Sequential round
 * trips give p50 and p99; then `--concurrency` callers give jobs per second. Prints the load average: the
 * machine may be shared.
 *
 *   npm run bench:job-queue [-- --jobs 400 --concurrency 8 --queues in-process,bullmq,kafka]
 *   (needs Redis at REDIS_URL, default redis://127.0.0.1:6379; Kafka at KAFKA_BROKERS, default
 *   127.0.0.1:9092; S3 at S3_ENDPOINT with S3_ACCESS_KEY / S3_SECRET_KEY, default the MinIO of
 *   `npm run engines -- up`)
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Admin } from '@platformatic/kafka';
import { Client } from 'minio';
import { WorkerPoolJobQueue } from '../infra/job-queue/worker-pool/worker-pool-queue.ts';
import { BullMqConsumer, BullMqJobQueue } from '../infra/job-queue/bullmq/bullmq-queue.ts';
import { KafkaJobConsumer } from '../infra/job-queue/kafka/kafka-consumer.ts';
import { KafkaJobQueue } from '../infra/job-queue/kafka/kafka-queue.ts';
import { S3BlobStore } from '../infra/blob-store/s3/s3-blob-store.ts';
import { runOnPool } from '../infra/job-queue/run-on-pool.ts';
import type { JobQueue } from '../infra/ports/job-queue.ts';
import { WORKER_ENTRY } from '../apps/platform/platform.ts';

const { values } = parseArgs({
  options: { jobs: { type: 'string', default: '400' }, concurrency: { type: 'string', default: '8' }, queues: { type: 'string', default: 'in-process,bullmq,kafka' } },
});
const jobs = Number(values.jobs);
const concurrency = Number(values.concurrency);
const queues = new Set(values.queues.split(','));
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const kafkaBrokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const s3 = {
  endpoint: process.env.S3_ENDPOINT ?? 'http://127.0.0.1:9000',
  accessKey: process.env.S3_ACCESS_KEY ?? 'sello-minio',
  secretKey: process.env.S3_SECRET_KEY ?? 'sello-minio-secret',
  region: process.env.S3_REGION ?? 'us-east-1',
};
const JOBS = {
  'system.health': {},
  'system.checksum': { bytes: new Uint8Array(16).fill(7) },
} as const;
type JobName = keyof typeof JOBS;

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

interface Figures { p50: number; p99: number; perSecond: number }

/** Sequential round trips (latency), then `concurrency` callers (throughput), of one job type. */
async function measure(queue: JobQueue, job: JobName): Promise<Figures> {
  const input = JOBS[job];
  for (let i = 0; i < 20; i++) await queue.run(job, input); // warm-up: threads loaded, connections open
  const lat: number[] = [];
  for (let i = 0; i < jobs; i++) {
    const t0 = performance.now();
    await queue.run(job, input);
    lat.push(performance.now() - t0);
  }
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < jobs) await queue.run(job, input);
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { p50: pct(lat, 50), p99: pct(lat, 99), perSecond: jobs / seconds };
}

async function measureBoth(queue: JobQueue): Promise<Record<JobName, Figures>> {
  return { 'system.health': await measure(queue, 'system.health'), 'system.checksum': await measure(queue, 'system.checksum') };
}

const fmt = (n: number): string => n.toFixed(2);
console.log(`load average before: ${loadavg().map((x) => x.toFixed(2)).join(' ')} | jobs ${jobs}, concurrency ${concurrency}`);
const results: Array<[string, Record<JobName, Figures>]> = [];

if (queues.has('in-process')) {
  const embedded = new WorkerPoolJobQueue({ threads: 2, workerFile: WORKER_ENTRY });
  results.push(['in-process', await measureBoth(embedded)]);
  await embedded.close();
}

if (queues.has('bullmq')) {
  const prefix = `sello-bench-${process.pid}`;
  const pool = new WorkerPoolJobQueue({ threads: 2, workerFile: WORKER_ENTRY });
  const consumer = new BullMqConsumer({ url: redisUrl, prefix, concurrency: 8, run: runOnPool(pool) });
  await consumer.ready();
  const producer = new BullMqJobQueue({ url: redisUrl, prefix });
  results.push(['bullmq (Redis)', await measureBoth(producer)]);
  await producer.close();
  await consumer.close();
  await pool.close();
}

if (queues.has('kafka')) {
  const prefix = `sello-bench-${process.pid}`;
  const bucket = `sello-bench-${process.pid}`;
  const blobs = new S3BlobStore({ ...s3, bucket });
  const pool = new WorkerPoolJobQueue({ threads: 2, workerFile: WORKER_ENTRY });
  const consumer = new KafkaJobConsumer({ brokers: kafkaBrokers, topicPrefix: prefix, concurrency: 8, run: runOnPool(pool), blobs, partitions: 4 });
  await consumer.ready();
  const producer = new KafkaJobQueue({ brokers: kafkaBrokers, topicPrefix: prefix, blobs, partitions: 4 });
  results.push(['kafka (+ S3 claims)', await measureBoth(producer)]);
  await producer.close();
  await consumer.close();
  await pool.close();
  // Leave nothing behind: the run's topics, group and (empty) bucket.
  const admin = new Admin({ clientId: 'sello-bench', bootstrapBrokers: kafkaBrokers });
  await admin.deleteTopics({ topics: (await admin.listTopics()).filter((t) => t.startsWith(`${prefix}.`)) }).catch(() => undefined);
  await admin.deleteGroups({ groups: [`${prefix}.workers`] }).catch(() => undefined);
  await admin.close();
  const url = new URL(s3.endpoint);
  await new Client({ endPoint: url.hostname, port: Number(url.port) || 80, useSSL: url.protocol === 'https:', accessKey: s3.accessKey, secretKey: s3.secretKey, region: s3.region, pathStyle: true })
    .removeBucket(bucket)
    .catch(() => undefined);
}

console.log(`queue                 job               p50 ms   p99 ms   jobs/s (concurrency ${concurrency})`);
for (const [name, figures] of results) {
  for (const job of Object.keys(JOBS) as JobName[]) {
    const f = figures[job];
    console.log(`${name.padEnd(21)} ${job.padEnd(17)} ${fmt(f.p50).padStart(6)}   ${fmt(f.p99).padStart(6)}   ${fmt(f.perSecond)}`);
  }
}
const base = results.find(([n]) => n === 'in-process')?.[1];
if (base) {
  for (const [name, figures] of results.filter(([n]) => n !== 'in-process')) {
    for (const job of Object.keys(JOBS) as JobName[]) {
      const f = figures[job];
      console.log(`${name} overhead per ${job}: p50 +${fmt(f.p50 - base[job].p50)} ms, p99 +${fmt(f.p99 - base[job].p99)} ms; throughput ratio ${fmt(f.perSecond / base[job].perSecond)}`);
    }
  }
}
console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
process.exit(0);
