/**
 * Issue 18, item 5 (fourth pass): the process hosting the worker pool sets V8's old-generation growing
 * factor before the pool starts its threads, so the inference workers' ~80 MB live heaps are not marked
 * again almost at once after every full collection (docs/face.md, "Fourth pass").
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

const calls: string[] = [];
vi.mock('node:v8', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:v8')>();
  return { ...real, setFlagsFromString: (flags: string) => { calls.push(flags); } };
});
const piscinaStarted: number[] = [];
vi.mock('piscina', () => ({
  Piscina: class { constructor() { piscinaStarted.push(calls.length); } async destroy() {} },
}));

const { WorkerPoolJobQueue, WORKER_HEAP_GROWING_PERCENT } = await import('../../infra/job-queue/worker-pool/worker-pool-queue.ts');

describe('WorkerPoolJobQueue heap growth', () => {
  afterEach(() => { calls.length = 0; piscinaStarted.length = 0; });

  it('sets --heap-growing-percent (default 100, i.e. limit = 2 x live heap) before the worker threads start', async () => {
    const q = new WorkerPoolJobQueue({ threads: 1, workerFile: '/nonexistent.mjs' });
    expect(WORKER_HEAP_GROWING_PERCENT).toBe(100);
    expect(calls).toEqual(['--heap-growing-percent=100']);
    expect(piscinaStarted).toEqual([1]); // the pool was created after the flag was set
    await q.close();
  });

  it('takes another value from the options, rounded and never negative', async () => {
    const a = new WorkerPoolJobQueue({ threads: 1, workerFile: '/nonexistent.mjs', heapGrowingPercent: 49.6 });
    const b = new WorkerPoolJobQueue({ threads: 1, workerFile: '/nonexistent.mjs', heapGrowingPercent: -5 });
    expect(calls).toEqual(['--heap-growing-percent=50', '--heap-growing-percent=0']);
    await Promise.all([a.close(), b.close()]);
  });
});
