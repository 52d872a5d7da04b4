/**
 * A full job queue (`queue_full`), an unreachable one (`queue_unavailable`: a broker down) and a job that
 * timed out are temporary: the inference routes answer 503 with `Retry-After`, whatever the queue adapter
 * (issue 27: the Kafka adapter's back-pressure relies on it).
 */
import { describe, expect, it } from 'vitest';
import { jobErrorToApiError } from '../../apps/api/job-errors.ts';
import { FACE_JOB_ERRORS } from '../../apps/api/routes/face/shared.ts';
import { OCR_JOB_ERRORS } from '../../apps/api/routes/ocr/common.ts';
import { JobFailedError, JobTimeoutError } from '../../infra/ports/job-queue.ts';

const temporary = [new JobFailedError('job queue is full', 'queue_full'), new JobFailedError('job queue unavailable: no broker', 'queue_unavailable'), new JobTimeoutError('timed out')];

describe('inference routes: a busy or unreachable queue is a 503 with Retry-After', () => {
  for (const [name, mapping] of [['face', FACE_JOB_ERRORS], ['ocr', OCR_JOB_ERRORS]] as const) {
    it(`${name}`, () => {
      for (const error of temporary) {
        const answer = jobErrorToApiError(error, mapping);
        expect(answer.status).toBe(503);
        expect(answer.headers?.['Retry-After']).toMatch(/^\d+$/);
        expect(answer.message).not.toMatch(/broker|queue/); // no internals
      }
    });
  }
});
