/**
 * The workflows port on Temporal (`WORKFLOWS=temporal`): the process managers run as Temporal workflows
 * (`./workflow.ts`), their activities in this process's Temporal worker. See `docs/operations.md`
 * ("Workflows on Temporal") for what an operator sees in the Temporal UI.
 */
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure, defineSearchAttributeKey, SearchAttributeType, type LogLevel, type LogMetadata } from '@temporalio/common';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Activity, Clock, ProcessManager, WorkflowEngine, WorkflowStartOptions, WorkflowStatus } from '../../ports/workflows.ts';
import type { EngineLogger } from '../embedded/index.ts';
import { hostname } from 'node:os';
import { PermitClient } from './permits.ts';
import { closeGated, gatedRetryInterceptor, openRetryGate } from './retry-gate.ts';
import { DECIDE_ACTIVITY, INTERRUPTED_FAILURE, SEMAPHORE_ID_PREFIX, SEMAPHORE_WORKFLOW, type ActivityOptionsArg, type DecideRequest, type DecideResult, type ProcessWorkflowArgs, type SemaphoreArgs } from './protocol.ts';

/** The search attribute holding a workflow's tenant id (registered by `npm run engines -- up`). */
export const TENANT_SEARCH_ATTRIBUTE = defineSearchAttributeKey('SelloTenantId', SearchAttributeType.KEYWORD);

export interface TemporalWorkflowEngineOptions {
  /** Frontend `host:port`, e.g. `127.0.0.1:7233`. */
  address: string;
  /** Default `default`. */
  namespace?: string;
  /** Task queue of this deployment's workflows and activities (every process of a deployment uses the same). Default `sello`. */
  taskQueue?: string;
  /** The process managers' clock (their `now`, and when their timers are due). */
  clock: Clock;
  logger?: EngineLogger;
  /** How often a running activity heartbeats (ms). Default 5 000; the server gives up on it after 30 s without one. */
  heartbeatEveryMs?: number;
  /**
   * Longest a Temporal timer sleeps before the workflow reads {@link clock} again (ms). Unset (production:
   * the clock is the system's, as the server's), a timer sleeps until its `at`. Tests that move the clock
   * by hand set it (e.g. 100) so a timer fires once the clock passes its `at`, whatever the server's time.
   */
  clockRecheckMs?: number;
  /**
   * How long (ms) the server keeps a workflow's next task for the worker that ran its last one (its
   * sticky queue) before any worker may take it: what a workflow waits after its worker stopped without
   * a goodbye. Default Temporal's 10 000.
   */
  stickyQueueTimeoutMs?: number;
  /**
   * Workflow task timeout of the workflows this engine starts (ms): a task handed to a worker that
   * stopped before answering goes to another after this long. Default 10 000 (Temporal's).
   */
  workflowTaskTimeoutMs?: number;
}

/** Temporal's Node runtime is per process: installed once, quiet (warnings to our logger), leaving SIGTERM to the process. */
export function installRuntime(logger: EngineLogger | undefined): void {
  if (Runtime._instance) return;
  const forward = (level: LogLevel, message: string, meta?: LogMetadata) => {
    if (!logger) return;
    // The SDK puts errors under `error` ("Activity failed"): pino serializes an Error there as {}.
    const obj: Record<string, unknown> = { component: 'temporal' };
    for (const [k, v] of Object.entries(meta ?? {})) obj[k] = v instanceof Error ? errorFields(v) : v;
    if (level === 'ERROR') logger.error(obj, message);
    else if (level === 'WARN') logger.warn(obj, message);
  };
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => forward(entry.level, entry.message, entry.meta)),
    shutdownSignals: [],
  });
}

/** What a log line keeps of an error: its name, message and (a Temporal failure's) type. */
function errorFields(error: Error): Record<string, unknown> {
  return { name: error.name, message: error.message, ...(error instanceof ApplicationFailure && error.type ? { type: error.type } : {}) };
}

