import { openSqlite } from '../../shared/sqlite.ts';
import type {
  Activity,
  Clock,
  ProcessManager,
  Transition,
  WorkflowEffect,
  WorkflowEngine,
  WorkflowInput,
  WorkflowStatus,
} from '../../ports/workflows.ts';

/** The subset of a pino logger the engine uses. */
export interface EngineLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface EmbeddedWorkflowEngineOptions {
  /** SQLite file holding workflow state, timers and activity records (`:memory:` for a throw-away engine). */
  path: string;
  clock: Clock;
  logger?: EngineLogger;
  /**
   * How often (real milliseconds) the scheduler looks for due timers. Default 250. With a fake clock,
   * tests advance the clock and either wait one poll or call {@link EmbeddedWorkflowEngine.drain}.
   */
  pollIntervalMs?: number;
  /** Upper bound of activities running at once across all keys. Default 256. */
  maxConcurrentActivities?: number;
}

/** The embedded engine: the port plus test/operator helpers. */
export interface EmbeddedWorkflowEngine extends WorkflowEngine {
  /**
   * Fires every timer due by the clock and waits until no activity is running or startable and no timer
   * is due (a quiescent point). Only meaningful while {@link WorkflowEngine.run} is active.
   */
  drain(timeoutMs?: number): Promise<void>;
  /** Counts for operators and benchmarks. */
  stats(): { running: number; queued: number; timers: number; workflowsRunning: number };
  /** Workflows of a type that are still running (for operators inspecting workflows). */
  listRunning(name?: string, limit?: number): Promise<WorkflowStatus[]>;
}

interface ActivityRow {
  workflow_id: string;
  activity_id: string;
  name: string;
  input: string;
  conc_key: string | null;
  conc_limit: number | null;
}

interface QueuedActivity {
  workflowId: string;
  activityId: string;
  name: string;
  input: unknown;
  key: string;
  limit: number;
}

