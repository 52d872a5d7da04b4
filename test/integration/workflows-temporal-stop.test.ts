/**
 * A stopping Temporal engine starts no new activity (issue 27). Its worker keeps handing out tasks while
 * it drains (outstanding polls answer, permits are handed on), so without a check an activity could
 * start after `stop()` began: its side effect ran on a process going away, or, when the permit client
 * had already closed, it failed with a plain `permit client closed` that the process manager took for
 * the activity's own failure (found with the usage-export workflow: exports asked for just before an
 * API process stopped were marked failed instead of being written by the next process).
 *
 * Each case keeps engine A stopping for about 2 s (an activity already running when `stop` began is
 * awaited), starts a workflow from another process's client meanwhile (A is the only worker polling,
 * so its activity goes to A), then lets engine C take over: the activity must not have run on A, must
 * have reached the process manager as `interrupted`, and must run once on C under the retry's id.
 * On the shared development server (`TEMPORAL_ADDRESS`), a task queue of this file's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { createTemporalWorkflowEngine, installRuntime } from '../../infra/workflows/temporal/engine.ts';
import type { Activity, ProcessManager, WorkflowEngine } from '../../infra/ports/workflows.ts';
import { temporalAddress, terminateTaskQueue } from '../helpers/temporal.ts';
import { eventually } from '../contract/workflows.contract.ts';

const address = await temporalAddress('Temporal engine stop');

interface S {
  /** What the process manager saw, in order: `completed a1`, `interrupted a1: ...`. */
  log: string[];
}

/** Runs `name` once (id a1); an interrupted attempt is retried once under a new id, as the product's process managers do. */
const pm: ProcessManager<S> = {
  name: 'stop-check',
  handle(state, input) {
    const bound = (input.type === 'started' ? input.input : undefined) as { name: string; bounded: boolean } | undefined;
    if (input.type === 'started') return { state: { log: [] }, effects: [{ type: 'activity', id: 'a1', name: bound!.name, input: null, ...(bound!.bounded ? { concurrency: { key: 'stop-check', limit: 1 } } : {}) }] };
    const s: S = { log: [...state!.log] };
    if (input.type === 'activity.completed') return { state: { log: [...s.log, `completed ${input.id}`] }, effects: [], done: true };
    if (input.type === 'activity.failed') {
      s.log.push(`${input.interrupted ? 'interrupted' : 'failed'} ${input.id}: ${input.error}`);
      if (input.interrupted && input.id === 'a1') return { state: s, effects: [{ type: 'activity', id: 'a1~2', name: 'stop-check.side', input: null }] };
      return { state: s, effects: [], done: true };
    }
    return { state: s, effects: [] };
  },
};

