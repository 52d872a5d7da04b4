import { randomUUID } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import { Queue, QueueEvents, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { withTimeout } from '../../shared/with-timeout.ts';
import { JobFailedError, JobTimeoutError, type JobEnvelope, type JobOptions, type JobConsumer, type JobQueue, type JobRunner } from '../../ports/job-queue.ts';

/** What a job carries in Redis: the input in V8's structured-clone format (binary survives), and its deadline. */
interface WireJob {
  /** base64 of `v8.serialize(input)`. */
  input: string;
  /** Epoch ms after which nobody waits for the answer: the worker drops the job instead of running it. */
  deadline: number;
}

export type { JobEnvelope } from '../../ports/job-queue.ts';

const encode = (value: unknown): string => serialize(value).toString('base64');
const decode = <T>(text: string): T => deserialize(Buffer.from(text, 'base64')) as T;

export interface BullMqOptions {
  /** e.g. `redis://127.0.0.1:6379`. */
  url: string;
  /** BullMQ key prefix (separates deployments and tests sharing one Redis). Default `sello`. */
  prefix?: string;
  /** Queue name. Default `inference`. */
  queueName?: string;
}

export interface BullMqProducerOptions extends BullMqOptions {
  /** Default deadline of a job, ms (the caller's wait). Default 60 000. */
  timeoutMs?: number;
  /** Waiting jobs beyond which `run` rejects at once with `queue_full` (back-pressure). Default 1000. */
  maxQueue?: number;
  /** Attempts of a job that fails without a domain code (crash, bug) before it is dead-lettered. Default 3. */
  attempts?: number;
}

/** The Redis connection BullMQ's blocking clients need (`maxRetriesPerRequest: null`). */
function connection(url: string, failFast: boolean): Redis {
  const r = new Redis(url, failFast ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 } : { maxRetriesPerRequest: null });
  r.on('error', () => undefined); // surfaced per call
  return r;
}

/**
 * Producer side of the scaled-out job queue (`JOB_QUEUE=bullmq`): API processes enqueue inference jobs
 * on a BullMQ queue in Redis and wait for the answer; `apps/worker/main.ts` processes (any number, on
 * any machine reaching Redis) run them.
 *
 * - Request/reply with a deadline: `run` waits for the job's completion event (BullMQ `QueueEvents`) up
 *   to `timeoutMs`, then rejects with {@link JobTimeoutError}; the job carries that deadline and a
 *   worker that picks it up later drops it.
 * - Retries: a job whose handler crashes (no domain code) is retried `attempts` times with exponential
 *   back-off; one that still fails stays in BullMQ's failed set, the dead-letter (kept: the newest
 *   10 000), and the caller gets a `worker_error`. A coded domain error is an answer, never retried.
 * - Back-pressure: when more than `maxQueue` jobs wait, `run` rejects at once with `queue_full` (the
 *   routes answer 503 with `Retry-After`); when Redis is unreachable, with `queue_unavailable`.
 * - A worker killed mid-job (SIGKILL) stops renewing the job's lock; BullMQ's stalled-job check hands
 *   it to another worker, so the job is not lost, and the caller still gets exactly one answer (credits
 *   are settled by the API once per request, never by workers).
 */
export class BullMqJobQueue implements JobQueue {
  private readonly queue: Queue;
  private readonly events: QueueEvents;
  private readonly producerConnection: Redis;
  private readonly eventsConnection: Redis;
  private readonly ready: Promise<void>;
  private readonly timeoutMs: number;
  private readonly maxQueue: number;
  private readonly attempts: number;
  private inFlight = 0;
  private completed = 0;
  private cached = { waiting: 0, workers: 0, at: 0 };
  private waitingReadAt = 0;

  constructor(options: BullMqProducerOptions) {
    const name = options.queueName ?? 'inference';
    const prefix = options.prefix ?? 'sello';
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxQueue = options.maxQueue ?? 1000;
    this.attempts = options.attempts ?? 3;
    this.producerConnection = connection(options.url, true);
    this.eventsConnection = connection(options.url, false);
    this.queue = new Queue(name, { connection: this.producerConnection, prefix });
    this.queue.on('error', () => undefined);
    this.events = new QueueEvents(name, { connection: this.eventsConnection, prefix });
    this.events.on('error', () => undefined);
    this.ready = this.events.waitUntilReady().then(() => undefined);
    this.ready.catch(() => undefined);
  }