const DEFAULT_KEY = '\u0000default';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS wf_workflows (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  state TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS wf_workflows_status ON wf_workflows(status, name);
CREATE TABLE IF NOT EXISTS wf_timers (
  workflow_id TEXT NOT NULL,
  timer_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (workflow_id, timer_id)
);
CREATE INDEX IF NOT EXISTS wf_timers_at ON wf_timers(at);
CREATE TABLE IF NOT EXISTS wf_activities (
  workflow_id TEXT NOT NULL,
  activity_id TEXT NOT NULL,
  name TEXT NOT NULL,
  input TEXT NOT NULL,
  conc_key TEXT,
  conc_limit INTEGER,
  status TEXT NOT NULL, -- pending | running | done
  seq INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  PRIMARY KEY (workflow_id, activity_id)
);
CREATE INDEX IF NOT EXISTS wf_activities_status ON wf_activities(status, seq);
`;

/**
 * Creates the embedded workflow engine: workflow state, pending timers and activity records in one SQLite
 * file (WAL), driven by an in-process scheduler.
 *
 * How the port's guarantees are met:
 * - every transition (new state + its effects) is written in one SQLite transaction before any effect
 *   runs, so a crash leaves either the old or the new state with its effects recorded;
 * - an activity row goes `pending -> running` in the database before the activity function is called;
 *   rows found `running` by {@link WorkflowEngine.run} after a restart were interrupted and are fed back
 *   as `activity.failed` with `interrupted: true`, never started again (at most one start per id);
 * - the activity's outcome is applied and its row marked `done` in the same transaction;
 * - timers are rows with an absolute `at` (per the injected clock) and fire on the first poll after it;
 * - transitions submitted in the same event-loop turn (starts, signals, outcomes) share one commit
 *   (group commit), each in its own savepoint; `start`/`signal` resolve after that commit.
 *
 * One engine per SQLite file at a time (it is the only scheduler of that file). Inputs for a finished
 * workflow are ignored; an exception thrown by a process manager rolls its transition back and is logged.
 */
export function createEmbeddedWorkflowEngine(options: EmbeddedWorkflowEngineOptions): EmbeddedWorkflowEngine {
  const { clock } = options;
  const log: EngineLogger = options.logger ?? { info() {}, warn() {}, error() {} };
  const pollMs = options.pollIntervalMs ?? 250;
  const maxRunning = options.maxConcurrentActivities ?? 256;

  const db = openSqlite(options.path);
  db.exec(SCHEMA);

  const managers = new Map<string, ProcessManager<unknown>>();
  const activityFns = new Map<string, Map<string, Activity>>();

  const q = {
    getWf: db.prepare<[string], { id: string; name: string; status: string; state: string | null }>(
      'SELECT id, name, status, state FROM wf_workflows WHERE id = ?',
    ),
    insertWf: db.prepare('INSERT INTO wf_workflows (id, name, status, state, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, ?)'),
    updateWf: db.prepare('UPDATE wf_workflows SET status = ?, state = ?, updated_at = ? WHERE id = ?'),
    upsertTimer: db.prepare(
      'INSERT INTO wf_timers (workflow_id, timer_id, at) VALUES (?, ?, ?) ON CONFLICT(workflow_id, timer_id) DO UPDATE SET at = excluded.at',
    ),
    deleteTimer: db.prepare('DELETE FROM wf_timers WHERE workflow_id = ? AND timer_id = ?'),
    deleteTimersOf: db.prepare('DELETE FROM wf_timers WHERE workflow_id = ?'),
    dueTimers: db.prepare<[number, number], { workflow_id: string; timer_id: string; at: number }>(
      'SELECT workflow_id, timer_id, at FROM wf_timers WHERE at <= ? ORDER BY at LIMIT ?',
    ),
    countTimers: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM wf_timers'),
    countRunningWf: db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM wf_workflows WHERE status = 'running'"),
    insertActivity: db.prepare(
      "INSERT OR IGNORE INTO wf_activities (workflow_id, activity_id, name, input, conc_key, conc_limit, status, seq) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)",
    ),
    markRunning: db.prepare(
      "UPDATE wf_activities SET status = 'running', started_at = ? WHERE workflow_id = ? AND activity_id = ? AND status = 'pending'",
    ),
    markDone: db.prepare(
      "UPDATE wf_activities SET status = 'done', finished_at = ? WHERE workflow_id = ? AND activity_id = ? AND status = 'running'",
    ),
    // A finished workflow needs no activity records (its inputs are ignored). Primary-key prefix only:
    // letting SQLite pick the status index here would scan every pending row of every workflow.
    dropActivitiesOf: db.prepare('DELETE FROM wf_activities WHERE workflow_id = ?'),
    pendingActivities: db.prepare<[], ActivityRow>(
      "SELECT workflow_id, activity_id, name, input, conc_key, conc_limit FROM wf_activities WHERE status = 'pending' ORDER BY seq",
    ),
    runningActivities: db.prepare<[], ActivityRow>(
      "SELECT workflow_id, activity_id, name, input, conc_key, conc_limit FROM wf_activities WHERE status = 'running' ORDER BY seq",
    ),
    maxSeq: db.prepare<[], { s: number | null }>('SELECT MAX(seq) AS s FROM wf_activities'),
    listRunning: db.prepare<[string | null, string | null, number], { id: string; name: string; status: string; state: string | null }>(
      "SELECT id, name, status, state FROM wf_workflows WHERE status = 'running' AND (? IS NULL OR name = ?) ORDER BY created_at LIMIT ?",
    ),
  };
  let seq = q.maxSeq.get()?.s ?? 0;

  // In-memory dispatch state. Queues per concurrency key, served round-robin.
  const queues = new Map<string, QueuedActivity[]>();
  const runningPerKey = new Map<string, number>();
  let queuedCount = 0;
  let runningCount = 0;
  const inFlight = new Set<Promise<void>>();
  let active = false;
  let closed = false;
  let pollTimer: NodeJS.Timeout | null = null;
  let dispatchScheduled = false;
  const idleWaiters: Array<() => void> = [];

  function enqueue(a: QueuedActivity): void {
    let list = queues.get(a.key);
    if (!list) {
      list = [];
      queues.set(a.key, list);
    }
    list.push(a);
    queuedCount++;
  }

  /** Applies one input to a workflow inside the caller's transaction; returns new activities to enqueue. */
  function applyInput(workflowId: string, input: WorkflowInput): QueuedActivity[] {
    const row = q.getWf.get(workflowId);
    if (!row) return [];
    if (row.status !== 'running') return [];
    const manager = managers.get(row.name);
    if (!manager) throw new Error(`workflow type ${row.name} is not registered`);
    const state = row.state === null ? undefined : (JSON.parse(row.state) as unknown);
    const now = clock.now();
    const t: Transition<unknown> = manager.handle(state, input, { now, workflowId });
    const done = t.done === true;
    q.updateWf.run(done ? 'completed' : 'running', t.state === undefined ? null : JSON.stringify(t.state), now, workflowId);
    if (done) {
      q.deleteTimersOf.run(workflowId);
      q.dropActivitiesOf.run(workflowId);
      return [];
    }
    return recordEffects(workflowId, t.effects);
  }

  function recordEffects(workflowId: string, effects: readonly WorkflowEffect[]): QueuedActivity[] {
    const out: QueuedActivity[] = [];
    for (const e of effects) {
      if (e.type === 'timer') {
        q.upsertTimer.run(workflowId, e.id, e.at);
      } else {
        const inputJson = JSON.stringify(e.input ?? null);
        const key = e.concurrency?.key ?? null;
        const limit = e.concurrency?.limit ?? null;
        const r = q.insertActivity.run(workflowId, e.id, e.name, inputJson, key, limit, ++seq);
        // INSERT OR IGNORE: an activity id already recorded is never started a second time.
        if (r.changes === 1) {
          out.push({
            workflowId,
            activityId: e.id,
            name: e.name,
            input: JSON.parse(inputJson) as unknown,
            key: key ?? DEFAULT_KEY,
            limit: limit ?? Number.MAX_SAFE_INTEGER,
          });
        } else {
          log.warn({ workflowId, activityId: e.id }, 'workflow: duplicate activity id ignored');
        }
      }
    }
    return out;
  }

  /** Runs `fn` in a transaction; on success enqueues the new activities and wakes the dispatcher. */
  // One prepared transaction wrapper (db.transaction() prepares BEGIN/COMMIT each time it is called).
  const runInTx = db.transaction((fn: () => QueuedActivity[]) => fn());

  function transact(fn: () => QueuedActivity[], context: object): boolean {
    let created: QueuedActivity[];
    try {
      created = runInTx(fn);
    } catch (err) {
      log.error({ ...context, err: String(err) }, 'workflow: transition failed and was rolled back');
      return false;
    }
    for (const a of created) enqueue(a);
    if (created.length > 0) scheduleDispatch();
    return true;
  }

  // Group commit: transitions submitted in the same turn of the event loop (workflow starts, signals,
  // activity outcomes) commit in one SQLite transaction, each inside its own savepoint, so one failing
  // transition rolls back alone. A caller's promise resolves only after the commit.
  interface Job {
    fn: () => { created: QueuedActivity[]; value: unknown };
    context: object;
    resolve: (value: unknown) => void;
    reject: (err: unknown) => void;
  }
  let jobs: Job[] = [];
  let flushScheduled = false;
  const runJob = db.transaction((fn: Job['fn']) => fn());
  const runJobs = db.transaction((batch: Job[]) =>
    batch.map((j) => {
      try {
        return { ok: true as const, r: runJob(j.fn) };
      } catch (err) {
        return { ok: false as const, err };
      }
    }),
  );

  function submit<T>(fn: () => { created: QueuedActivity[]; value: T }, context: object): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      jobs.push({ fn, context, resolve: resolve as (v: unknown) => void, reject });
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flushJobs);
      }
    });
  }

  function flushJobs(): void {
    flushScheduled = false;
    const batch = jobs;
    jobs = [];
    if (batch.length === 0) return;
    if (closed) {
      for (const j of batch) j.reject(new Error('workflow engine is stopped'));
      return;
    }
    let results: ReturnType<typeof runJobs>;
    try {
      results = runJobs(batch);
    } catch (err) {
      log.error({ err: String(err) }, 'workflow: batch commit failed and was rolled back');
      for (const j of batch) j.reject(err);
      return;
    }
    let woke = false;
    results.forEach((res, i) => {
      const j = batch[i]!;
      if (res.ok) {
        for (const a of res.r.created) enqueue(a);
        woke ||= res.r.created.length > 0;
        j.resolve(res.r.value);
      } else {
        log.error({ ...j.context, err: String(res.err) }, 'workflow: transition failed and was rolled back');
        j.reject(res.err);
      }
    });
    if (woke) scheduleDispatch();
    notifyIfIdle();
  }

  function scheduleDispatch(): void {
    if (!active || dispatchScheduled) return;
    dispatchScheduled = true;
    setImmediate(() => {
      dispatchScheduled = false;
      dispatch();
    });
  }

  function dispatch(): void {
    if (!active) return;
    const picked: QueuedActivity[] = [];
    let progressed = true;
    while (progressed && runningCount + picked.length < maxRunning && queuedCount > 0) {
      progressed = false;
      for (const [key, list] of queues) {
        if (runningCount + picked.length >= maxRunning) break;
        const a = list[0];
        if (!a) {
          queues.delete(key);
          continue;
        }
        if ((runningPerKey.get(key) ?? 0) >= a.limit) continue;
        list.shift();
        queuedCount--;
        if (list.length === 0) queues.delete(key);
        // Reserve the slot now so the per-key limit holds within this round.
        runningPerKey.set(key, (runningPerKey.get(key) ?? 0) + 1);
        picked.push(a);
        progressed = true;
      }
    }
    if (picked.length > 0) {
      // Mark the whole round `running` in one transaction, before any of them is called.
      let marked: boolean[];
      try {
        marked = markRunningMany(picked);
      } catch (err) {
        log.error({ err: String(err) }, 'workflow: could not mark activities running; they stay pending');
        marked = picked.map(() => false);
      }
      picked.forEach((a, i) => {
        if (marked[i]) startActivity(a);
        else releaseKey(a.key);
      });
    }
    notifyIfIdle();
  }

  const markRunningMany = db.transaction((list: QueuedActivity[]) => {
    const now = clock.now();
    return list.map((a) => q.markRunning.run(now, a.workflowId, a.activityId).changes === 1);
  });

  function releaseKey(key: string): void {
    const n = (runningPerKey.get(key) ?? 1) - 1;
    if (n <= 0) runningPerKey.delete(key);
    else runningPerKey.set(key, n);
  }

  /** Calls an activity already marked `running` (its per-key slot is already counted). */
  function startActivity(a: QueuedActivity): void {
    runningCount++;
    const fn = activityFns.get(managerNameOf(a.workflowId) ?? '')?.get(a.name);
    const p = (async () => {
      let outcome: WorkflowInput;
      try {
        if (!fn) throw new Error(`activity ${a.name} is not registered`);
        const result = await fn(a.input, { workflowId: a.workflowId, activityId: a.activityId });
        outcome = { type: 'activity.completed', id: a.activityId, result: result === undefined ? null : result };
      } catch (err) {
        outcome = { type: 'activity.failed', id: a.activityId, error: err instanceof Error ? err.message : String(err) };
      }
      if (closed) return; // stopped meanwhile: the row stays `running` and is fed back as interrupted on restart
      await submit(() => {
        const done = q.markDone.run(clock.now(), a.workflowId, a.activityId);
        if (done.changes !== 1) return { created: [], value: null };
        return { created: applyInput(a.workflowId, outcome), value: null };
      }, { workflowId: a.workflowId, activityId: a.activityId }).catch(() => {
        // Logged by flushJobs; the row stays `running` and is fed back as interrupted on restart.
      });
    })().finally(() => {
      runningCount--;
      releaseKey(a.key);
      inFlight.delete(p);
      scheduleDispatch();
      notifyIfIdle();
    });
    inFlight.add(p);
  }

  const nameCache = new Map<string, string>();
  function managerNameOf(workflowId: string): string | undefined {
    let n = nameCache.get(workflowId);
    if (n === undefined) {
      n = q.getWf.get(workflowId)?.name;
      if (n !== undefined) {
        if (nameCache.size > 50_000) nameCache.clear();
        nameCache.set(workflowId, n);
      }
    }
    return n;
  }

  function fireDueTimers(): number {
    let fired = 0;
    for (;;) {
      const due = q.dueTimers.all(clock.now(), 500);
      if (due.length === 0) break;
      for (const t of due) {
        transact(() => {
          const r = q.deleteTimer.run(t.workflow_id, t.timer_id);
          if (r.changes !== 1) return [];
          return applyInput(t.workflow_id, { type: 'timer.fired', id: t.timer_id });
        }, { workflowId: t.workflow_id, timerId: t.timer_id });
        fired++;
      }
      if (due.length < 500) break;
    }
    return fired;
  }

  function poll(): void {
    pollTimer = null;
    if (!active) return;
    fireDueTimers();
    dispatch();
    pollTimer = setTimeout(poll, pollMs);
  }

  function isIdle(): boolean {
    return runningCount === 0 && jobs.length === 0 && (queuedCount === 0 || !active);
  }

  function notifyIfIdle(): void {
    if (!isIdle()) return;
    const waiters = idleWaiters.splice(0);
    for (const w of waiters) w();
  }

  function waitIdle(): Promise<void> {
    if (isIdle()) return Promise.resolve();
    return new Promise((resolve) => idleWaiters.push(resolve));
  }

  function hasDueTimer(): boolean {
    return q.dueTimers.all(clock.now(), 1).length > 0;
  }

  return {
    register<S>(manager: ProcessManager<S>, activities: Record<string, Activity>): void {
      managers.set(manager.name, manager as ProcessManager<unknown>);
      activityFns.set(manager.name, new Map(Object.entries(activities)));
    },

    async start(name: string, workflowId: string, input: unknown): Promise<boolean> {
      if (closed) throw new Error('workflow engine is stopped');
      if (!managers.has(name)) throw new Error(`workflow type ${name} is not registered`);
      return submit(() => {
        if (q.getWf.get(workflowId)) return { created: [], value: false };
        const now = clock.now();
        q.insertWf.run(workflowId, name, 'running', now, now);
        return { created: applyInput(workflowId, { type: 'started', input }), value: true };
      }, { workflowId, name });
    },

    async signal(workflowId: string, name: string, payload: unknown): Promise<void> {
      if (closed) throw new Error('workflow engine is stopped');
      await submit(() => ({ created: applyInput(workflowId, { type: 'signal', name, payload }), value: null }), { workflowId, signal: name });
    },

    async get<S = unknown>(workflowId: string): Promise<WorkflowStatus<S> | null> {
      const row = q.getWf.get(workflowId);
      if (!row) return null;
      return {
        workflowId: row.id,
        name: row.name,
        status: row.status === 'completed' ? 'completed' : 'running',
        state: (row.state === null ? undefined : JSON.parse(row.state)) as S,
      };
    },

    async run(): Promise<void> {
      if (closed) throw new Error('workflow engine is stopped');
      if (active) return;
      active = true;
      // Activities left `running` by a previous process were interrupted: feed them back, never restart them.
      for (const row of q.runningActivities.all()) {
        transact(() => {
          const r = q.markDone.run(clock.now(), row.workflow_id, row.activity_id);
          if (r.changes !== 1) return [];
          return applyInput(row.workflow_id, {
            type: 'activity.failed',
            id: row.activity_id,
            error: 'interrupted: the engine stopped while the activity was running',
            interrupted: true,
          });
        }, { workflowId: row.workflow_id, activityId: row.activity_id });
      }
      // Recorded but never started: queue them (skipping any already queued by start() before run()).
      const queuedIds = new Set<string>();
      for (const list of queues.values()) for (const a of list) queuedIds.add(`${a.workflowId}\u0000${a.activityId}`);
      for (const row of q.pendingActivities.all()) {
        if (queuedIds.has(`${row.workflow_id}\u0000${row.activity_id}`)) continue;
        enqueue({
          workflowId: row.workflow_id,
          activityId: row.activity_id,
          name: row.name,
          input: JSON.parse(row.input) as unknown,
          key: row.conc_key ?? DEFAULT_KEY,
          limit: row.conc_limit ?? Number.MAX_SAFE_INTEGER,
        });
      }
      log.info({ queued: queuedCount }, 'workflow engine: running');
      poll();
    },

    async drain(timeoutMs = 30_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        fireDueTimers();
        dispatch();
        await waitIdle();
        // Let activity completions that were just applied enqueue their follow-ups.
        await new Promise<void>((r) => setImmediate(r));
        if (isIdle() && !hasDueTimer() && (queuedCount === 0 || !active)) return;
        if (Date.now() > deadline) throw new Error('workflow engine: drain timed out');
      }
    },

    stats() {
      return {
        running: runningCount,
        queued: queuedCount,
        timers: q.countTimers.get()?.n ?? 0,
        workflowsRunning: q.countRunningWf.get()?.n ?? 0,
      };
    },

    async listRunning(name?: string, limit = 100): Promise<WorkflowStatus[]> {
      return q.listRunning.all(name ?? null, name ?? null, limit).map((row) => ({
        workflowId: row.id,
        name: row.name,
        status: 'running' as const,
        state: row.state === null ? undefined : (JSON.parse(row.state) as unknown),
      }));
    },

    async stop(graceMs = 5_000): Promise<void> {
      if (closed) return;
      active = false;
      if (pollTimer) clearTimeout(pollTimer);
      pollTimer = null;
      if (inFlight.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.allSettled([...inFlight]),
          new Promise<void>((r) => {
            timer = setTimeout(r, graceMs);
          }),
        ]);
        if (timer) clearTimeout(timer);
      }
      flushJobs(); // commit transitions already submitted (starts, signals, outcomes) before closing
      closed = true;
      queues.clear();
      queuedCount = 0;
      notifyIfIdle();
      db.close();
    },
  };
}
