/**
 * What the Temporal engine's two sides share: the sandboxed workflow code (`workflow.ts`, bundled by the
 * Temporal worker and run deterministically) and the Node side (`engine.ts`: client, worker and the
 * engine's own activities). Names, argument shapes and constants only: no Node built-ins, no I/O, so
 * the workflow bundle can import it.
 */
import type { WorkflowEffect, WorkflowInput } from '../../ports/workflows.ts';

/** Local activity that runs a process manager's `handle(state, input, { now, workflowId })` in the worker process. */
export const DECIDE_ACTIVITY = 'sello.decide';
/** Workflow type of the semaphores that bound activity concurrency per key across workers (one per task queue). */
export const SEMAPHORE_WORKFLOW = 'selloSemaphore';
/** Update of a semaphore: blocks until at least one permit of a {@link PermitRequest} is granted; answers their ids. */
export const ACQUIRE_UPDATE = 'acquire';
/** Signal to a semaphore: these permits (ids) are given back. */
export const RELEASE_SIGNAL = 'release';
/** Signal to a semaphore: these permits (ids) are still held; their leases run `leaseMs` more. */
export const RENEW_SIGNAL = 'renew';
/**
 * Signal to a semaphore: these `acquire` requests (request ids) are withdrawn, their worker stopped: one
 * still waiting is answered with no permit, permits already granted to it are given back.
 */
export const WITHDRAW_SIGNAL = 'withdraw';
/** Failure type of an acquire refused because the semaphore is continuing as new: ask again. */
export const SEMAPHORE_MOVING = 'SelloSemaphoreMoving';
/** Query answering `{ status, state }` of a process-manager workflow (for operators: `temporal workflow query --type state`). */
export const STATE_QUERY = 'state';
/** Failure type of an activity the engine stopped while it ran: the process manager sees `interrupted: true`. */
export const INTERRUPTED_FAILURE = 'SelloActivityInterrupted';
/** Workflow id prefix of the semaphores of task queue `q`: `sello-semaphore:q`. */
export const SEMAPHORE_ID_PREFIX = 'sello-semaphore:';
/**
 * When a timer woke before the injected clock reached its `at` (the server's clock runs ahead of the
 * engine's, or a test moves the engine's clock by hand), it is re-armed no sooner than this (ms), so a
 * clock that stands still never makes a workflow spin.
 */
export const RECHECK_MIN_MS = 500;
/** History length past which a process-manager workflow continues as new at its next quiet point. */
export const CONTINUE_AS_NEW_AFTER_EVENTS = 5_000;

/** The argument of {@link DECIDE_ACTIVITY}. */
export interface DecideRequest {
  /** Process-manager type (the workflow type). */
  name: string;
  workflowId: string;
  state: unknown;
  input: WorkflowInput;
  /** For `timer.fired`: the timer's `at` (epoch ms, engine clock); the decision is `not-due` while the clock is before it. */
  timerAt?: number;
}

/** The answer of {@link DECIDE_ACTIVITY}; `now` is the engine clock (epoch ms) when it was made. */
export type DecideResult =
  | { kind: 'transition'; now: number; state: unknown; effects: WorkflowEffect[]; done: boolean }
  | { kind: 'not-due'; now: number }
  /** `handle` threw: the input is dropped (as the embedded engine rolls the transition back) and logged. */
  | { kind: 'error'; now: number; message: string };

/** The argument of {@link ACQUIRE_UPDATE}; its answer is the ids of the permits granted (one to `count`). */
export interface PermitRequest {
  /** The concurrency key. */
  key: string;
  /** Unique per request; asking again with the same id returns the permits already granted to it. */
  requestId: string;
  /** Permits wanted (the worker's activities waiting for this key); at least one is granted. */
  count: number;
  /** The worker that will hold them (for operators, in the semaphore's state). */
  holder: string;
  /** Permits of this key at once; the latest request's limit applies. */
  limit: number;
  /** A permit is reclaimed when not renewed for this long (its worker died), ms. */
  leaseMs: number;
}

/** The second argument of a process manager's activity: what the worker must respect before running it. */
export interface ActivityOptionsArg {
  concurrency?: { key: string; limit: number };
}

/** What a process-manager workflow carries into its next run when it continues as new. */
export interface CarriedState {
  state: unknown;
  /** Pending timers: `[timer id, at]` (engine clock, epoch ms). */
  timers: [string, number][];
  /** Activity ids already started (an id is never started twice in a workflow). */
  startedIds: string[];
  /** The engine clock at the last decision. */
  lastNow: number;
}

/**
 * The argument of every process-manager workflow: its first transition (the `started` input, decided by
 * the process that started it, so the state exists as soon as `start` returns), or the state carried
 * over from the previous run.
 */
export interface ProcessWorkflowArgs {
  first?: Extract<DecideResult, { kind: 'transition' }>;
  carried?: CarriedState;
  /**
   * Longest a timer sleeps before the engine's clock is read again (ms); unset, a timer sleeps until due.
   * Set where the engine's clock is not the server's (tests move it by hand).
   */
  clockRecheckMs?: number;
}

/** The argument of a semaphore workflow. */
export interface SemaphoreArgs {
  /** Permits out: `[permit id, { key, holder, expiresAt }]` (workflow time, epoch ms). */
  holders?: [string, { key: string; holder: string; expiresAt: number }][];
}
