/**
 * Job-queue factory: the one place where configuration (`JOB_QUEUE`) selects the adapter. Adding an
 * adapter is one branch here plus its run of `test/contract/job-queue.contract.ts`.
 */
import type { JobQueue } from '../ports/job-queue.ts';
import { WorkerPoolJobQueue } from './worker-pool/worker-pool-queue.ts';
import { BullMqJobQueue } from './bullmq/bullmq-queue.ts';
import { unknownAdapter, type Config } from '../shared/adapter.ts';

export type JobQueueAdapter = Config['JOB_QUEUE'];

export function selectJobQueue(config: Config): JobQueueAdapter {
  return config.JOB_QUEUE;
}

export interface JobQueueDeps {
  /**
   * The worker entry module (a file path) that runs jobs: the composition root names it
   * (`apps/worker/worker-entry.mjs`), so infrastructure never points into an app.
   */
  workerFile: string;
}

/**
 * Creates the configured queue. `bullmq`: a producer on Redis (`REDIS_URL`, `JOB_QUEUE_PREFIX`); the jobs
 * run in `npm run start:worker` processes (docs/operations.md). `worker-threads`: `WORKER_THREADS` threads (default: cores), per-job
 * timeout `JOB_TIMEOUT_MS`; each thread receives the validated configuration as `workerData.config`.
 */
export function createJobQueue(config: Config, deps: JobQueueDeps): JobQueue {
  const adapter = selectJobQueue(config);
  switch (adapter) {
    case 'worker-threads':
      return new WorkerPoolJobQueue({ threads: config.WORKER_THREADS, timeoutMs: config.JOB_TIMEOUT_MS, workerFile: deps.workerFile, workerData: { config } });
    case 'bullmq':
      if (!config.REDIS_URL) throw new Error('JOB_QUEUE=bullmq needs REDIS_URL');
      return new BullMqJobQueue({
        url: config.REDIS_URL,
        prefix: config.JOB_QUEUE_PREFIX,
        timeoutMs: config.JOB_TIMEOUT_MS,
        maxQueue: config.JOB_QUEUE_MAX_WAITING,
        attempts: config.JOB_ATTEMPTS,
      });
    default:
      return unknownAdapter('job queue', adapter);
  }
}
