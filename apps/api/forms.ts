/**
 * Form helpers every upload route shares: the multipart image form with the spec's image limit,
 * single-valued and numeric text fields, and the `processing_time` clock.
 */
import type { FastifyRequest } from 'fastify';
import { MAX_IMAGE_BYTES } from '../../domain/face/image-format.ts';
import { ApiError } from './errors.ts';
import { readMultipart, type MultipartBody } from './multipart.ts';

export { MAX_IMAGE_BYTES };

/**
 * Reads a multipart image form: each file at most {@link MAX_IMAGE_BYTES} (5 MB, spec "Limits"; 413
 * `image_too_large` while streaming, `details` {image, field, max_bytes}); a non-multipart body is 400
 * `invalid_request` with `notMultipartMessage`.
 */
export function readImageForm(request: FastifyRequest, notMultipartMessage: string, notMultipartDetails: Record<string, unknown> = {}): Promise<MultipartBody> {
  return readMultipart(request, {
    maxFileBytes: MAX_IMAGE_BYTES,
    tooLarge: (field) =>
      new ApiError(413, 'image_too_large', `${field === 'file' ? 'The image' : field} is larger than 5 MB`, { image: field, field, max_bytes: MAX_IMAGE_BYTES }),
    notMultipart: () => new ApiError(400, 'invalid_request', notMultipartMessage, notMultipartDetails),
  });
}

/** The single value of a text field (trimmed), or undefined; 400 `invalid_request` when it is repeated. */
export function singleField(fields: Map<string, string[]>, name: string): string | undefined {
  const v = fields.get(name);
  if (!v || v.length === 0) return undefined;
  if (v.length > 1) throw new ApiError(400, 'invalid_request', `Send \`${name}\` once`, { field: name });
  return v[0]!.trim();
}

/**
 * A numeric text field within [min, max] (an integer when `integer`), or undefined when absent or empty.
 * @throws ApiError 400 `invalid_request` with `details` {field, value}.
 */
export function numberField(fields: Map<string, string[]>, name: string, range: { min: number; max: number; integer?: boolean }): number | undefined {
  const raw = singleField(fields, name);
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < range.min || n > range.max || (range.integer && !Number.isInteger(n))) {
    throw new ApiError(400, 'invalid_request', `\`${name}\` must be ${range.integer ? 'an integer' : 'a number'} from ${range.min} to ${range.max}`, {
      field: name,
      value: raw.slice(0, 64),
    });
  }
  return n;
}

/** Seconds since `started` (a `performance.now()` value), 3 decimals (spec: `processing_time` in seconds). */
export function secondsSince(started: number): number {
  return Math.round(performance.now() - started) / 1000;
}
