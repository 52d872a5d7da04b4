import { JobFailedError, type JobQueue, type JobRunner } from '../ports/job-queue.ts';

/**
 * Adapts an in-process queue (the worker-thread pool of a worker process) to a distributed queue's consumer
 * (BullMQ or Kafka): a handler's coded domain error becomes a final answer (`{ok: false, code}`, never
 * retried); a crash, an uncoded error, a full pool or a timeout rejects, so the queue retries the job and
 * finally dead-letters it.
 */
export function runOnPool(pool: JobQueue): JobRunner {
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
