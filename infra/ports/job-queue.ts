/**
 * Job-queue port: inference jobs handed to workers off the HTTP event loop, results awaited by the caller.
 *
 * Embedded adapter: `infra/job-queue/worker-pool` (an in-process queue feeding a `worker_threads` pool
 * running `apps/worker/worker.ts`). Scaled-out: Kafka request/reply topics consumed by `apps/worker`.
 * Job handlers live in `apps/worker/handlers.ts`, keyed by job type; inputs and outputs must be
 * structured-clone-able (Buffers/Uint8Arrays are fine).
 */
export interface JobOptions {
  /** Reject with {@link JobTimeoutError} after this many milliseconds. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface JobQueue {
  /** Enqueues a job and resolves with its result; rejects with the handler's error (as {@link JobFailedError}). */
  run<I, O>(jobType: string, input: I, options?: JobOptions): Promise<O>;
  stats(): { queued: number; running: number; completed: number; workers: number };
  close(): Promise<void>;
}

/** The job's handler threw. `code` carries a domain error code when the handler raised a coded error. */
export class JobFailedError extends Error {
  override readonly name = 'JobFailedError';
  constructor(
    message: string,
    readonly code?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export class JobTimeoutError extends Error {
  override readonly name = 'JobTimeoutError';
}
