import { Piscina } from 'piscina';
import { availableParallelism } from 'node:os';
import { JobFailedError, JobTimeoutError, type JobOptions, type JobQueue } from '../../ports/job-queue.ts';

type Envelope = { ok: true; result: unknown } | { ok: false; message: string; code?: string; details?: Record<string, unknown> };

export interface WorkerPoolOptions {
  /** Worker threads; default: the number of cores. */
  threads?: number;
  /** Most queued jobs before `run` rejects with a `queue_full` error (backpressure); default 1000. */
  maxQueue?: number;
  /** Default per-job timeout in ms; default 60 000. */
  timeoutMs?: number;
  /** Worker entry module (a file path): it default-exports `(task: {type, input}) => envelope`. */
  workerFile: string;
  /** Handed to every worker thread as `workerData` (the composition root passes the validated configuration). */
  workerData?: unknown;
}

/**
 * Embedded job queue: an in-process queue feeding a `worker_threads` pool (piscina). Workers run the
 * TypeScript sources through tsx's loader, load their models once and keep them. Jobs never run on the
 * HTTP event loop.
 */
export class WorkerPoolJobQueue implements JobQueue {
  private readonly pool: Piscina;
  private readonly timeoutMs: number;
  private completedCount = 0;

  constructor(options: WorkerPoolOptions) {
    const threads = Math.max(1, options.threads ?? availableParallelism());
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.pool = new Piscina({
      filename: options.workerFile,
      workerData: options.workerData,
      // Workers keep their models loaded: an idle worker that exited would reload them (seconds) on the
      // next job, so every thread stays up for the life of the pool.
      minThreads: threads,
      maxThreads: threads,
      maxQueue: options.maxQueue ?? 1000,
      idleTimeout: Number.POSITIVE_INFINITY,
      execArgv: [],
    });
  }

  async run<I, O>(jobType: string, input: I, options?: JobOptions): Promise<O> {
    const controller = new AbortController();
    const timeoutMs = options?.timeoutMs ?? this.timeoutMs;
    const timer = setTimeout(() => controller.abort(new JobTimeoutError(`job ${jobType} timed out after ${timeoutMs} ms`)), timeoutMs);
    const onAbort = () => controller.abort(options?.signal?.reason);
    options?.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      let envelope: Envelope;
      try {
        envelope = (await this.pool.run({ type: jobType, input }, { signal: controller.signal })) as Envelope;
      } catch (error) {
        if (controller.signal.aborted && controller.signal.reason instanceof JobTimeoutError) throw controller.signal.reason;
        if (error instanceof Error && /queue is at limit/i.test(error.message)) {
          throw new JobFailedError('job queue is full', 'queue_full');
        }
        throw new JobFailedError(error instanceof Error ? error.message : String(error), 'worker_error');
      }
      if (!envelope.ok) throw new JobFailedError(envelope.message, envelope.code, envelope.details);
      return envelope.result as O;
    } finally {
      clearTimeout(timer);
      options?.signal?.removeEventListener('abort', onAbort);
      this.completedCount += 1;
    }
  }

  stats() {
    return { queued: this.pool.queueSize, running: this.pool.utilization > 0 ? this.pool.threads.length : 0, completed: this.completedCount, workers: this.pool.threads.length };
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
