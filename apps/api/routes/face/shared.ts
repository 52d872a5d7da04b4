/**
 * What the five face routes share: multipart reading with the spec's image limits, running a face job
 * on the worker pool and mapping its coded failures to the structured error shape, the response
 * schemas' common parts.
 */
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { FACE_ERRORS, isFaceErrorCode } from '../../../../domain/face/errors.ts';
import { MAX_IMAGE_BYTES, sniffImageFormat } from '../../../../domain/face/image-format.ts';
import { JobFailedError, JobTimeoutError } from '../../../../infra/ports/job-queue.ts';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { readMultipart } from '../../multipart.ts';

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

/** Structured error body (spec, Errors). */
export const FaceErrorBody = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string().describe('Error code, e.g. no_face_detected, multiple_faces_detected, image_too_small, image_too_large, unsupported_format, insufficient_quality'),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).describe('For no_face_detected: `image` (field name) and `suggestions`'),
  }),
});

export const FACE_ERROR_RESPONSES = { 400: FaceErrorBody, 413: FaceErrorBody } as const;

/** Text for the OpenAPI descriptions of every face route. */
export const IMAGE_RULES =
  'Images: JPG, PNG or WebP judged from the bytes (not the file name or declared type), at most 5 MB (413 image_too_large, ' +
  'rejected while streaming), at least 100x100 px (image_too_small), EXIF orientation applied; the face must be at least 80x80 px ' +
  'and pass the blur/exposure check (insufficient_quality). Errors use the structured shape.';

/** Wall time since `started` (a `performance.now()` value) in seconds, 3 decimals. */
export function secondsSince(started: number): number {
  return Math.round(performance.now() - started) / 1000;
}

/** Reads the multipart body with the face limits; requires each of `imageFields` and sniffs its format. */
export async function readFaceForm(request: FastifyRequest, imageFields: string[]) {
  const body = await readMultipart(request, {
    maxFileBytes: MAX_IMAGE_BYTES,
    tooLarge: (field) =>
      new ApiError(413, 'image_too_large', `${field === 'file' ? 'The image' : field} is larger than 5 MB`, { image: field, max_bytes: MAX_IMAGE_BYTES }),
    notMultipart: () => new ApiError(400, 'invalid_request', `Send a multipart/form-data body with the file field(s): ${imageFields.join(', ')}`),
  });
  const images: Record<string, Uint8Array> = {};
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

/** The single value of a text field; 400 when it is repeated. */
export function singleField(fields: Map<string, string[]>, name: string): string | undefined {
  const v = fields.get(name);
  if (!v || v.length === 0) return undefined;
  if (v.length > 1) throw new ApiError(400, 'invalid_request', `Send \`${name}\` once`, { field: name });
  return v[0]!.trim();
}

/** Parses a number field within [min, max]; 400 `invalid_request` otherwise. */
export function numberField(fields: Map<string, string[]>, name: string, min: number, max: number): number | undefined {
  const raw = singleField(fields, name);
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) {
    throw new ApiError(400, 'invalid_request', `\`${name}\` must be a number from ${min} to ${max}`, { field: name, value: raw.slice(0, 50) });
  }
  return n;
}

/**
 * Runs a face job on the worker pool. A coded face failure becomes its spec status and code; a full
 * queue or a timeout is 503 `service_unavailable`; anything else a 500 (details logged, not returned).
 */
export async function runFaceJob<O>(ctx: AppContext, request: FastifyRequest, type: string, input: Record<string, unknown>): Promise<O> {
  try {
    return await ctx.jobs.run<Record<string, unknown>, O>(type, input);
  } catch (error) {
    if (error instanceof JobFailedError && isFaceErrorCode(error.code)) {
      throw new ApiError(FACE_ERRORS[error.code], error.code, error.message, error.details ?? {});
    }
    if (error instanceof JobTimeoutError || (error instanceof JobFailedError && error.code === 'queue_full')) {
      throw new ApiError(503, 'service_unavailable', 'Face processing is busy; retry shortly', {}, { retry_after: 2 }, { 'Retry-After': '2' });
    }
    request.log.error({ err: { name: (error as Error).name, message: (error as Error).message, code: (error as { code?: string }).code }, job: type }, 'face job failed');
    throw new ApiError(500, 'internal_error', 'Internal server error');
  }
}
