/**
 * Workflows port: durable, engine-neutral process managers (webhook delivery, signing lifecycle, exports).
 *
 * A workflow is written once as a {@link ProcessManager}: pure `(state, input, now) -> (state, effects)`.
 * Engines run it: the embedded one (`infra/workflows/embedded`: state, pending timers and activity records
 * in SQLite, run by an in-process scheduler) and, scaled out, Temporal (`infra/workflows/temporal`: one
 * generic Temporal workflow that feeds the same process manager its signals, timers and activity
 * results). Both must pass `test/contract/workflows.contract.ts`.
 *
 * Delivery guarantees of an engine:
 * - effects are recorded durably before they run; a restart resumes every pending timer and activity;
 * - an activity is started at most once per id: one that was running when the process stopped is fed back
 *   as `activity.failed` with `interrupted: true` (the process manager decides whether to retry under a new id);
 * - time comes from the injected {@link Clock}, so tests can run a two-hour schedule in milliseconds.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export type WorkflowEffect =
  /**
   * Run the named activity (a side effect) with `input`; its outcome comes back as an input.
   * `id` is unique within the workflow. `concurrency` bounds how many activities sharing `key` run at
   * once across all workflows (e.g. one webhook endpoint), so one slow resource cannot hold up others;
   * a Temporal engine maps it to a per-key task queue or a semaphore activity.
   */
  | { type: 'activity'; id: string; name: string; input: unknown; concurrency?: { key: string; limit: number } }
  /** Fire `timer.fired` with this id at `at` (epoch ms, per the engine's clock). Re-using an id replaces the timer. */
  | { type: 'timer'; id: string; at: number };

export type WorkflowInput =
  | { type: 'started'; input: unknown }
  | { type: 'signal'; name: string; payload: unknown }
  | { type: 'timer.fired'; id: string }
  | { type: 'activity.completed'; id: string; result: unknown }
  | { type: 'activity.failed'; id: string; error: string; interrupted?: boolean };

export interface Transition<S> {
  state: S;
  effects: WorkflowEffect[];
  /** When true the workflow is finished; later inputs are ignored. */
  done?: boolean;
}

export interface ProcessManager<S> {
  /** Unique workflow type name, e.g. `webhook-delivery`. */
  name: string;
  handle(state: S | undefined, input: WorkflowInput, context: { now: number; workflowId: string }): Transition<S>;
}

export type Activity = (input: any, context: { workflowId: string; activityId: string }) => Promise<unknown>;

/** A process manager bound to the activities its effects name, as a capability hands it to the engine. */
export interface RegisteredProcessManager {
  /** The workflow type name ({@link ProcessManager.name}). */
  name: string;
  /** The activity names it may schedule. */
  activities: readonly string[];
  /** Registers the process manager and its activities with `engine` (before `engine.run()`). */
  register(engine: WorkflowEngine): void;
}

/** Binds `process` to its `activities` (see {@link RegisteredProcessManager}). */
export function bindProcessManager<S>(process: ProcessManager<S>, activities: Record<string, Activity>): RegisteredProcessManager {
  return { name: process.name, activities: Object.keys(activities), register: (engine) => engine.register(process, activities) };
}

export interface WorkflowStatus<S = unknown> {
  workflowId: string;
  name: string;
  status: 'running' | 'completed';
  state: S;
}

/**
 * What an operator sees of a workflow besides its id and type. Engines with an operator UI (Temporal)
 * show them; the embedded engines ignore them.
 */
export interface WorkflowStartOptions {
  /** The tenant the workflow works for (Temporal: the `SelloTenantId` search attribute). */
  tenantId?: string;
  /** One line saying what the workflow is, in words (Temporal: its summary and memo `description`). No personal data. */
  summary?: string;
}

export interface WorkflowEngine {
  /** Registers a process manager and the activities its effects name. */
  register<S>(manager: ProcessManager<S>, activities: Record<string, Activity>): void;
  /** Starts a workflow; idempotent by `workflowId` (a second start is ignored and returns false). */
  start(name: string, workflowId: string, input: unknown, options?: WorkflowStartOptions): Promise<boolean>;
  signal(workflowId: string, name: string, payload: unknown): Promise<void>;
  get<S = unknown>(workflowId: string): Promise<WorkflowStatus<S> | null>;
  /** Begins executing due timers and pending activities (and resumes those found after a restart). */
  run(): Promise<void>;
  /** Stops the scheduler; in-flight activities are awaited up to `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}
