import { randomUUID } from 'node:crypto';
import pg from 'pg';
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
import type { EngineLogger } from '../embedded/index.ts';
import { SCHEMA_NAME, migratePostgresWorkflows } from './schema.ts';

export { migratePostgresWorkflows } from './schema.ts';

export interface PostgresWorkflowEngineOptions {
  connectionString: string;
  /** Schema holding the `wf_*` tables (created when missing). Default `public`. */
  schema?: string;
  clock: Clock;
  logger?: EngineLogger;
  /** How often (real ms) each engine looks for due timers, expired leases and pending activities. Default 250. */
  pollIntervalMs?: number;
  /** Most activities this process runs at once. Default 64. */
  maxConcurrentActivities?: number;
  /**
   * How long (real ms) a running activity stays claimed without a heartbeat of its owner. When a process
   * dies, its activities are fed back as interrupted this long after its last heartbeat. Default 30 000.
   */
  leaseMs?: number;
  /** Pool size. Default 8. */
  poolSize?: number;
}

interface ActivityRow {
  workflow_id: string;
  activity_id: string;
  wf_name: string;
  name: string;
  input: unknown;
  conc_key: string | null;
}

/**
 * Workflow engine shared by several processes (`WORKFLOWS=postgres`): workflow state, timers and
 * activity records in PostgreSQL; every process that calls `run()` is a scheduler.
 *
 * How the port's guarantees hold across processes:
 * - every transition (start, signal, timer, activity outcome) runs in one transaction that first locks
 *   the workflow's row (`FOR UPDATE`), so transitions of one workflow are serialised wherever they run;
 *   its effects are written in the same transaction, before any of them runs;
 * - a due timer is claimed by exactly one process: the workflow row is locked with `FOR UPDATE SKIP
 *   LOCKED` (a process busy with that workflow is skipped, not waited for) and the timer row deleted
 *   with `RETURNING`; only the process whose delete returned the row fires it;
 * - pending activities are claimed under a transaction-level advisory lock with `FOR UPDATE SKIP
 *   LOCKED`; the running count per concurrency key is read inside that lock, so a key's limit holds
 *   across all processes. The claim sets `status = running`, the engine id as `owner` and a lease;
 * - the owner renews its leases every `leaseMs / 3`. A running row whose lease expired (its process
 *   died) or that its owner abandoned at `stop()` is fed back as `activity.failed` with
 *   `interrupted: true` by whichever process gets it first, never started again;
 * - an outcome is applied only by the row's owner while it still holds the row (`owner = me AND status
 *   = running`), so a late outcome from a process that lost its lease is dropped.
 *
 * Appends of new activities `NOTIFY` the other engines, which otherwise poll every `pollIntervalMs`.
 */
