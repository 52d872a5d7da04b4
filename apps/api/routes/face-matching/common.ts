/**
 * Shared pieces of the face-matching routes: use-case dependencies from the platform, the probe image ->
 * 512-d template step (face group's `face.descriptor` job, then `buildTemplate`), multipart field
 * parsing, error mapping and the OpenAPI error schema.
 */
import { z } from 'zod';
import { errorSchema } from '../../error-schemas.ts';
import type { FastifyRequest } from 'fastify';
import { InvalidVectorError } from '../../../../infra/ports/vector-index.ts';
import type { FaceMatchingDeps } from '../../../../domain/face-matching/deps.ts';
import { FACE_MATCHING_ERRORS, FaceMatchingError } from '../../../../domain/face-matching/errors.ts';
import { buildTemplate, InvalidDescriptorError } from '../../../../domain/face-matching/template.ts';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';
import type { MultipartBody } from '../../multipart.ts';
import { readImageForm } from '../../forms.ts';
import { runMappedJob, type JobErrorMapping } from '../../job-errors.ts';
import { faceJobs } from '../../../capabilities/face.ts';
import { faceMatchingCapability } from '../../../capabilities/face-matching.ts';

/** Deadline of one inference job (descriptor or liveness) before the request fails with 503. */
const JOB_TIMEOUT_MS = 30_000;

/** The use cases' dependencies, built once by the platform from the face-matching manifest. */
export function faceMatchingDeps(ctx: Platform): FaceMatchingDeps {
  return ctx.use(faceMatchingCapability);
}

/** A FaceMatchingError as the HTTP error (structured shape). */
export function toApiError(error: FaceMatchingError): ApiError {
  return new ApiError(error.status, error.code, error.message, error.details);
}

/** Runs a use case, turning its FaceMatchingError into the route's ApiError. */
export async function run<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof FaceMatchingError) throw toApiError(error);
    throw error;
  }
}

/** Reads the multipart body: `image` up to 5 MB (413 `image_too_large` while streaming) and the text fields. */
export function readFaceForm(request: FastifyRequest): Promise<MultipartBody> {
  return readImageForm(request, 'Expected a multipart/form-data body with an image file', { field: 'image' });
}

/** The `image` file of the form. @throws ApiError 400 `missing_image`. */
export function imageOf(form: MultipartBody): Uint8Array {
  const file = form.files.get('image');
  if (!file || file.data.length === 0) throw new ApiError(400, 'missing_image', 'The multipart field "image" (a JPG, PNG or WebP file) is required', { field: 'image' });
  return new Uint8Array(file.data.buffer, file.data.byteOffset, file.data.length);
}

/** A text field's single value, or undefined. */
export function field(form: MultipartBody, name: string): string | undefined {
  const v = form.fields.get(name);
  return v && v.length ? v[v.length - 1] : undefined;
}

/**
 * How the face jobs fail here: the face-matching codes with their status; busy or timed out is 503
 * `service_unavailable`.
 */
const FACE_MATCHING_JOB_ERRORS: JobErrorMapping = {
  statuses: FACE_MATCHING_ERRORS,
  unavailable: (reason) => new ApiError(503, 'service_unavailable', reason === 'timeout' ? 'Face processing timed out; retry later' : 'Face processing is busy; retry shortly', {}, {}, { 'Retry-After': '2' }),
};

/**
 * Describes the single face of `image` and builds its 512-d template; with `options.liveness` also its
 * liveness score 0-1 (the face group's `anti_spoofing_score`, rounded to 4 decimals), computed in the
 * same job from the same decoded image and detection.
 * @throws ApiError with the face codes (`no_face_detected`, `multiple_faces_detected`, `image_too_small`,
 *   `unsupported_format`, `insufficient_quality`), or 503 when inference times out.
 */
export async function templateOf(ctx: Platform, image: Uint8Array, options: { liveness?: boolean } = {}): Promise<{ template: Float32Array; quality: number | null; liveness?: number }> {
  const input = { image, imageName: 'image', ...(options.liveness ? { liveness: {} } : {}) };
  const out = await runMappedJob(ctx.jobs, faceJobs['face.descriptor'], input, FACE_MATCHING_JOB_ERRORS, undefined, { timeoutMs: JOB_TIMEOUT_MS });
  try {
    const q = out.quality?.score;
    const liveness = out.liveness ? { liveness: Math.round(out.liveness.anti_spoofing_score * 1e4) / 1e4 } : {};
    return { template: buildTemplate(out), quality: typeof q === 'number' && Number.isFinite(q) ? Math.round(q * 1e4) / 1e4 : null, ...liveness };
  } catch (error) {
    if (error instanceof InvalidDescriptorError || error instanceof InvalidVectorError) throw new ApiError(500, 'internal_error', 'Face descriptor unusable');
    throw error;
  }
}

export { errorSchema };

/** Error responses shared by the image routes (enroll, search, verify). */
export const imageErrorResponses = {
  400: errorSchema(['invalid_request', 'validation_error', 'missing_image', 'no_face_detected', 'multiple_faces_detected', 'image_too_small', 'unsupported_format', 'insufficient_quality']).describe(
    '`invalid_request`/`validation_error`: a field is missing or malformed (`details.field`); `missing_image`: no `image` part; ' +
      '`no_face_detected`, `multiple_faces_detected` (exactly one face is required), `image_too_small` (< 100x100 px), ' +
      '`unsupported_format` (not JPG/PNG/WebP by its bytes), `insufficient_quality` (face < 80x80 px, blurred or badly exposed).',
  ),
  413: errorSchema(['image_too_large', 'payload_too_large']).describe('`image_too_large`: the image exceeds 5 MB (rejected while streaming).'),
  503: errorSchema(['service_unavailable']).describe('Face inference did not finish in time; retry.'),
};
