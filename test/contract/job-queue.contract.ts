import { afterAll, describe, expect, it } from 'vitest';
import { JobFailedError, JobTimeoutError, type JobQueue } from '../../infra/ports/job-queue.ts';

/**
 * Job-queue contract (any adapter): results come back, coded errors keep their code and details,
 * jobs run off the caller's thread, unknown job types fail cleanly, timeouts reject.
 * Uses the `system.*` jobs declared by the platform manifest (`apps/capabilities/platform.ts`).
 */
export function jobQueueContract(name: string, factory: () => Promise<JobQueue> | JobQueue): void {
  describe(`job queue contract: ${name}`, () => {
    let queue: JobQueue;
    const open = async () => (queue ??= await factory());
    afterAll(async () => {
      await queue?.close();
    });

    it('runs a job in a worker and returns its result', async () => {
      const q = await open();
      const r = await q.run<unknown, { threadId: number; rss: number }>('system.health', {});
      expect(r.threadId).toBeGreaterThan(0); // 0 is the main thread
      expect(r.rss).toBeGreaterThan(0);
    });

    it('passes binary input and output intact', async () => {
      const q = await open();
      const bytes = new Uint8Array([0, 1, 2, 250, 255]);
      const r = await q.run<{ bytes: Uint8Array }, { length: number; sum: number }>('system.checksum', { bytes });
      expect(r).toEqual({ length: 5, sum: 508 });
    });

    it('keeps the code and details of a failed job', async () => {
      const q = await open();
      const error = await q.run('system.fail', { code: 'no_face_detected', details: { image: 'image1' } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JobFailedError);
      expect((error as JobFailedError).code).toBe('no_face_detected');
      expect((error as JobFailedError).details).toEqual({ image: 'image1' });
    });

    it('rejects unknown job types', async () => {
      const q = await open();
      const error = await q.run('nope.nothing', {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JobFailedError);
      expect((error as JobFailedError).code).toBe('unknown_job');
    });

    it('times out a slow job', async () => {
      const q = await open();
      const error = await q.run('system.sleep', { ms: 2000 }, { timeoutMs: 100 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JobTimeoutError);
    });

    it('runs many jobs concurrently and answers each', async () => {
      const q = await open();
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => q.run<{ bytes: Uint8Array }, { sum: number }>('system.checksum', { bytes: new Uint8Array([i]) })),
      );
      expect(results.map((r) => r.sum)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    });
  });
}
