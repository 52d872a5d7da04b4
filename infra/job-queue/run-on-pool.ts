import { JobFailedError, type JobQueue } from '../../ports/job-queue.ts';
import type { JobEnvelope } from './bullmq-queue.ts';

/**
 * Adapts an in-process queue (the worker-thread pool) to the BullMQ consumer: a handler's coded domain
 * error becomes a final answer (`{ok: false, code}`, not retried); a crash, an uncoded error or a
 * timeout rejects, so BullMQ retries it and finally dead-letters it.
 */
export function runOnPool(pool: JobQueue): (jobType: string, input: unknown, timeoutMs: number) => Promise<JobEnvelope> {
  return async (jobType, input, timeoutMs) => {
    try {
      return { ok: true, result: await pool.run(jobType, input, { timeoutMs }) };
    } catch (error) {
      if (error instanceof JobFailedError && error.code !== undefined && error.code !== 'worker_error' && error.code !== 'queue_full') {
        return { ok: false, message: error.message, code: error.code, details: error.details };
      }
      throw error;
    }
  };
}
