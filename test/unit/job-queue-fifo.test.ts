/**
 * Issue 18, item 5: the embedded job queue serves jobs in arrival order. The gate is tested with
 * tasks it cannot see into (deferred promises finished in a scrambled order), the real worker pool with
 * a burst of jobs on one thread (before the gate, piscina completed such a burst as
 * 0 1 3 5 7 9 11 4 8 2 10 6).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { FifoGate, QueueFullError, WorkerPoolJobQueue } from '../../infra/job-queue/worker-pool/worker-pool-queue.ts';
import { WORKER_ENTRY } from '../../apps/platform/platform.ts';
import { JobFailedError, JobTimeoutError } from '../../infra/ports/job-queue.ts';

function deferred(): { promise: Promise<number>; resolve: (v: number) => void } {
  let resolve!: (v: number) => void;
  const promise = new Promise<number>((r) => { resolve = r; });
  return { promise, resolve };
}
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('FifoGate', () => {
  it('starts tasks in arrival order, never more than its capacity at once', async () => {
    const gate = new FifoGate(2, 100);
    const started: number[] = [];
    const jobs = Array.from({ length: 8 }, () => deferred());
    let concurrent = 0, peak = 0;
    const results = jobs.map((d, i) => gate.run(async () => {
      started.push(i); concurrent++; peak = Math.max(peak, concurrent);
      try { return await d.promise; } finally { concurrent--; }
    }));
    await tick();
    expect(started).toEqual([0, 1]);
    expect(gate.queued).toBe(6);
    // finish in a scrambled order: whatever finishes, the next start is the oldest waiting task
    for (const i of [1, 0, 3, 2, 5, 7, 4, 6]) { jobs[i]!.resolve(i * 10); await tick(); }
    expect(await Promise.all(results)).toEqual([0, 10, 20, 30, 40, 50, 60, 70]);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(peak).toBe(2);
    expect(gate.active).toBe(0);
  });

  it('refuses a task past maxQueue and drops an aborted waiting task without starting it', async () => {
    const gate = new FifoGate(1, 2);
    const hold = deferred();
    const first = gate.run(() => hold.promise);
    const ac = new AbortController();
    let abortedStarted = false;
    const aborted = gate.run(async () => { abortedStarted = true; return 1; }, ac.signal);
    const third = gate.run(async () => 3);
    await expect(gate.run(async () => 4)).rejects.toBeInstanceOf(QueueFullError);
    ac.abort(new Error('gone'));
    await expect(aborted).rejects.toThrow('gone');
    expect(gate.queued).toBe(1);
    hold.resolve(7);
    expect(await first).toBe(7);
    expect(await third).toBe(3);
    expect(abortedStarted).toBe(false);
  });

  it('frees the slot when a task throws', async () => {
    const gate = new FifoGate(1, 10);
    await expect(gate.run(async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    await expect(gate.run(() => { throw new Error('sync boom'); })).rejects.toThrow('sync boom');
    expect(await gate.run(async () => 5)).toBe(5);
  });
});

describe('WorkerPoolJobQueue (one worker thread)', () => {
  const queue = new WorkerPoolJobQueue({ threads: 1, maxQueue: 50, workerFile: WORKER_ENTRY });
  afterAll(() => queue.close());

  it('completes a burst of jobs in the order they were submitted', async () => {
    await queue.run('system.health', {}); // worker up
    const done: number[] = [];
    const all = Array.from({ length: 12 }, (_, i) =>
      queue.run<{ ms: number }, { slept: number }>('system.sleep', { ms: 5 }).then(() => { done.push(i); }));
    expect(queue.stats().queued).toBe(11);
    await Promise.all(all);
    expect(done).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(queue.stats()).toMatchObject({ queued: 0, running: 0 });
  }, 60_000);

  it('times out a job still waiting in the queue, and answers queue_full past maxQueue', async () => {
    const slow = queue.run('system.sleep', { ms: 300 });
    const waiting = queue.run('system.sleep', { ms: 1 }, { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(await waiting).toBeInstanceOf(JobTimeoutError);
    const many = Array.from({ length: 51 }, () => queue.run('system.sleep', { ms: 1 }).catch((e: unknown) => e));
    const results = await Promise.all(many);
    const full = results.filter((r) => r instanceof JobFailedError && r.code === 'queue_full');
    expect(full.length).toBe(1);
    await slow;
  }, 60_000);

  it('answers a running job past its deadline at once, without terminating its thread (a thread killed inside native inference aborts the process)', async () => {
    const before = await queue.run<object, { threadId: number }>('system.health', {});
    const t0 = Date.now();
    const error = await queue.run('system.sleep', { ms: 1500 }, { timeoutMs: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobTimeoutError);
    expect(Date.now() - t0).toBeLessThan(1200);
    // the late job keeps its thread: the next job waits for it and runs on the same, never-replaced thread
    const after = await queue.run<object, { threadId: number }>('system.health', {});
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1400);
    expect(after.threadId).toBe(before.threadId);
    expect(queue.stats()).toMatchObject({ queued: 0, running: 0 });
  }, 60_000);
});
