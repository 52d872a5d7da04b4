/**
 * The Temporal workflows of the workflows port (bundled by the Temporal worker, run in its deterministic
 * sandbox; only `@temporalio/workflow` and `protocol.ts` may be imported here).
 *
 * - The default export hosts every process manager: a workflow of type `signing-lifecycle` (any
 *   registered process-manager name) is this function, so the Temporal UI lists each lifecycle under
 *   its own type. It keeps an inbox of inputs (`started`, signals, fired timers, activity outcomes) and
 *   feeds them one at a time to the process manager's unchanged `handle(state, input, { now })`, run
 *   in the worker process as the local activity `sello.decide`. Each decision is thus recorded in
 *   the workflow's history (a marker): a replay never calls `handle` again, so a deployment that
 *   changes a process manager cannot break the replay of running workflows, and test process managers
 *   written as closures run too (they cannot be bundled).
 * - Effects become Temporal commands: an `activity` effect is a Temporal activity of that name with the
 *   effect's id as activity id and one attempt (retries are the process manager's: it already decides
 *   them); a `timer` effect is a Temporal timer (re-using an id cancels the old one). The process
 *   managers' time is the engine's injected clock: when a timer fires before that clock reaches its
 *   `at`, the decision says `not-due` and the timer is re-armed.
 * - An effect with `concurrency: { key, limit }` is passed its bound as the activity's second argument:
 *   the worker takes a permit of the key from the semaphore workflow (`selloSemaphore`, id
 *   `sello-semaphore:<task queue>`) before running it, so the bound holds across every worker (`permits.ts`).
 * - The process manager's state is written to the memo after each transition (the engine's `get`
 *   reads it without a worker) and answered by the `state` query.
 * - Past {@link CONTINUE_AS_NEW_AFTER_EVENTS} history events, or when the server suggests it, the
 *   workflow continues as new at its next quiet point (no activity in flight, inbox empty), carrying
 *   state, pending timers and the ids of started activities.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  TimeoutFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  isCancellation,
  log,
  proxyActivities,
  proxyLocalActivities,
  setDefaultSignalHandler,
  setHandler,
  sleep,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { WorkflowEffect, WorkflowInput } from '../../ports/workflows.ts';
import {
  ACQUIRE_UPDATE,
  CONTINUE_AS_NEW_AFTER_EVENTS,
  DECIDE_ACTIVITY,
  INTERRUPTED_FAILURE,
  RECHECK_MIN_MS,
  RELEASE_SIGNAL,
  RENEW_SIGNAL,
  SEMAPHORE_MOVING,
  STATE_QUERY,
  WITHDRAW_SIGNAL,
  type ActivityOptionsArg,
  type DecideRequest,
  type DecideResult,
  type PermitRequest,
  type ProcessWorkflowArgs,
  type SemaphoreArgs,
} from './protocol.ts';

const { [DECIDE_ACTIVITY]: decide } = proxyLocalActivities<{ [DECIDE_ACTIVITY]: (request: DecideRequest) => Promise<DecideResult> }>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
/** The process managers' own activities: one attempt each, the heartbeat tells a dead worker. */
const userActivities = proxyActivities<Record<string, (input: unknown, options: ActivityOptionsArg) => Promise<unknown>>>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

const acquireUpdate = defineUpdate<string[], [PermitRequest]>(ACQUIRE_UPDATE);
const releaseSignal = defineSignal<[string[]]>(RELEASE_SIGNAL);
const renewSignal = defineSignal<[{ permitIds: string[]; leaseMs: number }]>(RENEW_SIGNAL);
const withdrawSignal = defineSignal<[string[]]>(WITHDRAW_SIGNAL);
const stateQuery = defineQuery<{ status: 'running' | 'completed'; state: unknown }>(STATE_QUERY);

interface InboxItem {
  input: WorkflowInput;
  /** For a fired timer: its `at`, checked against the engine clock by the decision. */
  timerAt?: number;
}

/** The error text and whether the engine stopped the activity (worker gone, timed out, shut down). */
function outcomeOf(err: unknown): { error: string; interrupted: boolean } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof TimeoutFailure) return { error: `interrupted: the activity timed out (${cause.timeoutType ?? 'timeout'}); its worker stopped or died`, interrupted: true };
  if (cause instanceof ApplicationFailure && cause.type === INTERRUPTED_FAILURE) return { error: cause.message, interrupted: true };
  if (isCancellation(cause)) return { error: 'interrupted: the activity was cancelled', interrupted: true };
  return { error: cause instanceof Error ? cause.message : String(cause), interrupted: false };
}

