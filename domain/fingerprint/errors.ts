/**
 * Closed list of fingerprint-matching error codes, rendered in the structured shape
 * `{success:false, error:{code, message, details}}`. The spec shows no fingerprint error bodies
 * ("not shown"), so these are ours; the OpenAPI document lists them per route.
 */
import { codedError } from '../shared/coded-error.ts';

export const FINGERPRINT_ERRORS = {
  /** A field is missing or malformed (subject_id, finger_position, dpi, threshold, limit, metadata); `details.field` names it. */
  invalid_request: 400,
  /** Neither an `image` nor a `template` file part in the multipart body. */
  missing_image: 400,
  /** Not a PNG, JPEG, TIFF, BMP or WSQ file, or truncated/corrupt. */
  unsupported_format: 400,
  /** `template` is not a valid ISO/IEC 19794-2:2005 record (truncated, wrong header, bad lengths). */
  invalid_template: 400,
  /** Under 100 × 100 px at 500 ppi. */
  image_too_small: 400,
  /** File over 5 MB (413 while streaming), or more than 4,000,000 pixels, or over 2,000 px a side at 500 ppi. */
  image_too_large: 413,
  /** The image is (almost) uniform: no print on it. */
  blank_image: 400,
  /** The image has no ridge pattern (e.g. a face photo or a document). */
  not_a_fingerprint: 400,
  /** A print, but too few reliable minutiae to enroll or match. */
  insufficient_quality: 400,
  /** `verify/:subjectId` names a subject with no active template in the caller's tenant. */
  subject_not_found: 404,
  /** A template id that is not an active template of the caller's tenant. */
  template_not_found: 404,
} as const;

export type FingerprintErrorCode = keyof typeof FINGERPRINT_ERRORS;

/** A refused fingerprint operation; `code` is one of {@link FINGERPRINT_ERRORS}. */
export class FingerprintError extends codedError('FingerprintError', FINGERPRINT_ERRORS) {}

/** A coded Error as the job-queue port carries it (`code`, `details`) from a worker. */
export function fingerprintJobError(code: FingerprintErrorCode, message: string, details: Record<string, unknown> = {}): Error & { code: string; details: Record<string, unknown> } {
  return Object.assign(new Error(message), { code, details });
}
