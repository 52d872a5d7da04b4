import { describe, expect, it } from 'vitest';
import type { Activity, Clock, ProcessManager, WorkflowEngine, WorkflowInput } from '../../infra/ports/workflows.ts';

/**
 * Contract suite of the workflows port (`infra/ports/workflows.ts`). Every engine runs it unchanged:
 * `describeWorkflowEngineContract('embedded', () => harness)`.
 *
 * A harness opens engines on one durable storage, so the suite can stop an engine and open another one
 * on the same storage (the restart tests). Time is a {@link ManualClock} the suite advances.
 */
export interface WorkflowEngineHarness {
  /** Opens an engine on this harness's storage; every call of one harness shares the same storage. */
  open(clock: Clock): Promise<WorkflowEngine>;
  /** Removes the storage. */
  dispose(): Promise<void>;
}

/** A clock the test moves by hand (epoch ms). */
export class ManualClock implements Clock {
  constructor(private t = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** Polls `fn` (real time) until it returns a truthy value. */
export async function eventually<T>(fn: () => Promise<T> | T, timeoutMs = 5_000, label = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface LogState {
  inputs: WorkflowInput[];
  step: number;
}

/** A scripted manager: `script(state, input)` returns effects/done; every input is logged into state. */
function scripted(
  name: string,
  script: (s: LogState, input: WorkflowInput, now: number) => { effects?: any[]; done?: boolean },
): ProcessManager<LogState> {
  return {
    name,
    handle(state, input, { now }) {
      const s: LogState = state ? { inputs: [...state.inputs, input], step: state.step + 1 } : { inputs: [input], step: 0 };
      const r = script(s, input, now);
      return { state: s, effects: r.effects ?? [], done: r.done };
    },
  };
}

export function describeWorkflowEngineContract(engineName: string, makeHarness: () => Promise<WorkflowEngineHarness>): void {
  describe(`workflows port contract: ${engineName}`, () => {
    async function withEngine<T>(fn: (h: WorkflowEngineHarness, clock: ManualClock) => Promise<T>): Promise<T> {
      const h = await makeHarness();
      const clock = new ManualClock();
      try {
        return await fn(h, clock);
      } finally {
        await h.dispose();
      }
    }

    it('starts a workflow once per id, runs its activity and feeds the result back', async () => {
      await withEngine(async (h, clock) => {
        const e = await h.open(clock);
        const calls: unknown[] = [];
        e.register(
          scripted('echo', (s, input) => {
            if (input.type === 'started') return { effects: [{ type: 'activity', id: 'a1', name: 'double', input: input.input }] };
            if (input.type === 'activity.completed') return { done: true };
            return {};
          }),
          { double: async (x: number) => (calls.push(x), x * 2) },
        );
        await e.run();
        expect(await e.start('echo', 'wf-1', 21)).toBe(true);
        expect(await e.start('echo', 'wf-1', 99)).toBe(false);
        const st = await eventually(async () => {
          const g = await e.get<LogState>('wf-1');
          return g?.status === 'completed' ? g : null;
        });
        expect(calls).toEqual([21]);
        expect(st.state.inputs.at(-1)).toEqual({ type: 'activity.completed', id: 'a1', result: 42 });
        expect(await e.get('nope')).toBeNull();
        await e.stop();
      });
    });

    it('feeds a thrown activity error back as activity.failed', async () => {
      await withEngine(async (h, clock) => {
        const e = await h.open(clock);
        e.register(
          scripted('boom', (s, input) => {
            if (input.type === 'started') return { effects: [{ type: 'activity', id: 'x', name: 'fail', input: null }] };
            return { done: true };
          }),
          {
            fail: async () => {
              throw new Error('receiver said no');
            },
          },
        );
        await e.run();
        await e.start('boom', 'wf-b', null);
        const st = await eventually(async () => {
          const g = await e.get<LogState>('wf-b');
          return g?.status === 'completed' ? g : null;
        });
        const last = st.state.inputs.at(-1);
        expect(last).toMatchObject({ type: 'activity.failed', id: 'x', error: 'receiver said no' });
        expect((last as { interrupted?: boolean }).interrupted).not.toBe(true);
        await e.stop();
      });
    });

    it('fires timers by the injected clock, not before', async () => {
      await withEngine(async (h, clock) => {
        const e = await h.open(clock);
        e.register(
          scripted('sleeper', (s, input, now) => {
            if (input.type === 'started') return { effects: [{ type: 'timer', id: 't1', at: now + 60 * 60_000 }] };
            if (input.type === 'timer.fired') return { done: true };
            return {};
          }),
          {},
        );
        await e.run();
        await e.start('sleeper', 'wf-t', null);
        await new Promise((r) => setTimeout(r, 100));
        expect((await e.get('wf-t'))?.status).toBe('running');
        clock.advance(60 * 60_000 - 1);
        await new Promise((r) => setTimeout(r, 100));
        expect((await e.get('wf-t'))?.status).toBe('running');
        clock.advance(1);
        const st = await eventually(async () => {
          const g = await e.get<LogState>('wf-t');
          return g?.status === 'completed' ? g : null;
        });
        expect(st.state.inputs.at(-1)).toEqual({ type: 'timer.fired', id: 't1' });
        await e.stop();
      });
    });

    it('delivers signals, and ignores inputs after the workflow is done', async () => {
      await withEngine(async (h, clock) => {
        const e = await h.open(clock);
        e.register(
          scripted('waiter', (s, input) => (input.type === 'signal' && input.name === 'finish' ? { done: true } : {})),
          {},
        );
        await e.run();
        await e.start('waiter', 'wf-s', null);
        await e.signal('wf-s', 'poke', { n: 1 });
        await e.signal('wf-s', 'finish', { n: 2 });
        await e.signal('wf-s', 'poke', { n: 3 });
        const st = await eventually(async () => {
          const g = await e.get<LogState>('wf-s');
          return g?.status === 'completed' ? g : null;
        });
        expect(st.state.inputs.map((i) => (i.type === 'signal' ? (i.payload as { n: number }).n : i.type))).toEqual(['started', 1, 2]);
        await e.stop();
      });
    });

    it('never starts the same activity id twice within a workflow', async () => {
      await withEngine(async (h, clock) => {
        const e = await h.open(clock);
        let calls = 0;
        e.register(
          scripted('dup', (s, input) => {
            if (input.type === 'started') {
              return {
                effects: [
                  { type: 'activity', id: 'same', name: 'count', input: null },
                  { type: 'activity', id: 'same', name: 'count', input: null },
                ],
              };
            }
            if (input.type === 'signal') return { effects: [{ type: 'activity', id: 'same', name: 'count', input: null }] };
            return {};
          }),
          { count: async () => ++calls },
        );
        await e.run();
        await e.start('dup', 'wf-d', null);
        await eventually(async () => ((await e.get<LogState>('wf-d'))?.state.inputs.length ?? 0) >= 2);
        await e.signal('wf-d', 'again', null);
        await new Promise((r) => setTimeout(r, 150));
        expect(calls).toBe(1);
        await e.stop();
      });
    });

    it('bounds concurrency per key without holding up other keys', async () => {
      await withEngine(async (h, clock) => {
        const e = await h.open(clock);
        let slowRunning = 0;
        let slowPeak = 0;
        const release: Array<() => void> = [];
        let fastDone = 0;
        e.register(
          scripted('conc', (s, input) => {
            if (input.type === 'started') {
              const { key } = input.input as { key: string };
              return { effects: [{ type: 'activity', id: 'a', name: key, input: null, concurrency: { key, limit: 2 } }] };
            }
            return { done: true };
          }),
          {
            slow: async () => {
              slowRunning++;
              slowPeak = Math.max(slowPeak, slowRunning);
              await new Promise<void>((r) => release.push(r));
              slowRunning--;
            },
            fast: async () => {
              fastDone++;
            },
          },
        );
        await e.run();
        for (let i = 0; i < 6; i++) await e.start('conc', `slow-${i}`, { key: 'slow' });
        for (let i = 0; i < 5; i++) await e.start('conc', `fast-${i}`, { key: 'fast' });
        await eventually(() => fastDone === 5, 5_000, 'fast activities');
        // Two slow activities hold the key's permits (on a loaded machine they may start after the fast
        // ones finished: a clean-clone CI run on Temporal saw 0 running at this point), and fast ones
        // started now still complete while the slow ones are held.
        await eventually(() => slowRunning === 2, 10_000, 'two slow activities running');
        for (let i = 5; i < 8; i++) await e.start('conc', `fast-${i}`, { key: 'fast' });
        await eventually(() => fastDone === 8, 5_000, 'fast activities while the slow ones are held');
        expect(slowRunning).toBe(2);
        while (release.length > 0 || slowRunning > 0) {
          release.splice(0).forEach((r) => r());
          await new Promise((r) => setTimeout(r, 20));
        }
        await eventually(async () => (await e.get('slow-5'))?.status === 'completed', 5_000, 'slow-5');
        expect(slowPeak).toBe(2);
        await e.stop();
      });
    });

    it('restart: a pending timer survives a stop and fires after the engine is opened again', async () => {
      await withEngine(async (h, clock) => {
        const pm = scripted('retry', (s, input, now) => {
          if (input.type === 'started') return { effects: [{ type: 'timer', id: 'later', at: now + 5 * 60_000 }] };
          if (input.type === 'timer.fired') return { effects: [{ type: 'activity', id: 'after-timer', name: 'work', input: 7 }] };
          if (input.type === 'activity.completed') return { done: true };
          return {};
        });
        let calls = 0;
        const acts = { work: async (x: number) => (calls++, x + 1) };
        const e1 = await h.open(clock);
        e1.register(pm, acts);
        await e1.run();
        await e1.start('retry', 'wf-r', null);
        await e1.stop();

        clock.advance(10 * 60_000);
        const e2 = await h.open(clock);
        e2.register(pm, acts);
        expect((await e2.get('wf-r'))?.status).toBe('running');
        await e2.run();
        const st = await eventually(async () => {
          const g = await e2.get<LogState>('wf-r');
          return g?.status === 'completed' ? g : null;
        });
        expect(calls).toBe(1);
        expect(st.state.inputs.at(-1)).toEqual({ type: 'activity.completed', id: 'after-timer', result: 8 });
        await e2.stop();
      });
    });

    it('restart: an activity running at stop is fed back as interrupted and never started again; a recorded one starts', async () => {
      await withEngine(async (h, clock) => {
        const pm = scripted('long', (s, input) => {
          if (input.type === 'started') return { effects: [{ type: 'activity', id: 'hang', name: 'hang', input: null }] };
          if (input.type === 'activity.failed' && input.id === 'hang') {
            return { effects: [{ type: 'activity', id: 'hang-2', name: 'quick', input: null }] };
          }
          if (input.type === 'activity.completed' && input.id === 'hang-2') return { done: true };
          return {};
        });
        let hangCalls = 0;
        let quickCalls = 0;
        const acts: Record<string, Activity> = {
          hang: () => {
            hangCalls++;
            return new Promise(() => {});
          },
          quick: async () => {
            quickCalls++;
            return 'ok';
          },
        };
        const e1 = await h.open(clock);
        e1.register(pm, acts);
        await e1.run();
        await e1.start('long', 'wf-i', null);
        await eventually(() => hangCalls === 1, 5_000, 'hang started');
        await e1.stop(50);

        const e2 = await h.open(clock);
        e2.register(pm, acts);
        await e2.run();
        const st = await eventually(async () => {
          const g = await e2.get<LogState>('wf-i');
          return g?.status === 'completed' ? g : null;
        });
        expect(hangCalls).toBe(1);
        expect(quickCalls).toBe(1);
        expect(st.state.inputs[1]).toMatchObject({ type: 'activity.failed', id: 'hang', interrupted: true });
        await e2.stop();
      });
    });

    it('restart: activities recorded before run() (or left pending at stop) start after run()', async () => {
      await withEngine(async (h, clock) => {
        const pm = scripted('pend', (s, input) => {
          if (input.type === 'started') return { effects: [{ type: 'activity', id: 'p', name: 'p', input: null }] };
          return { done: true };
        });
        let calls = 0;
        const acts = { p: async () => ++calls };
        const e1 = await h.open(clock);
        e1.register(pm, acts);
        await e1.start('pend', 'wf-p', null); // not running: recorded only
        await e1.stop();
        expect(calls).toBe(0);
        const e2 = await h.open(clock);
        e2.register(pm, acts);
        await e2.run();
        await eventually(async () => (await e2.get('wf-p'))?.status === 'completed', 5_000, 'wf-p');
        expect(calls).toBe(1);
        await e2.stop();
      });
    });
  });
}
