/**
 * Shared request handling of the `/v1/ocr/*` routes: reading multipart or JSON/base64 uploads, mapping
 * job failures to the flat OCR error shape, and the response schemas (spec "OCR identity result",
 * "OCR address-proof result").
 */
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { OCR_ERROR_STATUS, type OcrErrorCode } from '../../../../domain/ocr/errors.ts';
import { validateSubjectId } from '../../../../domain/face-matching/enroll-face.ts';
import { recordUsageSubject } from '../../edge.ts';
import { ApiError } from '../../errors.ts';
import { tagIdempotentAnswer } from '../../idempotency.ts';
import { jobErrorToApiError, type JobErrorMapping } from '../../job-errors.ts';
import { readMultipart } from '../../multipart.ts';

/** 10 MB per file (spec "Limits": OCR file size). */
export const OCR_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** JSON bodies carry up to two base64 files (4/3 expansion) plus fields. */
export const OCR_JSON_BODY_LIMIT = 28 * 1024 * 1024;

/** An OCR error in the flat shape with the status of `OCR_ERROR_STATUS`. */
export function ocrError(code: OcrErrorCode, message: string, details?: Record<string, unknown>): ApiError {
  return new ApiError(OCR_ERROR_STATUS[code], code, message, details);
}

/** Uploads and fields of an OCR request, whatever its content type. */
export interface OcrInput {
  files: Map<string, Buffer>;
  fields: Map<string, string>;
}

const B64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Decodes a base64 (or base64url, or `data:*;base64,` URL) string; throws `invalid_request` when it is not base64. */
export function decodeBase64(field: string, value: string): Buffer {
  const s = value.replace(/^data:[^,]{0,100};base64,/, '').replace(/\s+/g, '');
  if (!B64.test(s)) throw ocrError('invalid_request', `Field '${field}' is neither a file nor a base64 string.`);
  if (Math.floor((s.length * 3) / 4) > OCR_MAX_FILE_BYTES + 3) throw ocrError('file_too_large', `Field '${field}' is larger than 10 MB.`);
  return Buffer.from(s, 'base64');
}

/**
 * Reads a multipart (files or base64 text fields) or `application/json` (base64 strings) body.
 * `fileFields` are decoded to bytes; other scalar fields are kept as strings.
 * @throws ApiError 413 `file_too_large`, 400 `invalid_request`
 */
export async function readOcrInput(request: FastifyRequest, fileFields: readonly string[]): Promise<OcrInput> {
  const files = new Map<string, Buffer>();
  const fields = new Map<string, string>();
  if (request.isMultipart()) {
    const body = await readMultipart(request, {
      maxFileBytes: OCR_MAX_FILE_BYTES,
      tooLarge: (field) => ocrError('file_too_large', `File '${field}' is larger than 10 MB.`),
    });
    for (const [name, f] of body.files) if (fileFields.includes(name) && f.data.length) files.set(name, f.data);
    for (const [name, values] of body.fields) {
      const v = values[0] ?? '';
      if (fileFields.includes(name)) {
        if (!files.has(name) && v.trim()) files.set(name, decodeBase64(name, v));
      } else fields.set(name, v);
    }
    return { files, fields };
  }
  const body = request.body;
  if (body === undefined || body === null || body === '') return { files, fields };
  if (typeof body !== 'object' || Array.isArray(body)) throw ocrError('invalid_request', 'Send multipart/form-data or a JSON object.');
  for (const [name, v] of Object.entries(body as Record<string, unknown>)) {
    if (fileFields.includes(name)) {
      if (v === null || v === undefined || v === '') continue;
      if (typeof v !== 'string') throw ocrError('invalid_request', `Field '${name}' must be a base64 string.`);
      files.set(name, decodeBase64(name, v));
    } else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') fields.set(name, String(v));
    else if (v !== null && v !== undefined) throw ocrError('invalid_request', `Field '${name}' must be a string.`);
  }
  return { files, fields };
}

/** Parses `true`/`false`/`1`/`0` (absent -> false). */
export function parseBool(name: string, v: string | undefined): boolean {
  if (v === undefined || v === '') return false;
  const s = v.trim().toLowerCase();
  if (s === 'true' || s === '1' || s === 'yes') return true;
  if (s === 'false' || s === '0' || s === 'no') return false;
  throw ocrError('invalid_request', `Field '${name}' must be a boolean (true or false).`);
}

