/**
 * The inference worker process (`npm run start:worker`, with `JOB_QUEUE=bullmq` or `JOB_QUEUE=kafka`): built
 * like every process, by the composition root (`createPlatform(config, { kind: 'worker' })`), which starts
 * this process's `WORKER_THREADS` inference threads (the same thread entry as the embedded queue,
 * `apps/worker/worker-entry.mjs`) and the consumer of the configured shared queue feeding them: BullMQ on
 * Redis (`REDIS_URL`) or Kafka (`KAFKA_BROKERS`, group `<JOB_QUEUE_PREFIX>.workers`, images by claim check
 * through `BLOB_STORE=s3`). This event loop stays free for the queue's heartbeats and locks. Run as many as
 * the machines allow, on any machine reaching the broker.
 *
 * Prints `{"ready":true,"pid":…,"threads":…}` on stdout once it takes jobs.
 * SIGTERM / SIGINT: stop taking jobs, finish and answer the running ones, exit 0 (graceful shutdown). A
 * process killed outright (SIGKILL) loses nothing: BullMQ hands its jobs to another worker after
 * `JOB_LOCK_MS`; Kafka gives its partitions, whose offsets it commits only after answering, to another
 * member after `KAFKA_SESSION_TIMEOUT_MS`.
 * Exit 78 (configuration) when the settings are invalid or name no shared queue; 1 when the broker cannot
 * be reached at start.
 */
import { pino } from 'pino';
import { loadConfig, type Config } from '../api/config.ts';
import { createPlatform, type Platform } from '../platform/platform.ts';
import { inferenceThreads } from '../../infra/job-queue/index.ts';

const bootLog = pino({ level: process.env.LOG_LEVEL ?? 'info' });
let config: Config;
try {
  config = loadConfig();
} catch (error) {
  bootLog.fatal({ err: (error as Error).message }, 'inference worker: invalid configuration');
  process.exit(78);
}
if (config.JOB_QUEUE === 'worker-threads') {
  bootLog.fatal('the worker process consumes a shared job queue: set JOB_QUEUE=bullmq (REDIS_URL) or JOB_QUEUE=kafka (KAFKA_BROKERS)');
  process.exit(78);
}

let platform: Platform;
try {
  platform = await createPlatform(config, { kind: 'worker' });
} catch (error) {
  bootLog.fatal({ err: (error as Error).message, queue: config.JOB_QUEUE }, 'inference worker: could not start consuming jobs');
  process.exit(1);
}
const threads = inferenceThreads(config);
platform.log.info({ threads, pid: process.pid, queue: config.JOB_QUEUE }, 'inference worker: consuming jobs');
process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid, threads })}\n`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  platform.log.info({ signal }, 'inference worker: finishing running jobs, then exiting');
  await platform.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
