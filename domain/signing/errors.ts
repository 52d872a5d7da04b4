/**
 * The signing error codes (one closed list). The first six are the spec's ("Errors" > "Signing"); the
 * others cover transitions the spec leaves "not shown" (docs/signing.md). Every one renders in the
 * structured shape `{success:false, error:{code, message, details}}`.
 */
import { codedError } from '../shared/coded-error.ts';

export const SIGNING_ERROR_STATUS = {
  /** Unknown document id, a document of another tenant, or a deleted document (spec). */
  document_not_found: 404,
  /** The document's expiry passed before it was completed (spec; `details.document_id`, `expired_at`). */
  document_expired: 400,
  /** The signer already signed (spec). */
  already_signed: 400,
  /** A signer's e-mail is not a valid address, or the signer list is invalid (spec). */
  invalid_signer: 400,
  /** The document was finalized: it can no longer change (spec). */
  document_locked: 400,
  /** The upload is not a readable, unencrypted, well-formed PDF (spec). */
  pdf_corrupted: 400,
  /** The PDF is larger than {@link MAX_PDF_BYTES}. */
  pdf_too_large: 413,
  /** The PDF has more than {@link MAX_PDF_PAGES} pages. */
  pdf_too_many_pages: 400,
  /**
   * The PDF costs too much to interpret: its pages draw more content than the bound (`details.reason`
   * `content_size`), it has too many objects or nested forms, or its parsing or a page's rendering ran past
   * its deadline (`time_limit`). docs/signing.md.
   */
  pdf_too_complex: 422,
  /** The PDF holds JavaScript, a Launch action or an XFA form (`details.found`); refused at intake. */
  pdf_active_content: 422,
  /** The PDF embeds files or has file-attachment annotations (`details.found`); refused at intake. */
  pdf_embedded_file: 422,
  /** The PDF is already signed or has signature fields (`details.found`); refused at intake. */
  pdf_already_signed: 422,
  /** The PDF threads are busy with earlier work (this account's or others'); retry after `Retry-After`. */
  pdf_busy: 503,
  /** The document was cancelled by its owner or declined by a signer. */
  document_cancelled: 400,
  /**
   * The finalized document is blocked by an erasure request under its legal retention period (issue 28
   * item 6, docs/privacy.md "Blocking"): only an `admin` key may download its files (each download recorded).
   */
  document_blocked: 403,
  /** The operation needs another status (e.g. invitations of a document already sent; finalize before every signer signed). */
  invalid_document_status: 409,
  /** A signer tried to sign before the signers of a lower `order` signed. */
  not_your_turn: 409,
  /** The signer declined. */
  already_declined: 400,
  /** A signature placement lies outside the document (page out of range, box outside the page). */
  invalid_placement: 400,
  /** A signing or preview link is unknown, expired or of another purpose. */
  invalid_link: 401,
  /** `expiry_date` / `expires_in` is not in the future. */
  invalid_expiry_date: 400,
  /** The sealing workers timed out, are full, or failed; finalize can be retried. */
  seal_unavailable: 503,
  /** The configured timestamp authority did not answer usably; finalize can be retried. */
  timestamp_unavailable: 503,
  /**
   * The NOM-151 conservation provider (`CONSERVATION_TSA_URL`) did not answer usably: nothing is recorded and
   * finalize can be retried after `Retry-After` (the local clock is never used in its place; issue 29 item 5).
   */
  conservation_unavailable: 503,
  /**
   * Finalize of an e.firma document (issue 29): the working PDF is missing or does not hash to the
   * `working_pdf_sha256` its log names, or a signature's OCSP response is missing: nothing is sealed.
   */
  efirma_file_mismatch: 500,
  /** The finalized document has no NOM-151 conservation record (finalized without `CONSERVATION_TSA_URL`). */
  conservation_not_found: 404,
  /** Another finalize of the document is sealing it now (issue 31); retry after `Retry-After` (then `document_locked` once done). */
  finalize_in_progress: 409,
  /**
   * A drawn signature's stored image is missing or does not hash to the `image_sha256` its `document_signed`
   * entry logged: the document is not sealed with an image other than the audited one (issue 31).
   */
  signature_image_mismatch: 500,
  /**
   * An e.firma signature value returned by the browser does not verify (RSASSA-PKCS1-v1_5 SHA-256) over the
   * signed attributes with the certificate's key (issue 29): nothing is recorded as signed.
   */
  efirma_signature_invalid: 422,
  /** Issue 29: a signer list mixing `simple` and `efirma` signers (docs/signing.md "e.firma": one type per document). */
  mixed_signature_types: 422,
  /** Issue 29: an e.firma signer tried the typed/drawn form; they sign with `.cer`, `.key` and password. */
  efirma_required: 409,
  /** Issue 29: a simple signer tried the e.firma routes. */
  efirma_not_expected: 409,
  /** Issue 29: the prepared e.firma signature is unknown, of another signer, already used or expired (minutes); prepare again. */
  efirma_prepare_not_found: 404,
  /** Issue 29: another e.firma signature was added since this one was prepared (the working PDF changed); prepare again. */
  efirma_prepare_stale: 409,
  /** Issue 29: the `.cer` is not one well-formed DER X.509 certificate (`details.reason`). */
  efirma_certificate_invalid: 422,
  /** Issue 29: the certificate is a CSD (certificado de sello digital: its subject has an OU), not an e.firma (FIEL). */
  efirma_not_fiel: 422,
  /** Issue 29: the certificate is outside its validity period now (`details.reason` `expired` | `not_yet_valid`, `not_before`, `not_after`). */
  efirma_certificate_expired: 422,
  /** Issue 29: the RFC/CURP the document gives for the signer matches neither the holder's nor the legal representative's (`details.fields`). */
  efirma_identity_mismatch: 422,
  /** Issue 29: the certificate does not chain to the configured SAT trust list (EFIRMA_TRUST_LIST) at signing time. */
  efirma_untrusted: 422,
  /** Issue 29: the OCSP responder gave no usable, verified answer in time: refused (never accepted unchecked); retry later. */
  efirma_ocsp_unavailable: 503,
  /** Issue 29: the signer's certificate is revoked (OCSP `revoked` at signing time): refused, nothing recorded. */
  efirma_certificate_revoked: 422,
  /** Issue 29: the OCSP responder does not know the signer's certificate (`unknown`): refused, nothing recorded. */
  efirma_certificate_status_unknown: 422,
  /** Issue 29: signing with e.firma is not configured on this service (no trust list, or no PDF threads in this process). */
  efirma_not_configured: 503,
} as const;

export type SigningErrorCode = keyof typeof SIGNING_ERROR_STATUS;

/** A coded signing error; `apps/api/routes/signing` renders it with its status. */
export class SigningError extends codedError('SigningError', SIGNING_ERROR_STATUS) {}

/** Largest PDF accepted, in bytes (10 MiB; docs/signing.md). The spec leaves the maximum "not shown". */
export const MAX_PDF_BYTES = 10 * 1024 * 1024;
/** Most pages accepted in a PDF to sign (docs/signing.md). */
export const MAX_PDF_PAGES = 200;
/** Most signers per document. */
export const MAX_SIGNERS = 20;
