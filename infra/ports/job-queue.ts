/**
 * Job-queue port: inference jobs handed to workers off the HTTP event loop, results awaited by the caller.
 *
 * Embedded adapter: `infra/job-queue/worker-pool` (an in-process queue feeding a `worker_threads` pool
 * whose entry module the composition root names). Adapters are chosen by `infra/job-queue/index.ts`.
 * Job types are declared by the capability manifests (`apps/capabilities/*`) as typed
 * {@link JobDefinition}s; the worker derives its handler table from them. Inputs and outputs must be
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

/**
 * A handler's answer as it crosses a thread or process boundary: the result, or the failure with its
 * domain `code` and `details` (a coded domain error is an answer: final, never retried).
 */
export type JobEnvelope = { ok: true; result: unknown } | { ok: false; message: string; code?: string; details?: Record<string, unknown> };

/**
 * Runs one job taken from a distributed queue (in a worker process: on its inference threads) and resolves
 * with the handler's {@link JobEnvelope}. A rejection is a crash (a dead thread, an uncoded error, a
 * timeout): the queue retries it, then dead-letters it. `timeoutMs` is what is left of the job's deadline.
 */
export type JobRunner = (jobType: string, input: unknown, timeoutMs: number) => Promise<JobEnvelope>;

/**
 * The worker side of a distributed job queue (`apps/worker` processes, built by the composition root
 * through `createJobConsumer` in `infra/job-queue/index.ts`): takes jobs from the broker and answers them
 * through a {@link JobRunner}.
 */
export interface JobConsumer {
  /** Resolves once connected and taking jobs; rejects when the broker cannot be reached. */
  ready(): Promise<void>;
  /**
   * Graceful stop: takes no new job, waits for the running ones to be answered, records its progress with
   * the broker (acknowledgements, offsets) and leaves, so other workers take over at once. Idempotent.
   */
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

/**
 * A job type with its input and output types: the one contract between the route that enqueues
 * (`runJob(queue, definition, input)`) and the worker handler that runs it. `type` is
 * `<capability>.<operation>`, e.g. `face.detect`. The type parameters exist at compile time only.
 */
export interface JobDefinition<I, O> {
  readonly type: string;
  /** Phantom member carrying the input/output types; never set at run time. */
  readonly __io?: (input: I) => O;
}

/** A job handler: input in, result out; a domain failure is thrown as an Error with a string `code`. */
export type JobHandler<I = never, O = unknown> = (input: I) => Promise<O>;

/** The definitions of a handler table `H` (`{ 'face.detect': (input: X) => Promise<Y>, ... }`). */
export type JobDefinitionsOf<H> = {
  readonly [K in keyof H]: H[K] extends (input: infer I) => Promise<infer O> ? JobDefinition<I, O> : never;
};

/**
 * Declares the jobs of one handler module from its handler table's type, so the input and output types
 * are written once, in the handler's signature. `types` must name every key of `H` (compile error
 * otherwise). Import `H` with `import type`, so the caller never loads the handler module.
 */
export function defineJobs<H>(types: { readonly [K in keyof H]: true }): JobDefinitionsOf<H> {
  const out: Record<string, JobDefinition<unknown, unknown>> = {};
  for (const type of Object.keys(types)) out[type] = { type };
  return out as JobDefinitionsOf<H>;
}

/** Runs a typed job: the input is checked against the handler's signature and the result typed by it. */
export function runJob<I, O>(queue: JobQueue, job: JobDefinition<I, O>, input: I, options?: JobOptions): Promise<O> {
  return queue.run<I, O>(job.type, input, options);
}

/**
 * A handler module as a worker loads it: its handlers by job type and, optionally, `configure`, called
 * once per worker with the validated configuration before the first job (model settings and the like).
 */
export interface JobHandlerModule {
  handlers: Readonly<Record<string, JobHandler<never, unknown>>>;
  configure?(config: unknown): void;
}

/** A capability's jobs: their definitions and the lazily imported module whose handlers run them. */
export interface JobGroup {
  definitions: Readonly<Record<string, JobDefinition<never, unknown>>>;
  load: () => Promise<JobHandlerModule>;
}