export function createPostgresWorkflowEngine(options: PostgresWorkflowEngineOptions): WorkflowEngine {
  const { clock } = options;
  const schema = options.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${schema}`);
  const log: EngineLogger = options.logger ?? { info() {}, warn() {}, error() {} };
  const pollMs = options.pollIntervalMs ?? 250;
  const maxRunning = options.maxConcurrentActivities ?? 64;
  const leaseMs = options.leaseMs ?? 30_000;
  const me = randomUUID();
  const channel = `sello_wf_${schema}`;
  const T = {
    wf: `${schema}.wf_workflows`,
    timers: `${schema}.wf_timers`,
    acts: `${schema}.wf_activities`,
  };

  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.poolSize ?? 8 });
  pool.on('error', (err) => log.error({ err: String(err) }, 'workflow engine: idle PostgreSQL connection failed'));
  const ready = migratePostgresWorkflows(pool, schema);
  ready.catch(() => undefined);

  const managers = new Map<string, ProcessManager<unknown>>();
  const activityFns = new Map<string, Map<string, Activity>>();
  const inFlight = new Set<Promise<void>>();
  let runningCount = 0;
  let active = false;
  let closed = false;
  let pollTimer: NodeJS.Timeout | null = null;
  let heartbeatTimer: NodeJS.Timeout | null = null;
  let listener: pg.Client | null = null;
  let ticking: Promise<void> | null = null;
  /** Reserved rows (`wf_reserve`) by concurrency key: this engine's local queue for slot hand-offs. */
  const reserved = new Map<string, ActivityRow[]>();
  const reservedIds = new Set<string>();
  /** Reserved rows started by a hand-off whose own outcome is not recorded yet. */
  const handedOff = new Set<string>();
  const rowKey = (a: { workflow_id: string; activity_id: string }): string => `${a.workflow_id}\u0000${a.activity_id}`;
  let tickAgain = false;

  async function tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    await ready;
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      const value = await fn(c);
      await c.query('COMMIT');
      return value;
    } catch (error) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      c.release();
    }
  }

  /**
   * Applies `input` to the workflow whose row the caller locked (`row`), records the effects; returns
   * true when activities were recorded (the caller notifies the schedulers).
   */
  async function applyLocked(
    c: pg.PoolClient,
    row: { id: string; name: string; status: string; state: unknown },
    input: WorkflowInput,
  ): Promise<boolean> {
    if (row.status !== 'running') return false;
    const manager = managers.get(row.name);
    if (!manager) throw new Error(`workflow type ${row.name} is not registered`);
    const now = clock.now();
    const t: Transition<unknown> = manager.handle(row.state === null ? undefined : row.state, input, { now, workflowId: row.id });
    const done = t.done === true;
    await c.query(`UPDATE ${T.wf} SET status = $1, state = $2::json, updated_at = $3 WHERE id = $4`, [
      done ? 'completed' : 'running',
      t.state === undefined ? null : JSON.stringify(t.state),
      now,
      row.id,
    ]);
    if (done) {
      await c.query(`DELETE FROM ${T.timers} WHERE workflow_id = $1`, [row.id]);
      await c.query(`DELETE FROM ${T.acts} WHERE workflow_id = $1`, [row.id]);
      return false;
    }
    return recordEffects(c, row.id, row.name, t.effects);
  }

  async function recordEffects(c: pg.PoolClient, workflowId: string, wfName: string, effects: readonly WorkflowEffect[]): Promise<boolean> {
    let created = false;
    for (const e of effects) {
      if (e.type === 'timer') {
        await c.query(
          `INSERT INTO ${T.timers} (workflow_id, timer_id, at) VALUES ($1, $2, $3) ON CONFLICT (workflow_id, timer_id) DO UPDATE SET at = excluded.at`,
          [workflowId, e.id, e.at],
        );
      } else {
        const r = await c.query(
          `INSERT INTO ${T.acts} (workflow_id, activity_id, wf_name, name, input, conc_key, conc_limit, status)
           VALUES ($1, $2, $3, $4, $5::json, $6, $7, 'pending') ON CONFLICT DO NOTHING`,
          [workflowId, e.id, wfName, e.name, JSON.stringify(e.input ?? null), e.concurrency?.key ?? null, e.concurrency?.limit ?? null],
        );
        // ON CONFLICT DO NOTHING: an activity id already recorded is never started a second time.
        if (r.rowCount === 1) created = true;
        else log.warn({ workflowId, activityId: e.id }, 'workflow: duplicate activity id ignored');
      }
    }
    if (created) await c.query('SELECT pg_notify($1, $2)', [channel, 'activity']);
    return created;
  }

  async function lockWorkflow(c: pg.PoolClient, workflowId: string, skipLocked: boolean) {
    const { rows } = await c.query<{ id: string; name: string; status: string; state: unknown }>(
      `SELECT id, name, status, state FROM ${T.wf} WHERE id = $1 FOR UPDATE${skipLocked ? ' SKIP LOCKED' : ''}`,
      [workflowId],
    );
    return rows[0] ?? null;
  }

  async function transition(workflowId: string, input: WorkflowInput): Promise<void> {
    const created = await tx(async (c) => {
      const row = await lockWorkflow(c, workflowId, false);
      return row ? applyLocked(c, row, input) : false;
    });
    if (created) scheduleTick();
  }

  // --- the scheduler -------------------------------------------------------------------------------

  function scheduleTick(): void {
    if (!active) return;
    if (ticking) {
      tickAgain = true;
      return;
    }
    ticking = (async () => {
      do {
        tickAgain = false;
        try {
          await recoverExpired();
          await fireDueTimers();
          await claimActivities();
        } catch (err) {
          if (active) log.error({ err: String(err) }, 'workflow engine: scheduler pass failed; retried at the next poll');
        }
      } while (tickAgain && active);
    })().finally(() => {
      ticking = null;
    });
  }

  /**
   * Activities whose lease expired (owner died, or abandoned them at stop): a `running` one is fed back
   * as interrupted, a `completing` one (outcome recorded, not yet applied) gets its stored outcome; once.
   */
  async function recoverExpired(): Promise<void> {
    await ready;
    const { rows } = await pool.query<{ workflow_id: string; activity_id: string }>(
      `SELECT workflow_id, activity_id FROM ${T.acts} WHERE status IN ('running', 'completing', 'reserved') AND lease_until < now() ORDER BY seq LIMIT 200`,
    );
    for (const r of rows) {
      if (!active) return;
      const created = await tx(async (c) => {
        const wf = await lockWorkflow(c, r.workflow_id, true);
        if (!wf) return false;
        const claimed = await c.query<{ status: string; outcome: WorkflowInput | null }>(
          `UPDATE ${T.acts} n SET status = 'done', owner = $3 FROM ${T.acts} o
            WHERE n.workflow_id = $1 AND n.activity_id = $2 AND o.workflow_id = n.workflow_id AND o.activity_id = n.activity_id
              AND o.status IN ('running', 'completing', 'reserved') AND o.lease_until < now()
            RETURNING o.status, o.outcome`,
          [r.workflow_id, r.activity_id, me],
        );
        const row = claimed.rows[0];
        if (!row) return false;
        if (row.status === 'completing' && row.outcome) return applyLocked(c, wf, row.outcome);
        log.warn({ workflowId: r.workflow_id, activityId: r.activity_id }, 'workflow: activity interrupted (its process stopped or its lease expired)');
        return applyLocked(c, wf, {
          type: 'activity.failed',
          id: r.activity_id,
          error: 'interrupted: the engine stopped while the activity was running',
          interrupted: true,
        });
      });
      if (created) tickAgain = true;
    }
  }

  async function fireDueTimers(): Promise<void> {
    await ready;
    for (;;) {
      const { rows } = await pool.query<{ workflow_id: string; timer_id: string }>(
        `SELECT workflow_id, timer_id FROM ${T.timers} WHERE at <= $1 ORDER BY at LIMIT 200`,
        [clock.now()],
      );
      for (const t of rows) {
        if (!active) return;
        const created = await tx(async (c) => {
          const wf = await lockWorkflow(c, t.workflow_id, true);
          if (!wf) return false;
          const del = await c.query(`DELETE FROM ${T.timers} WHERE workflow_id = $1 AND timer_id = $2 AND at <= $3`, [
            t.workflow_id,
            t.timer_id,
            clock.now(),
          ]);
          if (del.rowCount !== 1) return false;
          return applyLocked(c, wf, { type: 'timer.fired', id: t.timer_id });
        });
        if (created) tickAgain = true;
      }
      if (rows.length < 200) return;
    }
  }

  /** Claims pending activities for this engine (`wf_claim`, one statement) and starts them. */
  async function claimActivities(): Promise<void> {
    const free = maxRunning - runningCount;
    if (!active || free <= 0 || managers.size === 0) return;
    await ready;
    const { rows } = await pool.query<ActivityRow>(`SELECT * FROM ${schema}.wf_claim($1, $2::text[], $3, $4, NULL)`, [
      me,
      [...managers.keys()],
      free,
      leaseMs / 1000,
    ]);
    for (const a of rows) startClaimed(a);
    if (rows.length === free) tickAgain = true;
    if (!active) return;
    const res = await pool.query<ActivityRow>(`SELECT * FROM ${schema}.wf_reserve($1, $2)`, [me, leaseMs / 1000]);
    for (const r of res.rows) {
      if (r.conc_key === null || reservedIds.has(rowKey(r))) continue;
      let list = reserved.get(r.conc_key);
      if (!list) reserved.set(r.conc_key, (list = []));
      list.push(r);
      reservedIds.add(rowKey(r));
    }
  }

  /** Next reserved activity of `key` for a slot hand-off (removed from the local queue). */
  function takeReserved(key: string | null): ActivityRow | undefined {
    if (key === null || !active) return undefined;
    const list = reserved.get(key);
    const next = list?.shift();
    if (list && list.length === 0) reserved.delete(key);
    if (next) {
      reservedIds.delete(rowKey(next));
      handedOff.add(rowKey(next));
    }
    return next;
  }

  /** Starts a row `wf_claim` gave this engine, unless it is one of its reserved rows already handed a slot. */
  function startClaimed(a: ActivityRow): void {
    const id = rowKey(a);
    if (handedOff.has(id)) return; // started by a hand-off; the claim only confirmed it as running
    if (reservedIds.delete(id)) {
      const list = reserved.get(a.conc_key ?? '');
      const i = list?.findIndex((r) => rowKey(r) === id) ?? -1;
      if (list && i >= 0) list.splice(i, 1);
      if (list && list.length === 0) reserved.delete(a.conc_key ?? '');
    }
    startActivity(a);
  }

  /**
   * Calls an activity this engine claimed. Its outcome is first recorded in the activity's row
   * (`wf_finish`, which also hands the concurrency slot to the next pending activity of its key), then
   * applied to the workflow while this engine still owns the row.
   */
  function startActivity(a: ActivityRow, handedOver?: Promise<void>): void {
    runningCount++;
    const fn = activityFns.get(a.wf_name)?.get(a.name);
    const p = (async () => {
      let outcome: WorkflowInput;
      try {
        if (!fn) throw new Error(`activity ${a.name} is not registered`);
        const result = await fn(a.input, { workflowId: a.workflow_id, activityId: a.activity_id });
        outcome = { type: 'activity.completed', id: a.activity_id, result: result === undefined ? null : result };
      } catch (err) {
        outcome = { type: 'activity.failed', id: a.activity_id, error: err instanceof Error ? err.message : String(err) };
      }
      if (closed) return; // abandoned at stop: fed back as interrupted by the next engine
      // Slot hand-off: the next reserved activity of this key starts now, before the database hears of it;
      // its own outcome waits until this wf_finish moved the slot to it.
      const next = takeReserved(a.conc_key);
      let handed: () => void = () => undefined;
      if (next) startActivity(next, new Promise<void>((r) => (handed = r)));
      try {
        await handedOver;
        const { rows } = await pool.query<ActivityRow & { kind: 'finished' | 'handed' | 'claimed' }>(
          `SELECT * FROM ${schema}.wf_finish($1, $2, $3, $4::json, $5, $6, $7::text[], $8, $9)`,
          [
            a.workflow_id,
            a.activity_id,
            me,
            JSON.stringify(outcome),
            next?.workflow_id ?? null,
            next?.activity_id ?? null,
            [...managers.keys()],
            active ? maxRunning - runningCount + 1 : 0,
            leaseMs / 1000,
          ],
        );
        handed();
        for (const r of rows) if (r.kind === 'claimed') startClaimed(r);
        if (next && !rows.some((r) => r.kind === 'handed')) {
          log.error({ workflowId: next.workflow_id, activityId: next.activity_id }, 'workflow: a reserved activity was started but its reservation was lost; its outcome will be dropped');
        }
        if (!rows.some((r) => r.kind === 'finished')) return; // lease lost: another process fed it back as interrupted
        const created = await tx(async (c) => {
          const wf = await lockWorkflow(c, a.workflow_id, false);
          if (!wf) return false;
          const done = await c.query<{ outcome: WorkflowInput }>(
            `UPDATE ${T.acts} SET status = 'done' WHERE workflow_id = $1 AND activity_id = $2 AND status = 'completing' AND owner = $3 RETURNING outcome`,
            [a.workflow_id, a.activity_id, me],
          );
          const row = done.rows[0];
          if (!row) return false;
          return applyLocked(c, wf, row.outcome);
        });
        if (created) tickAgain = true;
      } catch (err) {
        handed();
        // The row stays `running`/`completing`: when its lease expires it is fed back (interrupted, or its stored outcome).
        log.error({ workflowId: a.workflow_id, activityId: a.activity_id, err: String(err) }, 'workflow: could not record an activity outcome');
      }
    })().finally(() => {
      handedOff.delete(rowKey(a));
      runningCount--;
      inFlight.delete(p);
      scheduleTick();
    });
    inFlight.add(p);
  }

  async function heartbeat(): Promise<void> {
    if (!active || runningCount === 0) return;
    await pool
      .query(`UPDATE ${T.acts} SET lease_until = now() + make_interval(secs => $2) WHERE owner = $1 AND status IN ('running', 'completing', 'reserved')`, [me, leaseMs / 1000])
      .catch((err: unknown) => log.error({ err: String(err) }, 'workflow engine: lease renewal failed'));
  }

  async function listen(): Promise<void> {
    const client = new pg.Client({ connectionString: options.connectionString });
    client.on('error', () => undefined);
    client.on('notification', () => scheduleTick());
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
      if (closed) await client.end();
      else listener = client;
    } catch (err) {
      log.warn({ err: String(err) }, 'workflow engine: LISTEN failed; polling only');
      await client.end().catch(() => undefined);
    }
  }

  return {
    register<S>(manager: ProcessManager<S>, activities: Record<string, Activity>): void {
      managers.set(manager.name, manager as ProcessManager<unknown>);
      activityFns.set(manager.name, new Map(Object.entries(activities)));
    },

    async start(name: string, workflowId: string, input: unknown): Promise<boolean> {
      if (closed) throw new Error('workflow engine is stopped');
      if (!managers.has(name)) throw new Error(`workflow type ${name} is not registered`);
      const result = await tx(async (c) => {
        const now = clock.now();
        const ins = await c.query(
          `INSERT INTO ${T.wf} (id, name, status, state, created_at, updated_at) VALUES ($1, $2, 'running', NULL, $3, $3) ON CONFLICT (id) DO NOTHING`,
          [workflowId, name, now],
        );
        if (ins.rowCount !== 1) return { started: false, created: false };
        const created = await applyLocked(c, { id: workflowId, name, status: 'running', state: null }, { type: 'started', input });
        return { started: true, created };
      });
      if (result.created) scheduleTick();
      return result.started;
    },

    async signal(workflowId: string, name: string, payload: unknown): Promise<void> {
      if (closed) throw new Error('workflow engine is stopped');
      await transition(workflowId, { type: 'signal', name, payload });
    },

    async get<S = unknown>(workflowId: string): Promise<WorkflowStatus<S> | null> {
      await ready;
      const { rows } = await pool.query<{ id: string; name: string; status: string; state: unknown }>(
        `SELECT id, name, status, state FROM ${T.wf} WHERE id = $1`,
        [workflowId],
      );
      const row = rows[0];
      if (!row) return null;
      return {
        workflowId: row.id,
        name: row.name,
        status: row.status === 'completed' ? 'completed' : 'running',
        state: (row.state === null ? undefined : row.state) as S,
      };
    },

    async run(): Promise<void> {
      if (closed) throw new Error('workflow engine is stopped');
      if (active) return;
      await ready;
      active = true;
      void listen();
      const poll = (): void => {
        if (!active) return;
        scheduleTick();
        pollTimer = setTimeout(poll, pollMs);
      };
      poll();
      heartbeatTimer = setInterval(() => void heartbeat(), Math.max(100, Math.floor(leaseMs / 3)));
      log.info({ engine: me }, 'workflow engine (PostgreSQL): running');
    },

    async stop(graceMs = 5_000): Promise<void> {
      if (closed) return;
      active = false;
      if (pollTimer) clearTimeout(pollTimer);
      if (heartbeatTimer) clearInterval(heartbeatTimer);
      await ticking;
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
      closed = true;
      // Reserved rows still in the local queue never started: back to pending for any engine.
      const queued = [...reserved.values()].flat();
      reserved.clear();
      reservedIds.clear();
      if (queued.length > 0) {
        await pool
          .query(
            `UPDATE ${T.acts} SET status = 'pending', owner = NULL, lease_until = NULL
              WHERE owner = $1 AND status = 'reserved' AND (workflow_id, activity_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
            [me, queued.map((q) => q.workflow_id), queued.map((q) => q.activity_id)],
          )
          .catch(() => undefined);
      }
      // Activities still running here are abandoned: expiring their leases now lets the next engine (or
      // another process) feed them back as interrupted at once instead of after `leaseMs`.
      await pool
        .query(`UPDATE ${T.acts} SET lease_until = now() - interval '1 millisecond' WHERE owner = $1 AND status IN ('running', 'completing', 'reserved')`, [me])
        .catch(() => undefined);
      await listener?.end().catch(() => undefined);
      await pool.end();
    },
  };
}