/**
 * How OCR jobs fail over HTTP: coded OCR errors keep their code and status; a timeout, a full queue or
 * a crashed worker is 503 `ocr_service_unavailable` (no internals in the message).
 */
export const OCR_JOB_ERRORS: JobErrorMapping = {
  statuses: OCR_ERROR_STATUS,
  // A full or unreachable job queue, or a timeout, is temporary: the 503 says when to retry, like the other capabilities'.
  unavailable: (reason) =>
    new ApiError(
      OCR_ERROR_STATUS.ocr_service_unavailable,
      'ocr_service_unavailable',
      reason === 'timeout' ? 'The OCR back end did not answer in time; retry later.' : 'The OCR back end is unavailable; retry later.',
      undefined,
      undefined,
      { 'Retry-After': '2' },
    ),
  failed: () => ocrError('ocr_service_unavailable', 'The OCR back end is unavailable; retry later.'),
};

/** Maps a job failure by {@link OCR_JOB_ERRORS}; an `ApiError` passes through. */
export function mapJobError(error: unknown): ApiError {
  return jobErrorToApiError(error, OCR_JOB_ERRORS);
}

/** Current UTC day `YYYY-MM-DD` from the app clock. */
export function todayOf(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

/**
 * The optional `subject_id` field of an OCR call (issue 28): the same rules as face and fingerprint subject
 * ids (1-256 characters, no control characters; `validateSubjectId`). Given, the answer the call's
 * `Idempotency-Key` stores is tagged with it ({@link tagIdempotentAnswer}) and the call's usage row names it
 * (`recordUsageSubject`), so an erasure by that subject id removes the answer and clears the row's IP
 * address and user agent. Call after the input is read and before the work starts.
 * @returns the subject id, or undefined when the field is absent
 * @throws ApiError 400 `invalid_request` (flat) when it is empty, too long or holds control characters
 */
export function ocrSubjectId(request: FastifyRequest, input: OcrInput): string | undefined {
  const v = input.fields.get('subject_id');
  if (v === undefined) return undefined;
  try {
    validateSubjectId(v);
  } catch {
    throw ocrError('invalid_request', 'subject_id must be 1-256 characters without control characters.', { field: 'subject_id' });
  }
  tagIdempotentAnswer(request, v);
  recordUsageSubject(request, v);
  return v;
}

const Check = z.enum(['ok', 'failed', 'not_present']);

/** `validation` of identity results. */
export const IdentityValidationSchema = z.object({
  mrz: Check.describe('MRZ checksum result: ok (every check digit passes), failed, not_present (no MRZ read).'),
  mrzFields: z
    .object({
      documentNumberCheck: z.boolean(),
      dateOfBirthCheck: z.boolean(),
      dateOfExpiryCheck: z.boolean(),
      compositeCheck: z.boolean(),
    })
    .optional()
    .describe('ICAO 9303 check digits; present only when mrz is ok.'),
  curp: Check.describe('CURP format and check digit (RENAPO rules).'),
  expired: z.boolean().nullable().describe('From dateOfExpiry; a year-only expiry means the end of that year. null when no expiry was read.'),
});

/** `validity_check` (spec: `authenticity`). */
export const ValidityCheckSchema = z.object({
  is_authentic: z.boolean(),
  confidence: z.number().describe('Weighted share of applicable signals that passed, 0-1.'),
  tampering_detected: z.boolean().describe('A data contradiction (MRZ, MRZ vs front, CURP) or local recompression was found.'),
  quality_score: z.number().describe('Image quality 0-1 (sharpness, resolution).'),
  method: z.string().describe('Validity processor and version.'),
  details: z
    .object({
      validity_indicators: z.number().int().describe('Number of signals that passed.'),
      validity_processor_confidence: z.number(),
      signals: z.record(z.string(), z.boolean().nullable()).describe('Each signal: true passed, false failed, null not applicable.'),
    })
    .optional(),
});

export const AuthenticityResultSchema = z.object({
  success: z.boolean(),
  validity_check: ValidityCheckSchema.optional(),
  error: z.string().optional(),
  message: z.string().optional(),
  processing_time: z.number().describe('Seconds.'),
});

/** Flat OCR error body. */
export const OcrErrorSchema = z.object({ success: z.literal(false), error: z.string().meta({ example: 'image_required' }), message: z.string().optional() });
