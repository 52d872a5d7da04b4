/**
 * Closed list of face-matching error codes, rendered in the structured shape
 * `{success:false, error:{code, message, details}}`. The spec shows no face-matching error bodies
 * ("Errors": "not shown"), so these are ours; the OpenAPI document lists them per route.
 * The image codes are the face-recognition group's (`domain/face/errors.ts`), with the same statuses.
 */
import { codedError } from '../shared/coded-error.ts';

export const FACE_MATCHING_ERRORS = {
  /** A field is missing or malformed (subject_id, threshold, limit, scores, metadata); `details` names it. */
  invalid_request: 400,
  /** No `image` file part in the multipart body. */
  missing_image: 400,
  /** The enrollment/probe image has no face. */
  no_face_detected: 400,
  /** More than one sizeable face where one is expected. */
  multiple_faces_detected: 400,
  /** Image under 100x100 px. */
  image_too_small: 400,
  /** Image over 5 MB (rejected while streaming). */
  image_too_large: 413,
  /** Not a JPEG, PNG or WebP file, or undecodable. */
  unsupported_format: 400,
  /** Face under 80x80 px, blurred or badly exposed. */
  insufficient_quality: 400,
  /** `verify/:subjectId` names a subject with no active embedding in the caller's tenant. */
  subject_not_found: 404,
  /** `DELETE embeddings/:embeddingId` names no active embedding of the caller's tenant (other tenants' ids included). */
  embedding_not_found: 404,
} as const;

export type FaceMatchingErrorCode = keyof typeof FACE_MATCHING_ERRORS;

/** A refused face-matching operation; `code` is one of {@link FACE_MATCHING_ERRORS}. */
export class FaceMatchingError extends codedError('FaceMatchingError', FACE_MATCHING_ERRORS) {}

/** True when `code` is one of {@link FACE_MATCHING_ERRORS}. */
export function isFaceMatchingErrorCode(code: unknown): code is FaceMatchingErrorCode {
  return typeof code === 'string' && Object.hasOwn(FACE_MATCHING_ERRORS, code);
}
