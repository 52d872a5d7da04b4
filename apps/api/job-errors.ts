/**
 * The one mapping of inference-job failures to HTTP errors. Each capability gives the codes its
 * handlers throw (with their status) and how it words "busy"; the rest is common: a coded domain error
 * keeps its code, status and details; a timeout or a full queue is the capability's 503 with
 * `Retry-After`; anything else (a crashed worker, a bug) is logged and answered without internals.
 */
import type { FastifyRequest } from 'fastify';
import { JobFailedError, JobTimeoutError, runJob, type JobDefinition, type JobOptions, type JobQueue } from '../../infra/ports/job-queue.ts';
import { ApiError } from './errors.ts';

export interface JobErrorMapping {
  /** Domain error codes the capability's handlers throw, with their HTTP status (e.g. `FACE_ERRORS`). */
  statuses: Readonly<Record<string, number>>;
  /** The 503 answered when the job timed out (`timeout`) or the queue was full (`busy`). */
  unavailable: (reason: 'timeout' | 'busy') => ApiError;
  /** The error for any other failure; default 500 `internal_error` (the cause is logged, not returned). */
  failed?: () => ApiError;
}

/** Maps a job failure (see the module comment); an `ApiError` passes through unchanged. */
export function jobErrorToApiError(error: unknown, mapping: JobErrorMapping, request?: FastifyRequest, jobType?: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof JobFailedError && error.code !== undefined && Object.hasOwn(mapping.statuses, error.code)) {
    return new ApiError(mapping.statuses[error.code]!, error.code, error.message, error.details ?? {});
  }
  if (error instanceof JobTimeoutError) return mapping.unavailable('timeout');
  if (error instanceof JobFailedError && (error.code === 'queue_full' || error.code === 'queue_unavailable')) return mapping.unavailable('busy');
  const e = error as { name?: string; message?: string; code?: string };
  request?.log.error({ err: { name: e?.name, message: e?.message, code: e?.code }, job: jobType }, 'inference job failed');
  return mapping.failed?.() ?? new ApiError(500, 'internal_error', 'Internal server error');
}

/** Runs a typed job on `queue`, throwing its failure as mapped by {@link jobErrorToApiError}. */
export async function runMappedJob<I, O>(
  queue: JobQueue,
  job: JobDefinition<I, O>,
  input: I,
  mapping: JobErrorMapping,
  request?: FastifyRequest,
  options?: JobOptions,
): Promise<O> {
  try {
    return await runJob(queue, job, input, options);
  } catch (error) {
    throw jobErrorToApiError(error, mapping, request, job.type);
  }
}
