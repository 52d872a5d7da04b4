import { Piscina } from 'piscina';
import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';
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
  /** V8 old-generation growing factor, in percent above the live heap; default {@link WORKER_HEAP_GROWING_PERCENT}. */
  heapGrowingPercent?: number;
}

/**
 * How far (percent) V8 lets a heap grow above its live size before the next full mark-compact, set for
 * the process that hosts the worker pool (V8 flags are per process: workers and HTTP thread alike).
 * Why: an inference worker keeps about 80 MB of live JS heap (tfjs, face-api and their models' objects)
 * and allocates little, so V8's own rule set its limit only about 23 MB above that and started a new
 * incremental mark of the whole 80 MB almost at once after each one: measured on `POST /v1/face/verify`,
 * one mark-compact every 3 jobs per worker, and V8's helper threads (concurrent marking, sweeping) used
 * 65-90 ms of CPU per request, more than either worker thread. At 100 (limit = 2 x live) the same run had
 * a third of the mark-compacts and 35% less CPU per request (docs/face.md, "Fourth pass"); the cost is up
 * to one live heap more per worker between collections.
 */
export const WORKER_HEAP_GROWING_PERCENT = 100;

/** {@link FifoGate} refused a job: `maxQueue` jobs were already waiting. */
export class QueueFullError extends Error {
  override readonly name = 'QueueFullError';
}

/**
 * First-in-first-out admission: runs at most `capacity` tasks at once and starts waiting tasks strictly
 * in arrival order. The worker pool sits behind it with never more tasks than threads, so the pool's own
 * queue (piscina's, which reorders tasks that carry an abort signal: measured, a burst of 12 jobs on one
 * thread completed as 0 1 3 5 7 9 11 4 8 2 10 6) is never used, and a verify request's two jobs are
 * served right after the jobs of the requests that arrived before it (issue 18, item 5).
 */
export class FifoGate {
  private readonly waiting: Array<{ start: () => void }> = [];
  private running = 0;

  /**
   * @param capacity tasks run at once (the worker threads), at least 1
   * @param maxQueue most tasks waiting; one more is refused with {@link QueueFullError}
   */
  constructor(readonly capacity: number, readonly maxQueue: number) {}

  /** Tasks waiting for a slot. */
  get queued(): number { return this.waiting.length; }

  /** Tasks running. */
  get active(): number { return this.running; }

  /**
   * Runs `task` once a slot is free, after every task submitted before it has started.
   * @throws QueueFullError when `maxQueue` tasks are waiting; `signal.reason` when `signal` aborts
   *   before the task started (it is then removed from the queue and never started)
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        signal?.removeEventListener('abort', onAbort);
        this.running += 1;
        let p: Promise<T>;
        try { p = task(); } catch (error) { p = Promise.reject(error); }
        p.then(resolve, reject).finally(() => {
          this.running -= 1;
          this.next();
        });
      };
      const entry = { start };
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) { this.waiting.splice(i, 1); reject(signal!.reason); }
      };
      if (this.running < this.capacity && this.waiting.length === 0) return start();
      if (this.waiting.length >= this.maxQueue) return reject(new QueueFullError(`${this.waiting.length} jobs are waiting`));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  private next(): void {
    while (this.running < this.capacity && this.waiting.length > 0) this.waiting.shift()!.start();
  }
}

/**
 * Embedded job queue: an in-process first-in-first-out queue ({@link FifoGate}) feeding a
 * `worker_threads` pool (piscina). Workers run the TypeScript sources through tsx's loader, load their
 * models once and keep them. Jobs never run on the HTTP event loop.
 */
export class WorkerPoolJobQueue implements JobQueue {
  private readonly pool: Piscina;
  private readonly gate: FifoGate;
  private readonly timeoutMs: number;
  private completedCount = 0;

  constructor(options: WorkerPoolOptions) {
    const threads = Math.max(1, options.threads ?? availableParallelism());
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.gate = new FifoGate(threads, options.maxQueue ?? 1000);
    setFlagsFromString(`--heap-growing-percent=${Math.max(0, Math.round(options.heapGrowingPercent ?? WORKER_HEAP_GROWING_PERCENT))}`);
    this.pool = new Piscina({
      filename: options.workerFile,
      workerData: options.workerData,
      // Workers keep their models loaded: an idle worker that exited would reload them (seconds) on the
      // next job, so every thread stays up for the life of the pool.
      minThreads: threads,
      maxThreads: threads,
      // the FIFO gate in front keeps at most `threads` tasks here, so this queue stays empty
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
        // The signal removes a job that is still waiting, but never reaches piscina: aborting a running
        // task terminates its thread, and a thread terminated inside onnxruntime's native code aborts the
        // whole process ("terminate called after throwing an instance of 'Napi::Error'", seen with a slow
        // OCR job). A job past its deadline is answered at once with JobTimeoutError and keeps its thread
        // (and its gate slot, so no other job is started on a busy thread) until it returns; its result
        // is dropped.
        const work = this.gate.run(() => this.pool.run({ type: jobType, input }), controller.signal);
        envelope = (await untilAborted(work, controller.signal)) as Envelope;
      } catch (error) {
        if (controller.signal.aborted && controller.signal.reason instanceof JobTimeoutError) throw controller.signal.reason;
        if (error instanceof QueueFullError || (error instanceof Error && /queue is at limit/i.test(error.message))) {
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
    return { queued: this.gate.queued + this.pool.queueSize, running: this.gate.active, completed: this.completedCount, workers: this.pool.threads.length };
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

/**
 * Settles like `work`, or rejects with `signal.reason` as soon as `signal` aborts (the work goes on and
 * its outcome is ignored).
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
