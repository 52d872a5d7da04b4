/**
 * The inference worker process (`npm run start:worker`, `JOB_QUEUE=bullmq`): consumes inference jobs
 * from the BullMQ queue in Redis (`REDIS_URL`) and runs them on this process's `WORKER_THREADS`
 * inference threads (the same thread entry as the embedded queue, `apps/worker/worker-entry.mjs`), so
 * this event loop stays free to renew job locks. Run as many as the machines allow, on any machine
 * reaching Redis.
 *
 * SIGTERM / SIGINT: stop taking jobs, finish the running ones, exit 0 (graceful shutdown). A process
 * killed outright (SIGKILL) loses nothing: its jobs' locks expire after `JOB_LOCK_MS` and another
 * worker runs them.
 */
import { availableParallelism } from 'node:os';
import { pino } from 'pino';
import { loadConfig } from '../api/config.ts';
import { WORKER_ENTRY } from '../platform/platform.ts';
import { WorkerPoolJobQueue } from '../../infra/job-queue/worker-pool/worker-pool-queue.ts';
import { BullMqConsumer } from '../../infra/job-queue/bullmq/bullmq-queue.ts';
import { runOnPool } from '../../infra/job-queue/run-on-pool.ts';

const config = loadConfig();
const log = pino({ level: config.LOG_LEVEL });
if (!config.REDIS_URL) {
  log.fatal('the worker process needs REDIS_URL (it consumes the BullMQ queue)');
  process.exit(78);
}
const threads = config.WORKER_THREADS ?? availableParallelism();
const pool = new WorkerPoolJobQueue({ threads, timeoutMs: config.JOB_TIMEOUT_MS, workerFile: WORKER_ENTRY, workerData: { config } });
const consumer = new BullMqConsumer({
  url: config.REDIS_URL,
  prefix: config.JOB_QUEUE_PREFIX,
  concurrency: threads,
  lockMs: config.JOB_LOCK_MS,
  run: runOnPool(pool),
  log,
});
await consumer.ready();
log.info({ threads, pid: process.pid }, 'inference worker: consuming jobs');
process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid, threads })}\n`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'inference worker: finishing running jobs, then exiting');
  await consumer.close();
  await pool.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