/** Hosts one process manager (see the module comment); its workflow type is the process manager's name. */
export default async function processManagerWorkflow(args: ProcessWorkflowArgs): Promise<unknown> {
  const { workflowType: name, workflowId, runId } = workflowInfo();
  let state: unknown = args.carried?.state;
  let lastNow = args.carried?.lastNow ?? 0;
  let done = false;
  let inFlight = 0;
  const inbox: InboxItem[] = [];
  const timers = new Map<string, { at: number; scope: CancellationScope }>();
  const started = new Set<string>(args.carried?.startedIds ?? []);

  setDefaultSignalHandler((signalName: string, ...signalArgs: unknown[]) => {
    if (!done) inbox.push({ input: { type: 'signal', name: signalName, payload: signalArgs[0] } });
  });
  setHandler(stateQuery, () => ({ status: done ? 'completed' : 'running', state }));

  function armTimer(id: string, at: number, minDelayMs = 1): void {
    timers.get(id)?.scope.cancel();
    // A newer timer replaces a fired one whose input has not been decided yet.
    for (let i = inbox.length - 1; i >= 0; i--) {
      const item = inbox[i]!;
      if (item.input.type === 'timer.fired' && item.input.id === id) inbox.splice(i, 1);
    }
    const scope = new CancellationScope();
    timers.set(id, { at, scope });
    scope
      .run(() => sleep(Math.min(Math.max(at - lastNow, minDelayMs), args.clockRecheckMs ?? Number.MAX_SAFE_INTEGER), { summary: `timer ${id}` }))
      .then(
        () => {
          if (timers.get(id)?.scope !== scope) return;
          timers.delete(id);
          inbox.push({ input: { type: 'timer.fired', id }, timerAt: at });
        },
        (err: unknown) => {
          if (!isCancellation(err)) throw err;
        },
      );
  }

  async function runActivity(effect: Extract<WorkflowEffect, { type: 'activity' }>): Promise<void> {
    inFlight++;
    try {
      const options: ActivityOptionsArg = effect.concurrency ? { concurrency: effect.concurrency } : {};
      const result = await userActivities[effect.name]!.executeWithOptions({ activityId: effect.id, summary: `${effect.name} (${effect.id})` }, [effect.input, options]);
      inbox.push({ input: { type: 'activity.completed', id: effect.id, result } });
    } catch (err) {
      const { error, interrupted } = outcomeOf(err);
      inbox.push({ input: { type: 'activity.failed', id: effect.id, error, ...(interrupted ? { interrupted: true } : {}) } });
    } finally {
      inFlight--;
    }
  }

  /** Applies a transition's effects; true when the workflow is done. */
  async function apply(decision: Extract<DecideResult, { kind: 'transition' }>): Promise<boolean> {
    state = decision.state;
    for (const effect of decision.effects) {
      if (effect.type === 'timer') armTimer(effect.id, effect.at);
      else if (!started.has(effect.id)) {
        started.add(effect.id);
        void runActivity(effect);
      }
    }
    if (!decision.done) return false;
    done = true;
    return true;
  }

  for (const [id, at] of args.carried?.timers ?? []) armTimer(id, at);
  if (args.first) {
    lastNow = args.first.now;
    if (await apply(args.first)) return state;
  }

  for (;;) {
    const quiet = () => inFlight === 0 && inbox.length === 0;
    const tooLong = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > CONTINUE_AS_NEW_AFTER_EVENTS;
    await condition(() => inbox.length > 0 || (tooLong() && quiet()));
    if (inbox.length === 0) {
      const carriedTimers: [string, number][] = [...timers].map(([id, t]) => [id, t.at]);
      await continueAsNew<typeof processManagerWorkflow>({ carried: { state, timers: carriedTimers, startedIds: [...started], lastNow }, ...(args.clockRecheckMs ? { clockRecheckMs: args.clockRecheckMs } : {}) });
    }
    const item = inbox.shift()!;
    const decision = await decide({ name, workflowId, state, input: item.input, ...(item.timerAt !== undefined ? { timerAt: item.timerAt } : {}) });
    lastNow = decision.now;
    if (decision.kind === 'not-due') {
      if (item.input.type === 'timer.fired' && item.timerAt !== undefined && !timers.has(item.input.id)) armTimer(item.input.id, item.timerAt, Math.min(RECHECK_MIN_MS, args.clockRecheckMs ?? RECHECK_MIN_MS));
      continue;
    }
    if (decision.kind === 'error') {
      log.error('process manager failed on an input; the input is dropped', { workflowId, input: item.input.type, error: decision.message });
      continue;
    }
    upsertMemo({ state: decision.state });
    if (await apply(decision)) return state;
  }
}

