/**
 * Job-queue factory: the one place where configuration (`JOB_QUEUE`) selects the adapter. Adding an
 * adapter is one branch here (and in {@link createJobConsumer} when it has worker processes) plus its run
 * of `test/contract/job-queue.contract.ts`.
 */
import { availableParallelism } from 'node:os';
import type { BlobStore } from '../ports/blob-store.ts';
import type { JobConsumer, JobQueue } from '../ports/job-queue.ts';
import { WorkerPoolJobQueue } from './worker-pool/worker-pool-queue.ts';
import { BullMqConsumer, BullMqJobQueue } from './bullmq/bullmq-queue.ts';
import { KafkaJobQueue } from './kafka/kafka-queue.ts';
import { KafkaJobConsumer } from './kafka/kafka-consumer.ts';
import type { QueueLog } from './kafka/clients.ts';
import { runOnPool } from './run-on-pool.ts';
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
  /** The platform's blob store (opened on first call): the Kafka adapter's claim check. */
  blobs?: () => BlobStore;
  log?: QueueLog;
}

/** Inference threads of a process that runs jobs itself: `WORKER_THREADS`, default the number of cores. */
export function inferenceThreads(config: Config): number {
  return config.WORKER_THREADS ?? availableParallelism();
}

/**
 * The in-process queue feeding this process's inference threads ({@link inferenceThreads}; per-job timeout
 * `JOB_TIMEOUT_MS`; each thread receives the validated configuration as `workerData.config`): the
 * embedded adapter, and what a worker process runs the jobs it consumes on.
 */
export function createInferencePool(config: Config, deps: Pick<JobQueueDeps, 'workerFile'>): WorkerPoolJobQueue {
  return new WorkerPoolJobQueue({ threads: inferenceThreads(config), timeoutMs: config.JOB_TIMEOUT_MS, workerFile: deps.workerFile, workerData: { config } });
}

/**
 * Creates the configured queue. `worker-threads`: {@link createInferencePool}. `bullmq`: a producer on
 * Redis (`REDIS_URL`, `JOB_QUEUE_PREFIX`); `kafka`: a producer on `KAFKA_BROKERS` (topics under
 * `JOB_QUEUE_PREFIX`), images by claim check through `deps.blobs`. With either, the jobs run in
 * `npm run start:worker` processes (docs/operations.md).
 * @throws Error when `bullmq` lacks `REDIS_URL`, or `kafka` lacks `KAFKA_BROKERS`, a shared blob store
 *   (`BLOB_STORE=s3`) or `deps.blobs`.
 */
export function createJobQueue(config: Config, deps: JobQueueDeps): JobQueue {
  const adapter = selectJobQueue(config);
  switch (adapter) {
    case 'worker-threads':
      return createInferencePool(config, deps);
    case 'bullmq':
      if (!config.REDIS_URL) throw new Error('JOB_QUEUE=bullmq needs REDIS_URL');
      return new BullMqJobQueue({
        url: config.REDIS_URL,
        prefix: config.JOB_QUEUE_PREFIX,
        timeoutMs: config.JOB_TIMEOUT_MS,
        maxQueue: config.JOB_QUEUE_MAX_WAITING,
        attempts: config.JOB_ATTEMPTS,
      });
    case 'kafka':
      return new KafkaJobQueue({
        brokers: kafkaBrokers(config),
        topicPrefix: config.JOB_QUEUE_PREFIX,
        blobs: claimStore(config, deps),
        timeoutMs: config.JOB_TIMEOUT_MS,
        maxQueue: config.JOB_QUEUE_MAX_WAITING,
        partitions: config.KAFKA_JOB_PARTITIONS,
        log: deps.log,
      });
    default:
      return unknownAdapter('job queue', adapter);
  }
}

export interface JobConsumerDeps extends JobQueueDeps {
  /** The in-process queue the consumed jobs run on (the worker process's inference threads). */
  pool: JobQueue;
  /** Jobs run at once: the pool's threads. */
  concurrency: number;
}

/**
 * The worker side of the configured queue, for `npm run start:worker` processes: it takes jobs from the
 * broker and runs them on `deps.pool`. `bullmq`: a BullMQ worker (`JOB_LOCK_MS`); `kafka`: a member of the
 * group `<JOB_QUEUE_PREFIX>.workers` (`KAFKA_SESSION_TIMEOUT_MS`). Both retry a crashed job `JOB_ATTEMPTS`
 * times, then dead-letter it.
 * @throws Error for `worker-threads` (the API process runs its jobs itself: there is nothing to consume), or
 *   when the selected adapter's settings are missing (as {@link createJobQueue}).
 */
export function createJobConsumer(config: Config, deps: JobConsumerDeps): JobConsumer {
  const adapter = selectJobQueue(config);
  switch (adapter) {
    case 'worker-threads':
      throw new Error('a worker process consumes a shared job queue: set JOB_QUEUE=bullmq (with REDIS_URL) or JOB_QUEUE=kafka (with KAFKA_BROKERS); with JOB_QUEUE=worker-threads the API process runs its jobs itself');
    case 'bullmq':
      if (!config.REDIS_URL) throw new Error('JOB_QUEUE=bullmq needs REDIS_URL');
      return new BullMqConsumer({
        url: config.REDIS_URL,
        prefix: config.JOB_QUEUE_PREFIX,
        concurrency: deps.concurrency,
        lockMs: config.JOB_LOCK_MS,
        run: runOnPool(deps.pool),
        log: deps.log,
      });
    case 'kafka':
      return new KafkaJobConsumer({
        brokers: kafkaBrokers(config),
        topicPrefix: config.JOB_QUEUE_PREFIX,
        concurrency: deps.concurrency,
        run: runOnPool(deps.pool),
        blobs: claimStore(config, deps),
        attempts: config.JOB_ATTEMPTS,
        partitions: config.KAFKA_JOB_PARTITIONS,
        sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
        log: deps.log,
      });
    default:
      return unknownAdapter('job queue', adapter);
  }
}

function kafkaBrokers(config: Config): string[] {
  if (!config.KAFKA_BROKERS) throw new Error('JOB_QUEUE=kafka needs KAFKA_BROKERS (comma-separated host:port)');
  return config.KAFKA_BROKERS;
}

/**
 * The claim-check store: the platform's blob store, which must be one every API and worker process reaches
 * (images travel through it, never inside Kafka messages).
 */
function claimStore(config: Config, deps: JobQueueDeps): BlobStore {
  if (config.BLOB_STORE !== 's3') {
    throw new Error('JOB_QUEUE=kafka needs a blob store every process reaches (BLOB_STORE=s3): job images travel through it by claim check');
  }
  if (!deps.blobs) throw new Error('JOB_QUEUE=kafka needs the platform blob store (deps.blobs)');
  return deps.blobs();
}