/** An activity the engine stopped, or did not start because it was stopping: the process manager sees `interrupted: true`. */
function interruptedFailure(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: INTERRUPTED_FAILURE, nonRetryable: true, message });
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
/** The workflow bundle (webpack, about 2 s), built once per process. */
function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./workflow.ts', import.meta.url)),
    logger: new DefaultLogger('WARN'),
  });
  return bundle;
}

/**
 * Creates the Temporal engine. Connections are opened on first use; `run()` starts this process's
 * worker (workflow tasks, the process managers' activities and the engine's own), `stop()` drains it.
 *
 * How the port's guarantees are met (see `./workflow.ts` for the workflow side):
 * - `start` is idempotent by workflow id (id reuse refused, also after completion); the workflow type
 *   is the process manager's name; `options.tenantId` goes to the `SelloTenantId` search attribute and
 *   `options.summary` to the static summary and the memo's `description`;
 * - effects run as Temporal activities with a single attempt (a concurrency bound is a permit of the
 *   key's semaphore workflow, taken by the worker: `permits.ts`); one running when its worker stops is
 *   failed with {@link INTERRUPTED_FAILURE} after the grace period (a stopping worker polls no more and
 *   starts nothing new: a task it still receives, or one waiting for a permit, fails the same way without
 *   running), one whose worker died stops heartbeating and times out: all reach the process manager as
 *   `activity.failed` with `interrupted: true`, and are never started again;
 * - timers are Temporal timers, durable in the server; their due time is the injected clock's;
 * - `get` reads the workflow's memo (its state after the last transition), so it answers without any
 *   worker running; a workflow that failed or was terminated reads as `completed`;
 * - `signal` to a workflow that is finished or unknown is ignored.
 * @throws Error from `start` when `name` is not registered; connection errors from every call when the
 *   server cannot be reached.
 */
export function createTemporalWorkflowEngine(options: TemporalWorkflowEngineOptions): WorkflowEngine {
  return new TemporalWorkflowEngine(options);
}

class TemporalWorkflowEngine implements WorkflowEngine {
  private readonly managers = new Map<string, ProcessManager<unknown>>();
  private readonly activities = new Map<string, Activity>();
  private readonly namespace: string;
  private readonly taskQueue: string;
  private readonly log: EngineLogger;
  private clientReady?: Promise<{ connection: Connection; client: Client }>;
  private worker?: { worker: Worker; connection: NativeConnection; running: Promise<void> };
  /** Rejects every running activity with an interrupted failure (set while `stop` waits out its grace). */
  private interrupt?: (reason: Error) => void;
  private readonly interrupted: Promise<never>;
  private readonly running = new Set<Promise<unknown>>();
  private readonly permits: PermitClient;
  private stopped = false;

  constructor(private readonly options: TemporalWorkflowEngineOptions) {
    this.namespace = options.namespace ?? 'default';
    this.taskQueue = options.taskQueue ?? 'sello';
    this.log = options.logger ?? { info() {}, warn() {}, error() {} };
    installRuntime(options.logger);
    this.interrupted = new Promise<never>((_, reject) => {
      this.interrupt = reject;
    });
    this.interrupted.catch(() => undefined);
    this.permits = new PermitClient({
      client: async () => (await this.client()).client,
      taskQueue: this.taskQueue,
      identity: `${hostname()}:${process.pid}`,
      onError: (err, what) => this.log.warn({ err }, `temporal engine: ${what} failed; retrying`),
    });
  }

  /** Retries of the client connection end before it closes (retry-gate.ts). */
  private readonly retryGate = openRetryGate();

  private client(): Promise<{ connection: Connection; client: Client }> {
    this.clientReady ??= Connection.connect({ address: this.options.address, interceptors: [gatedRetryInterceptor(this.retryGate)] }).then((connection) => ({
      connection,
      client: new Client({ connection, namespace: this.namespace }),
    }));
    return this.clientReady;
  }

