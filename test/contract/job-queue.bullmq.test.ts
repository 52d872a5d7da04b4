import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPoolJobQueue } from '../../infra/job-queue/worker-pool/worker-pool-queue.ts';
import { BullMqConsumer, BullMqJobQueue } from '../../infra/job-queue/bullmq/bullmq-queue.ts';
import { runOnPool } from '../../infra/job-queue/run-on-pool.ts';
import { JobFailedError, type JobQueue } from '../../infra/ports/job-queue.ts';
import { WORKER_ENTRY } from '../../apps/platform/platform.ts';
import { jobQueueContract } from './job-queue.contract.ts';
import { redisReachable, testRedisUrl } from '../helpers/redis.ts';

const url = testRedisUrl();
const reachable = await redisReachable('BullMQ job-queue contract');
const prefix = () => `sello-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

/** A producer plus a consumer on its own prefix; the consumer runs jobs on a worker-thread pool. */
function stack(options: { maxQueue?: number; attempts?: number; threads?: number; consumer?: boolean } = {}) {
  const p = prefix();
  const pool = new WorkerPoolJobQueue({ threads: options.threads ?? 2, workerFile: WORKER_ENTRY });
  const consumer = options.consumer === false ? null : new BullMqConsumer({ url, prefix: p, concurrency: options.threads ?? 2, run: runOnPool(pool), lockMs: 5000 });
  // The first job boots a worker thread (tsx + platform): slow on a loaded machine.
  const producer = new BullMqJobQueue({ url, prefix: p, maxQueue: options.maxQueue, attempts: options.attempts, timeoutMs: 120_000 });
  const queue: JobQueue = {
    run: (t, i, o) => producer.run(t, i, o),
    stats: () => producer.stats(),
    async close() {
      await producer.close();
      await consumer?.close();
      await pool.close();
    },
  };
  return { queue, producer, consumer, pool, prefix: p };
}

if (!reachable) {
  describe.skip('job queue contract: bullmq (no Redis reachable)', () => it('skipped', () => undefined));
} else {
  jobQueueContract('bullmq (Redis) + worker-thread consumer', () => stack().queue);

  describe('bullmq job queue: back-pressure, retries, dead-letter', () => {
    const opened: Array<{ close(): Promise<void> }> = [];
    afterAll(async () => {
      for (const o of opened) await o.close();
    });

    it('answers queue_full at once when too many jobs wait (no consumer running)', async () => {
      const s = stack({ maxQueue: 3, consumer: false });
      opened.push(s.queue);
      const waiting = Array.from({ length: 3 }, () => s.queue.run('system.health', {}, { timeoutMs: 4000 }).catch((e: unknown) => e));
      // Until the three are in Redis, then past the producer's 250 ms cache of the waiting count.
      const { Queue } = await import('bullmq');
      const probe = new Queue('inference', { connection: { url }, prefix: s.prefix });
      await expect.poll(() => probe.getWaitingCount(), { timeout: 3000 }).toBe(3);
      await probe.close();
      await new Promise((r) => setTimeout(r, 300));
      const t0 = Date.now();
      const error = await s.queue.run('system.health', {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JobFailedError);
      expect((error as JobFailedError).code).toBe('queue_full');
      expect(Date.now() - t0).toBeLessThan(1000);
      // The three waiting ones time out (nobody consumes), as JobTimeoutError.
      for (const r of await Promise.all(waiting)) expect((r as Error).name).toBe('JobTimeoutError');
    });

    it('a crashing job is retried, then dead-lettered; a coded error is final at the first attempt', async () => {
      let calls = 0;
      const p = prefix();
      const consumer = new BullMqConsumer({
        url,
        prefix: p,
        concurrency: 1,
        run: async (type) => {
          calls++;
          if (type === 'crash') throw new Error('worker crashed');
          return { ok: false, message: 'nope', code: 'no_face_detected' };
        },
      });
      const producer = new BullMqJobQueue({ url, prefix: p, attempts: 3, timeoutMs: 10_000 });
      opened.push(producer, consumer);
      const error = await producer.run('crash', {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JobFailedError);
      expect((error as JobFailedError).code).toBe('worker_error');
      expect(calls).toBe(3);
      const { Queue } = await import('bullmq');
      const q = new Queue('inference', { connection: { url }, prefix: p });
      const dead = await q.getFailed();
      expect(dead.map((j) => [j.name, j.attemptsMade])).toEqual([['crash', 3]]);
      await q.close();
      calls = 0;
      const coded = await producer.run('coded', {}).catch((e: unknown) => e);
      expect((coded as JobFailedError).code).toBe('no_face_detected');
      expect(calls).toBe(1);
    });

    it('answers queue_unavailable at once when Redis cannot be reached', async () => {
      const producer = new BullMqJobQueue({ url: 'redis://127.0.0.1:1', prefix: prefix() });
      opened.push(producer);
      const t0 = Date.now();
      const error = await producer.run('system.health', {}).catch((e: unknown) => e);
      expect((error as JobFailedError).code).toBe('queue_unavailable');
      expect(Date.now() - t0).toBeLessThan(4000);
    });
  });
}
