/**
 * Closed list of OCR error codes (spec "Errors > OCR (flat shape)" plus the unreadable-image cases the
 * issue asks for). `OCR_ERROR_STATUS` maps each to its HTTP status; routes render them flat:
 * `{success:false, error: code, message}`.
 */
export type OcrErrorCode =
  /** A removed endpoint (`/v1/ocr/extract`, `/v1/ocr/extract/receipt`) was called. */
  | 'not_supported'
  /** `document_type` is not one of the accepted values of the endpoint. */
  | 'unsupported_document_type'
  /** No `front`/`image` file or base64 string was sent. */
  | 'image_required'
  /** The inference workers could not be reached or timed out. */
  | 'ocr_service_unavailable'
  /** The bytes are not a JPEG, PNG or PDF (or are truncated/corrupt). */
  | 'unsupported_format'
  /** A file is larger than 10 MB (spec "Limits": OCR file size). */
  | 'file_too_large'
  /** Shorter side under 300 px, or the document covers too few pixels to read. */
  | 'image_too_small'
  /** Focus measure (variance of the Laplacian) under the threshold: too blurred to read. */
  | 'image_too_blurry'
  /** No document (no readable text block) found in the image. */
  | 'no_document_detected'
  /** The expected side was not found (e.g. a back where a front is required, or no MRZ on a back). */
  | 'wrong_side'
  /** The image is a document of another type than `document_type` (e.g. a bill sent as an INE). */
  | 'wrong_document_type'
  /** A field was not a valid value (bad base64, bad boolean). */
  | 'invalid_request';

/** HTTP status of each code. */
export const OCR_ERROR_STATUS: Record<OcrErrorCode, number> = {
  not_supported: 400,
  unsupported_document_type: 400,
  image_required: 400,
  ocr_service_unavailable: 503,
  unsupported_format: 400,
  file_too_large: 413,
  image_too_small: 400,
  image_too_blurry: 400,
  no_document_detected: 400,
  wrong_side: 400,
  wrong_document_type: 400,
  invalid_request: 400,
};

/** A coded OCR failure, thrown by domain code and job handlers (structured-clone-safe fields). */
export class OcrError extends Error {
  override readonly name = 'OcrError';
  constructor(
    readonly code: OcrErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** True when `code` is one of {@link OcrErrorCode}. */
export function isOcrErrorCode(code: unknown): code is OcrErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(OCR_ERROR_STATUS, code);
}