  register<S>(manager: ProcessManager<S>, activities: Record<string, Activity>): void {
    this.managers.set(manager.name, manager as ProcessManager<unknown>);
    for (const [name, fn] of Object.entries(activities)) {
      const existing = this.activities.get(name);
      if (existing && existing !== fn) throw new Error(`activity ${name} is registered twice with different functions (Temporal activity types are global to the task queue)`);
      this.activities.set(name, fn);
    }
  }

  async start(name: string, workflowId: string, input: unknown, options: WorkflowStartOptions = {}): Promise<boolean> {
    if (this.stopped) throw new Error('workflow engine is stopped');
    if (!this.managers.has(name)) throw new Error(`workflow type ${name} is not registered`);
    const { client } = await this.client();
    // The first transition is decided here, as the embedded engines do inside `start`: the workflow's state
    // exists (in its memo) as soon as `start` returns, and the decision is the workflow's input.
    const first = this.decide({ name, workflowId, state: undefined, input: { type: 'started', input } });
    if (first.kind !== 'transition') throw new Error(`workflow ${workflowId} (${name}) could not start: ${first.kind === 'error' ? first.message : first.kind}`);
    const args: ProcessWorkflowArgs = { first, ...(this.options.clockRecheckMs ? { clockRecheckMs: this.options.clockRecheckMs } : {}) };
    try {
      await client.workflow.start(name, {
        taskQueue: this.taskQueue,
        workflowId,
        args: [args],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        ...(this.options.workflowTaskTimeoutMs ? { workflowTaskTimeout: this.options.workflowTaskTimeoutMs } : {}),
        ...(options.tenantId ? { typedSearchAttributes: [{ key: TENANT_SEARCH_ATTRIBUTE, value: options.tenantId }] } : {}),
        memo: { state: first.state, ...(options.summary ? { description: options.summary } : {}) },
        ...(options.summary ? { staticSummary: options.summary } : {}),
      });
      return true;
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw error;
    }
  }

  async signal(workflowId: string, name: string, payload: unknown): Promise<void> {
    if (this.stopped) throw new Error('workflow engine is stopped');
    const { client } = await this.client();
    try {
      await client.workflow.getHandle(workflowId).signal(name, payload);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return; // finished (or never started): inputs after done are ignored
      throw error;
    }
  }

  async get<S = unknown>(workflowId: string): Promise<WorkflowStatus<S> | null> {
    const { client } = await this.client();
    try {
      const d = await client.workflow.getHandle(workflowId).describe();
      const memo = (d.memo ?? {}) as { state?: S };
      return { workflowId, name: d.type, status: d.status.name === 'RUNNING' ? 'running' : 'completed', state: memo.state as S };
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return null;
      throw error;
    }
  }

  async run(): Promise<void> {
    if (this.stopped) throw new Error('workflow engine is stopped');
    if (this.worker) return;
    const connection = await NativeConnection.connect({ address: this.options.address });
    const activities: Record<string, (input: unknown) => Promise<unknown>> = {
      [DECIDE_ACTIVITY]: (request) => Promise.resolve(this.decide(request as DecideRequest)),
    };
    for (const [name, fn] of this.activities) activities[name] = this.wrap(fn);
    const worker = await Worker.create({
      connection,
      namespace: this.namespace,
      taskQueue: this.taskQueue,
      workflowBundle: await workflowBundle(),
      activities,
      shutdownGraceTime: '1 second',
      ...(this.options.stickyQueueTimeoutMs !== undefined ? { stickyQueueScheduleToStartTimeout: this.options.stickyQueueTimeoutMs } : {}),
    });
    const running = worker.run().catch((err: unknown) => this.log.error({ err }, 'temporal worker stopped with an error'));
    this.worker = { worker, connection, running };
    void this.startSemaphore();
  }

