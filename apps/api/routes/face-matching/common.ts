/**
 * Shared pieces of the face-matching routes: use-case dependencies from the context, the probe image ->
 * 512-d template step (face group's `face.descriptor` job, then `buildTemplate`), multipart field
 * parsing, error mapping and the OpenAPI error schema.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import { JobFailedError, JobTimeoutError } from '../../../../infra/ports/job-queue.ts';
import { InvalidVectorError } from '../../../../infra/ports/vector-index.ts';
import type { FaceMatchingDeps } from '../../../../domain/face-matching/deps.ts';
import { FACE_MATCHING_ERRORS, FaceMatchingError, isFaceMatchingErrorCode } from '../../../../domain/face-matching/errors.ts';
import { buildTemplate, InvalidDescriptorError } from '../../../../domain/face-matching/template.ts';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { readMultipart, type MultipartBody } from '../../multipart.ts';

/** Face image limit (spec, Limits: 5 MB per image). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** Deadline of one inference job (descriptor or liveness) before the request fails with 503. */
const JOB_TIMEOUT_MS = 30_000;

/** The use cases' dependencies from the application context. */
export function faceMatchingDeps(ctx: AppContext): FaceMatchingDeps {
  return {
    events: ctx.events,
    readModels: ctx.readModels,
    vectorIndex: ctx.vectorIndex,
    catchUp: () => ctx.projections.catchUp(),
    now: () => ctx.clock.now(),
    newId: () => `emb_${randomUUID().replace(/-/g, '')}`,
  };
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
export async function readFaceForm(request: FastifyRequest): Promise<MultipartBody> {
  return readMultipart(request, {
    maxFileBytes: MAX_IMAGE_BYTES,
    tooLarge: (field) => new ApiError(413, 'image_too_large', `${field} exceeds the 5 MB limit`, { field, max_bytes: MAX_IMAGE_BYTES }),
    notMultipart: () => new ApiError(400, 'invalid_request', 'Expected a multipart/form-data body with an image file', { field: 'image' }),
  });
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

/** A numeric text field in [min, max] (integer when asked). @throws ApiError 400 `invalid_request`. */
export function numberField(form: MultipartBody, name: string, opts: { min: number; max: number; integer?: boolean }): number | undefined {
  const raw = field(form, name);
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < opts.min || n > opts.max || (opts.integer && !Number.isInteger(n))) {
    throw new ApiError(400, 'invalid_request', `${name} must be ${opts.integer ? 'an integer' : 'a number'} from ${opts.min} to ${opts.max}`, { field: name, value: raw.slice(0, 64) });
  }
  return n;
}

/** Output of the face group's `face.descriptor` job that the template needs (see models/face/jobs.ts). */
interface DescriptorOutput {
  descriptor128: number[];
  descriptor1024: number[];
  quality?: { score?: number };
}

function jobError(error: unknown): never {
  if (error instanceof JobFailedError && isFaceMatchingErrorCode(error.code)) {
    throw new ApiError(FACE_MATCHING_ERRORS[error.code], error.code, error.message, error.details);
  }
  if (error instanceof JobTimeoutError) throw new ApiError(503, 'service_unavailable', 'Face processing timed out; retry later');
  throw error;
}

/**
 * Describes the single face of `image` and builds its 512-d template.
 * @throws ApiError with the face codes (`no_face_detected`, `multiple_faces_detected`, `image_too_small`,
 *   `unsupported_format`, `insufficient_quality`), or 503 when inference times out.
 */
export async function templateOf(ctx: AppContext, image: Uint8Array): Promise<{ template: Float32Array; quality: number | null }> {
  let out: DescriptorOutput;
  try {
    out = await ctx.jobs.run<{ image: Uint8Array; imageName: string }, DescriptorOutput>('face.descriptor', { image, imageName: 'image' }, { timeoutMs: JOB_TIMEOUT_MS });
  } catch (error) {
    jobError(error);
  }
  try {
    const q = out.quality?.score;
    return { template: buildTemplate(out), quality: typeof q === 'number' && Number.isFinite(q) ? Math.round(q * 1e4) / 1e4 : null };
  } catch (error) {
    if (error instanceof InvalidDescriptorError || error instanceof InvalidVectorError) throw new ApiError(500, 'internal_error', 'Face descriptor unusable');
    throw error;
  }
}

/** Liveness score 0-1 of the face in `image` from the face group's `face.liveness` job (`anti_spoofing_score`). */
export async function livenessOf(ctx: AppContext, image: Uint8Array): Promise<number> {
  try {
    const r = await ctx.jobs.run<{ image: Uint8Array }, { anti_spoofing_score: number }>('face.liveness', { image }, { timeoutMs: JOB_TIMEOUT_MS });
    return Math.round(r.anti_spoofing_score * 1e4) / 1e4;
  } catch (error) {
    jobError(error);
  }
}

/** Seconds since `start` (performance.now() ms), 3 decimals (spec: `processing_time` in seconds). */
export function seconds(start: number): number {
  return Math.round(performance.now() - start) / 1000;
}

const codeList = (codes: readonly string[]) => codes.map((c) => `\`${c}\``).join(', ');

/** The structured error body, documented per status with the codes a route can answer. */
export function errorSchema(codes: readonly string[]) {
  return z
    .object({
      success: z.literal(false),
      error: z.object({
        code: z.string().describe(`One of: ${codeList(codes)}`),
        message: z.string(),
        details: z.record(z.string(), z.unknown()).describe('Context of the error, e.g. `field` for invalid input.'),
      }),
    })
    .describe(`Structured error. Codes: ${codeList(codes)}.`);
}

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
