/**
 * Closed list of face-recognition error codes (spec "Errors > Face"; structured shape
 * `{success:false, error:{code, message, details}}`). HTTP statuses per the spec table.
 */
export const FACE_ERRORS = {
  /** No face found in an image; `details.image` names the image field, `details.suggestions` lists fixes. */
  no_face_detected: 400,
  /** Several faces where the operation expects one (verify, analyze, landmarks, liveness). */
  multiple_faces_detected: 400,
  /** Decoded image narrower or shorter than 100 px (spec Limits: minimum 100x100 px). */
  image_too_small: 400,
  /** Uploaded file over 5 MB (spec Limits); rejected while streaming, before the body is buffered. */
  image_too_large: 413,
  /** Bytes are not a JPEG, PNG or WebP file (judged from magic bytes, not name or declared type), or cannot be decoded. */
  unsupported_format: 400,
  /** Face smaller than 80x80 px, too blurred, or badly exposed (see domain/face/quality.ts). */
  insufficient_quality: 400,
} as const;

/** One of the face error codes. */
export type FaceErrorCode = keyof typeof FACE_ERRORS;

/** A coded face error as raised inside a job handler (structured-clone-able through the job queue). */
export interface FaceError extends Error {
  code: FaceErrorCode;
  details?: Record<string, unknown>;
}

/** Builds a coded error that the job-queue port carries as `JobFailedError.code/details`. */
export function faceError(code: FaceErrorCode, message: string, details?: Record<string, unknown>): FaceError {
  return Object.assign(new Error(message), { code, details }) as FaceError;
}

/** True when `code` is one of {@link FACE_ERRORS}. */
export function isFaceErrorCode(code: unknown): code is FaceErrorCode {
  return typeof code === 'string' && Object.hasOwn(FACE_ERRORS, code);
}

/** Suggestions returned in `details.suggestions` of `no_face_detected`. */
export const NO_FACE_SUGGESTIONS = [
  'Make sure one face is fully visible, facing the camera',
  'Use even, frontal lighting without strong backlight',
  'Take the photo closer so the face is at least 80x80 pixels',
  'Remove sunglasses, masks or anything covering the face',
] as const;