  /**
   * Starts the task queue's semaphore workflow if it is not running, so the first activities with a
   * concurrency bound ask a running workflow (one update) rather than create it (a start, then its first
   * workflow task, queued behind the process managers' own tasks). It waits idle for its first request.
   */
  private async startSemaphore(): Promise<void> {
    try {
      const { client } = await this.client();
      const args: SemaphoreArgs = {};
      await client.workflow.start(SEMAPHORE_WORKFLOW, {
        taskQueue: this.taskQueue,
        workflowId: `${SEMAPHORE_ID_PREFIX}${this.taskQueue}`,
        args: [args],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: `Concurrency bounds of the activities of task queue ${this.taskQueue}`,
      });
    } catch (err) {
      this.log.warn({ err }, 'temporal engine: could not start the semaphore workflow; the first bounded activity will');
    }
  }

  async stop(graceMs = 5_000): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // The worker polls no more (another worker takes the tasks, e.g. a retry the process manager schedules
    // at once); what it runs finishes within the grace period or is interrupted below.
    if (this.worker?.worker.getState() === 'RUNNING') this.worker.worker.shutdown();
    if (this.running.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.running]), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
      // Still running: failed as interrupted (the process manager decides whether to retry under a new id).
      this.interrupt?.(interruptedFailure('interrupted: the engine stopped while the activity was running'));
      await Promise.allSettled([...this.running]);
    }
    await this.permits.close(interruptedFailure('interrupted: the engine stopped')); // waiters report their own failure (wrap)
    if (this.worker) {
      await this.worker.running;
      await this.worker.connection.close();
    }
    if (this.clientReady) await closeGated(this.retryGate, (await this.clientReady).connection).catch(() => undefined);
  }

  /** {@link DECIDE_ACTIVITY}: one transition of a process manager, by the injected clock. */
  private decide(request: DecideRequest): DecideResult {
    const now = this.options.clock.now();
    if (request.timerAt !== undefined && now < request.timerAt) return { kind: 'not-due', now };
    const manager = this.managers.get(request.name);
    if (!manager) return { kind: 'error', now, message: `workflow type ${request.name} is not registered in this process` };
    try {
      const t = manager.handle(request.state, request.input, { now, workflowId: request.workflowId });
      return { kind: 'transition', now, state: t.state, effects: t.effects, done: t.done === true };
    } catch (err) {
      this.log.error({ err, workflowId: request.workflowId, input: request.input.type }, 'process manager threw; input dropped');
      return { kind: 'error', now, message: err instanceof Error ? err.message : String(err) };
    }
  }

  /**
   * A process manager's activity as a Temporal activity: waits for a permit of its concurrency key (if
   * any), heartbeats while it waits and runs, and is interrupted by `stop`.
   */
  private wrap(fn: Activity): (input: unknown, options?: ActivityOptionsArg) => Promise<unknown> {
    return async (input: unknown, options: ActivityOptionsArg = {}) => {
      // A task still handed out once `stop` began (a poll that was answered as the worker shut down) is
      // not started, and reports interrupted so the process manager retries it on another worker (a plain
      // error, such as the closed permit client's, would read as the activity's own failure).
      if (this.stopped) throw interruptedFailure('interrupted: the engine was stopping; the activity was not started');
      const ctx = Context.current();
      const heartbeat = setInterval(() => ctx.heartbeat(), this.options.heartbeatEveryMs ?? 5_000);
      const bound = options.concurrency;
      let permitId: string | undefined;
      const outcome = (async () => {
        if (bound) {
          const notStarted = interruptedFailure(`interrupted: the engine stopped while the activity waited for a permit of ${bound.key}; it was not started`);
          permitId = await Promise.race([this.permits.acquire(bound.key, bound.limit), this.interrupted]).catch((e: unknown) => Promise.reject(this.stopped ? notStarted : e));
          // Granted while stopping: the grace period is for activities already running, not for new ones.
          if (this.stopped) throw notStarted;
        }
        return Promise.race([fn(input, { workflowId: ctx.info.workflowExecution?.workflowId ?? '', activityId: ctx.info.activityId }), this.interrupted]);
      })();
      this.running.add(outcome);
      try {
        return await outcome;
      } finally {
        clearInterval(heartbeat);
        this.running.delete(outcome);
        if (bound && permitId !== undefined) this.permits.release(bound.key, permitId);
      }
    };
  }
}
