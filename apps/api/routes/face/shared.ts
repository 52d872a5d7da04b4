/**
 * What the five face routes share: multipart reading with the spec's image limits, running a face job
 * on the worker pool and mapping its coded failures to the structured error shape, the response
 * schemas' common parts.
 */
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { errorSchema } from '../../error-schemas.ts';
import { FACE_ERRORS } from '../../../../domain/face/errors.ts';
import { sniffImageFormat } from '../../../../domain/face/image-format.ts';
import type { JobDefinition } from '../../../../infra/ports/job-queue.ts';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';
import { readImageForm } from '../../forms.ts';
import { runMappedJob, type JobErrorMapping } from '../../job-errors.ts';

/** A rectangle in original-image pixels (after EXIF orientation). */
export const Region = z.object({
  x: z.number().int().describe('Left edge, pixels').meta({ example: 155 }),
  y: z.number().int().describe('Top edge, pixels').meta({ example: 202 }),
  w: z.number().int().describe('Width, pixels').meta({ example: 298 }),
  h: z.number().int().describe('Height, pixels').meta({ example: 275 }),
});

export const Point = z.object({
  x: z.number().int().describe('Pixels from the left edge').meta({ example: 325 }),
  y: z.number().int().describe('Pixels from the top edge').meta({ example: 317 }),
});

export const ProcessingTime = z.number().describe('Seconds spent on the request').meta({ example: 0.21 });

/** Structured error body (spec, Errors) of the face routes, with their codes. */
export const FaceErrorBody = errorSchema(['invalid_request', 'validation_error', 'missing_image', ...Object.keys(FACE_ERRORS)]).describe(
  'Structured error. For `no_face_detected`, `details` carries `image` (field name) and `suggestions`.',
);

export const FACE_ERROR_RESPONSES = { 400: FaceErrorBody, 413: FaceErrorBody } as const;

/** Text for the OpenAPI descriptions of every face route. */
export const IMAGE_RULES =
  'Images: JPG, PNG or WebP judged from the bytes (not the file name or declared type), at most 5 MB (413 image_too_large, ' +
  'rejected while streaming), at least 100x100 px (image_too_small), EXIF orientation applied; the face must be at least 80x80 px ' +
  'and pass the blur/exposure check (insufficient_quality). Errors use the structured shape.';

/** Reads the multipart body with the face limits; requires each of `imageFields` and sniffs its format. */
export async function readFaceForm<F extends string>(request: FastifyRequest, imageFields: readonly F[]): Promise<{ images: Record<F, Uint8Array>; fields: Map<string, string[]> }> {
  const body = await readImageForm(request, `Send a multipart/form-data body with the file field(s): ${imageFields.join(', ')}`);
  const images = {} as Record<F, Uint8Array>;
  for (const field of imageFields) {
    const file = body.files.get(field);
    if (!file || file.data.length === 0) {
      throw new ApiError(400, 'invalid_request', `The file field \`${field}\` is required`, { field });
    }
    const format = sniffImageFormat(file.data);
    if (format === null || format === 'gif') {
      throw new ApiError(400, 'unsupported_format', `${field} is not a JPEG, PNG or WebP image`, {
        image: field, detected: format ?? 'unknown', accepted: ['jpeg', 'png', 'webp'],
      });
    }
    images[field] = new Uint8Array(file.data.buffer, file.data.byteOffset, file.data.byteLength);
  }
  return { images, fields: body.fields };
}

/** How face jobs fail over HTTP: the face codes with their spec status; busy or timed out is 503 `service_unavailable`. */
export const FACE_JOB_ERRORS: JobErrorMapping = {
  statuses: FACE_ERRORS,
  unavailable: () => new ApiError(503, 'service_unavailable', 'Face processing is busy; retry shortly', {}, { retry_after: 2 }, { 'Retry-After': '2' }),
};

/** Runs a face job on the worker pool, its failures mapped by {@link FACE_JOB_ERRORS}. */
export function runFaceJob<I, O>(ctx: Platform, request: FastifyRequest, job: JobDefinition<I, O>, input: I): Promise<O> {
  return runMappedJob(ctx.jobs, job, input, FACE_JOB_ERRORS, request);
}