  async run<I, O>(jobType: string, input: I, options?: JobOptions): Promise<O> {
    const timeoutMs = options?.timeoutMs ?? this.timeoutMs;
    const deadline = Date.now() + timeoutMs;
    this.inFlight++;
    try {
      let job: Job;
      try {
        await withTimeout(this.ready, 2000, 'not connected within 2000 ms');
        // The waiting count is read at most every 250 ms (one round trip saved per job): back-pressure is a
        // bound on the backlog, not an exact count.
        if (Date.now() - this.waitingReadAt > 250) {
          this.waitingReadAt = Date.now();
          this.cached.waiting = await this.queue.getWaitingCount();
        }
        if (this.cached.waiting >= this.maxQueue) throw new JobFailedError('job queue is full', 'queue_full');
        const data: WireJob = { input: encode(input), deadline };
        job = await this.queue.add(jobType, data, {
          jobId: randomUUID(),
          attempts: this.attempts,
          backoff: { type: 'exponential', delay: 200 },
          // Kept a little while: the caller's wait looks the job up after `add`, and a fast job removed at
          // completion would be "missing" to it. Bounded by age and count (inputs can be images).
          removeOnComplete: { age: 10, count: 1000 },
          removeOnFail: { count: 10_000 },
        });
      } catch (error) {
        if (error instanceof JobFailedError) throw error;
        throw new JobFailedError(`job queue unavailable: ${(error as Error).message}`, 'queue_unavailable');
      }
      let returned: unknown;
      try {
        returned = await abortable(job.waitUntilFinished(this.events, Math.max(1, deadline - Date.now())), options?.signal);
      } catch (error) {
        const message = (error as Error).message ?? String(error);
        if (/timed out before finishing/i.test(message) || Date.now() >= deadline) {
          throw new JobTimeoutError(`job ${jobType} timed out after ${timeoutMs} ms`);
        }
        if (/deadline_exceeded/.test(message)) throw new JobTimeoutError(`job ${jobType} timed out after ${timeoutMs} ms`);
        throw new JobFailedError(message, 'worker_error');
      }
      const envelope = decode<JobEnvelope>((returned as { envelope: string }).envelope);
      if (!envelope.ok) throw new JobFailedError(envelope.message, envelope.code, envelope.details);
      return envelope.result as O;
    } finally {
      this.inFlight--;
      this.completed++;
    }
  }

  /** Local counters plus the last counts read from Redis (refreshed in the background, at most every 2 s). */
  stats() {
    if (Date.now() - this.cached.at > 2000) {
      this.cached.at = Date.now();
      void Promise.all([this.queue.getWaitingCount(), this.queue.getWorkersCount()])
        .then(([waiting, workers]) => {
          this.cached.waiting = waiting;
          this.cached.workers = workers;
        })
        .catch(() => undefined);
    }
    return { queued: this.cached.waiting, running: this.inFlight, completed: this.completed, workers: this.cached.workers };
  }

  async close(): Promise<void> {
    // A queue that never reached Redis would wait for it forever in close(): bounded.
    await withTimeout(this.events.close(), 2000, 'close timed out').catch(() => undefined);
    await withTimeout(this.queue.close(), 2000, 'close timed out').catch(() => undefined);
    this.producerConnection.disconnect();
    this.eventsConnection.disconnect();
  }
}

export interface BullMqConsumerOptions extends BullMqOptions {
  /** Jobs this process runs at once (match the inference threads behind `run`). */
  concurrency: number;
  /**
   * Runs one job; resolves with the handler's envelope. A rejection is a crash (retried, then
   * dead-lettered). `timeoutMs` is what is left of the job's deadline.
   */
  run: JobRunner;
  /**
   * How long a job stays locked by this worker without a renewal, ms; after it a job whose worker died
   * is handed to another worker (BullMQ stalled-job check, every `lockMs / 2`). Default 30 000.
   */
  lockMs?: number;
  log?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}

/**
 * Consumer side: a BullMQ worker that feeds jobs to `run` (in `apps/worker/main.ts`, the process's
 * inference threads, so this event loop stays free to renew job locks). `close()` stops taking jobs and
 * waits for the in-flight ones to finish (graceful shutdown).
 */
export class BullMqConsumer implements JobConsumer {
  private readonly worker: Worker;
  private readonly connection: Redis;

  constructor(options: BullMqConsumerOptions) {
    const lockMs = options.lockMs ?? 30_000;
    this.connection = connection(options.url, false);
    const log = options.log;
    this.worker = new Worker(
      options.queueName ?? 'inference',
      async (job: Job<WireJob>) => {
        const left = job.data.deadline - Date.now();
        // Nobody waits for this answer any more (the caller timed out): drop it, never retry.
        if (left <= 0) throw new UnrecoverableError('deadline_exceeded');
        const envelope = await options.run(job.name, decode(job.data.input), left);
        return { envelope: encode(envelope) };
      },
      {
        connection: this.connection,
        prefix: options.prefix ?? 'sello',
        concurrency: options.concurrency,
        lockDuration: lockMs,
        stalledInterval: Math.max(500, Math.floor(lockMs / 2)),
        maxStalledCount: 2,
      },
    );
    this.worker.on('error', (err) => log?.error({ err: String(err) }, 'job worker: Redis error'));
    this.worker.on('failed', (job, err) => {
      if (!job) return;
      const final = job.attemptsMade >= (job.opts.attempts ?? 1) || err instanceof UnrecoverableError;
      (final ? log?.error : log?.warn)?.call(log, { job: job.name, id: job.id, attempt: job.attemptsMade, err: err.message }, final ? 'job failed: dead-lettered' : 'job failed: will retry');
    });
  }

  /** Resolves once connected to Redis. */
  async ready(): Promise<void> {
    await this.worker.waitUntilReady();
  }

  /** Stops taking jobs and waits for the running ones to finish. */
  async close(): Promise<void> {
    await this.worker.close();
    this.connection.disconnect();
  }
}


function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
