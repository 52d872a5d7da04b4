/**
 * Error codes of the e-mail endpoints (flat shape: `{success:false, error:<code>, message}`; spec, Errors,
 * "Email (flat shape)"). 401/403/429 come from the platform edge.
 */
export const EmailErrorCodes = {
  /** 400: `GET /v1/email/verify` without an `email` query parameter (or with an empty or repeated one). */
  missingEmail: 'missing_email',
  /** 400: batch body whose `emails` is missing, not an array, empty, or holds a non-string. */
  invalidEmails: 'invalid_emails',
  /** 400: more than 100 addresses in a batch (spec, Limits). */
  tooManyEmails: 'too_many_emails',
  /** 400: `reachable` is not a boolean. */
  invalidReachable: 'invalid_reachable',
  /** 500: the verifier itself failed (a bug or resource failure; per-address DNS failures are status ERROR instead). */
  verificationFailed: 'verification_failed',
} as const;

export type EmailErrorCode = (typeof EmailErrorCodes)[keyof typeof EmailErrorCodes];

/** Largest batch (spec, Limits: "Email batch 1-100 addresses"). */
export const MAX_BATCH_EMAILS = 100;