/**
 * The counting semaphores of one task queue's concurrency keys (workflow id `sello-semaphore:<task
 * queue>`), what the workers' permit clients (`permits.ts`) ask before running an activity with a
 * concurrency bound. One workflow for every key, so requests are served in the order they arrive:
 * - the `acquire` update answers once fewer than `limit` permits of its key are out (the latest
 *   request's limit), with as many of the `count` permits asked for as are free;
 * - `release` gives permits back; `renew` extends their leases: a permit not renewed within its lease
 *   (its worker died) is reclaimed, so a dead worker cannot shrink a bound for good;
 * - `withdraw` (a worker that stops) ends its requests: a waiting one is answered with no permit, what was
 *   granted to one goes back (else a grant made after the worker stopped would be held until its lease ran out);
 * - idle (nothing out, nobody waiting) it completes at once; the next request starts it again;
 * - before continuing as new it refuses the waiting requests with {@link SEMAPHORE_MOVING} (the
 *   clients ask again) and carries the permits out.
 */
export async function selloSemaphore(args: SemaphoreArgs): Promise<void> {
  const limits = new Map<string, number>();
  const holders = new Map(args.holders ?? []);
  const out = (key: string) => [...holders.values()].filter((h) => h.key === key).length;
  let waiting = 0;
  let moving = false;
  let changes = 0;
  /** Requests whose worker stopped (this run's; a request is never asked again once withdrawn). */
  const withdrawn = new Set<string>();
  setHandler(acquireUpdate, async (request) => {
    limits.set(request.key, request.limit);
    const mine = () => [...holders.keys()].filter((id) => id.startsWith(`${request.requestId}#`));
    if (mine().length > 0) return mine(); // asked again after a lost answer
    if (withdrawn.has(request.requestId)) return [];
    waiting++;
    changes++;
    try {
      // Granted inside the predicate: several requests woken by one release must not all see the same free slots.
      await condition(() => {
        if (moving || withdrawn.has(request.requestId)) return true;
        const free = Math.min((limits.get(request.key) ?? request.limit) - out(request.key), request.count);
        if (free <= 0) return false;
        for (let i = 0; i < free; i++) holders.set(`${request.requestId}#${i}`, { key: request.key, holder: request.holder, expiresAt: Date.now() + request.leaseMs });
        return true;
      });
      if (withdrawn.has(request.requestId)) return [];
      if (mine().length === 0) throw ApplicationFailure.retryable('the semaphore is continuing as new; ask again', SEMAPHORE_MOVING);
      return mine();
    } finally {
      waiting--;
    }
  });
  setHandler(releaseSignal, (permitIds) => {
    for (const id of permitIds) holders.delete(id);
    changes++;
  });
  setHandler(withdrawSignal, (requestIds) => {
    for (const requestId of requestIds) {
      withdrawn.add(requestId);
      for (const id of holders.keys()) if (id.startsWith(`${requestId}#`)) holders.delete(id);
    }
    changes++;
  });
  setHandler(renewSignal, ({ permitIds, leaseMs }) => {
    for (const id of permitIds) {
      const h = holders.get(id);
      if (h) h.expiresAt = Date.now() + leaseMs;
    }
  });
  setHandler(stateQuery, () => ({ status: 'running' as const, state: { limits: [...limits], holders: [...holders], waiting } }));
  for (;;) {
    const seen = changes;
    const nextExpiry = Math.min(...[...holders.values()].map((h) => h.expiresAt));
    const woken = () => changes !== seen || workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > CONTINUE_AS_NEW_AFTER_EVENTS;
    // A timer only while permits are out (their leases); idle, it completes at once and leaves nothing pending.
    if (Number.isFinite(nextExpiry)) await condition(woken, Math.max(nextExpiry - Date.now(), 1));
    else await condition(woken);
    const now = Date.now();
    for (const [id, h] of holders) {
      if (h.expiresAt <= now) {
        holders.delete(id);
        log.warn('permit reclaimed: its lease ran out (its worker stopped renewing it)', { permitId: id, key: h.key, holder: h.holder });
      }
    }
    if (holders.size === 0 && waiting === 0) return;
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > CONTINUE_AS_NEW_AFTER_EVENTS) {
      moving = true;
      await condition(allHandlersFinished);
      await continueAsNew<typeof selloSemaphore>({ holders: [...holders] });
    }
  }
}