describe.skipIf(!address)('Temporal engine: no activity starts once stop() began', () => {
  const run = `stop-check-${process.pid}-${Date.now()}`;
  const clock = { now: () => Date.now() };
  const engines: WorkflowEngine[] = [];
  let connection: Connection;
  let temporal: Client;
  beforeAll(async () => {
    connection = await Connection.connect({ address: address! });
    temporal = new Client({ connection });
  });
  const queues: string[] = [];
  afterAll(async () => {
    for (const e of engines) await e.stop(100);
    await connection?.close();
    for (const q of queues) await terminateTaskQueue(address!, q); // what a failed case left running on the shared server
  });

  /** Side effects by process: `A:<workflow>:<activity>`. */
  const ran: string[] = [];
  const activitiesOf = (proc: string): Record<string, Activity> => ({
    'stop-check.blocker': async (_input, ctx) => {
      ran.push(`${proc}:${ctx.workflowId}:${ctx.activityId}`);
      await new Promise((r) => setTimeout(r, 2_000));
      return 'done';
    },
    'stop-check.side': async (_input, ctx) => {
      ran.push(`${proc}:${ctx.workflowId}:${ctx.activityId}`);
      return 'done';
    },
  });
  const open = (proc: string, taskQueue: string) => {
    const e = createTemporalWorkflowEngine({ address: address!, taskQueue, clock, stickyQueueTimeoutMs: 1000, workflowTaskTimeoutMs: 2000 });
    e.register(pm, activitiesOf(proc));
    engines.push(e);
    return e;
  };

  for (const bounded of [false, true]) {
    it(bounded ? 'an activity waiting for a permit when stop() began is not started: interrupted, retried by the next worker' : 'an activity scheduled after stop() began runs on the next worker, not on the stopping one', async () => {
      installRuntime(undefined);
      const tag = bounded ? 'bounded' : 'free';
      const taskQueue = `${run}-${tag}`; // one per case: a failed case leaves no worker polling the next one's
      queues.push(taskQueue);
      const a = open('A', taskQueue);
      const client = open('client', taskQueue); // never runs a worker: starts workflows as another API process would
      await a.run();
      await a.start('stop-check', `${taskQueue}-blocker`, { name: 'stop-check.blocker', bounded });
      await eventually(() => ran.includes(`A:${taskQueue}-blocker:a1`), 30_000, 'blocker running on A');
      let stopping: Promise<void>;
      if (bounded) {
        // Dispatched to A before stop() (waiting there for the blocker's permit), granted while A stops.
        await client.start('stop-check', `${taskQueue}-late`, { name: 'stop-check.side', bounded });
        await eventually(async () => {
          const d = await temporal.workflow.getHandle(`${taskQueue}-late`).describe();
          return d.raw.pendingActivities?.some((p) => p.activityId === 'a1' && p.lastStartedTime != null); // started = handed to a worker (A's)
        }, 30_000, 'late activity handed to A');
        stopping = a.stop(10_000); // awaits the blocker (2 s), which then hands its permit on
      } else {
        stopping = a.stop(10_000); // awaits the blocker (2 s); A's worker still polls meanwhile
        await client.start('stop-check', `${taskQueue}-late`, { name: 'stop-check.side', bounded });
      }
      await stopping;
      const c = open('C', taskQueue);
      await c.run();
      const late = await eventually(async () => {
        const g = await client.get<S>(`${taskQueue}-late`);
        return g?.status === 'completed' ? g.state : null;
      }, 60_000, 'late workflow done on C');
      // Not run on the stopping process: run once by the next one. Sent to A before stop() (the bounded
      // case) it is refused there as interrupted and retried; sent after, it goes to C at once (or, had a
      // poll of A's answered as it shut down, it is refused there the same way).
      const onC = ran.filter((r) => r.includes(`${taskQueue}-late`));
      expect(onC).toHaveLength(1);
      expect(onC[0]).toMatch(new RegExp(`^C:${taskQueue}-late:a1(~2)?$`));
      if (bounded || onC[0]!.endsWith('~2')) {
        expect(late.log).toHaveLength(2);
        // A's refusal is normally what the process manager sees; on a loaded machine A's worker can be gone
        // before that refusal reaches the server (seen once in a clean-clone CI run), and the server's
        // heartbeat timeout reports the attempt instead. Either way it was interrupted, not run.
        expect(late.log[0]).toMatch(/^interrupted a1: interrupted: (the engine (was stopping|stopped while the activity waited for a permit of stop-check); .*not started|the activity timed out \(HEARTBEAT\); its worker stopped or died)$/);
        expect(late.log[1]).toBe('completed a1~2');
      } else {
        expect(late.log).toEqual(['completed a1']);
      }
      // The activity running when stop began finished within the grace period.
      // (A reported it; C, polling now, decides on it.)
      const blocker = await eventually(async () => {
        const g = await client.get<S>(`${taskQueue}-blocker`);
        return g?.status === 'completed' ? g.state : null;
      }, 30_000, 'blocker workflow done');
      expect(blocker.log).toEqual(['completed a1']);
      if (bounded) {
        // A's request for the late activity's permit was still waiting at the semaphore when A stopped: it is
        // withdrawn, so no permit is granted to a worker that is gone (it would be held until its lease,
        // 60 s, ran out). With nothing held and nobody waiting, the semaphore workflow completes.
        // On a loaded machine the grant can cross the withdrawal (answered just before A closed, given back after
        // A's connection closed): the permit's 60 s lease then reclaims it. Either way none is held for good.
        const semaphore = temporal.workflow.getHandle(`sello-semaphore:${taskQueue}`);
        const t0 = Date.now();
        await eventually(async () => (await semaphore.describe()).status.name === 'COMPLETED', 80_000, 'semaphore idle (no permit left to A)');
        console.log(`semaphore idle ${Date.now() - t0} ms after C took over (${Date.now() - t0 > 55_000 ? 'reclaimed by its lease' : 'withdrawn'})`);
      }
      await c.stop();
    }, 200_000);
  }
});
