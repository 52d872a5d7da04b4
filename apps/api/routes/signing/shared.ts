/** Shared pieces of the `/v1/signing/*` routes: error mapping, schemas, request helpers. */
import { z } from 'zod';
import { ErrorBody } from '../../error-schemas.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.ts';
import { SigningError, MAX_PDF_BYTES, MAX_PDF_PAGES, MAX_SIGNERS } from '../../../../domain/signing/errors.ts';
import { isValidEmail } from '../../../../domain/signing/decide.ts';
import { MAX_CONTENT_BYTES } from '../../../../domain/signing/pdf.ts';
import { hasControlCharacters } from '../../../../domain/shared/text.ts';
import { isValidCurp } from '../../../../domain/curp/validate.ts';

/**
 * An RFC (SAT taxpayer id): a person's 13 characters (4 letters, YYMMDD, 3-character homoclave) or a
 * company's 12 (3 letters, YYMMDD, homoclave). Ñ and & are letters of the RFC alphabet. The date part must
 * be a calendar month and day; the homoclave's check digit is the SAT's and is not recomputed here.
 */
export const RFC_PATTERN = /^[A-ZÑ&]{3,4}\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])[A-Z\d]{3}$/;

/** Runs `fn`, rendering a {@link SigningError} as the structured error of its code and status. */
export async function mapSigningErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof SigningError) {
      const retryAfter = error.code === 'finalize_in_progress' ? String((error.details as { retry_after_seconds?: number } | undefined)?.retry_after_seconds ?? 5) : error.status === 503 ? '30' : null;
      throw new ApiError(error.status, error.code, error.message, error.details, undefined, retryAfter ? { 'Retry-After': retryAfter } : undefined);
    }
    throw error;
  }
}

export const DocumentIdParams = z.object({
  document_id: z.string().min(1).max(64).describe('Document id (`doc_` + 24 hex)').meta({ example: 'doc_4f1c2a9be07d5a61c3d8e2f0' }),
});

/** The structured error body (one definition for all routes: `apps/api/error-schemas.ts`). */
export { ErrorBody };

export const PlacementSchema = z.object({
  page: z.number().int().min(1).describe('1-based page number'),
  x: z.number().min(0).describe('Left edge in PDF points from the page\'s left'),
  y: z.number().min(0).describe('Bottom edge in PDF points from the page\'s bottom (PDF user space)'),
  width: z.number().positive().describe('Width in points'),
  height: z.number().positive().describe('Height in points'),
});

export const SignerInputSchema = z.object({
  email: z.string().max(254).describe('Signer e-mail (invitations go there)').meta({ example: 'ana@example.com' }),
  name: z.string().trim().min(1).max(120).refine((v) => !hasControlCharacters(v), 'must not contain control characters (CR, LF, tab...)').describe('Signer name (no control characters)').meta({ example: 'Ana López' }),
  role: z.string().max(60).refine((v) => !hasControlCharacters(v), 'must not contain control characters').default('signer').describe('Free text, e.g. `client`, `witness`'),
  order: z.number().int().min(1).max(99).default(1).describe('Signing order: lower first; equal orders sign in parallel'),
  fields: z.array(PlacementSchema).max(20).default([]).describe('Where this signer\'s signature is stamped (PDF points). Without fields, a `{{signature:ORDER}}` text tag in the PDF is used, else the certificate page.'),
  signature_type: z
    .enum(['simple', 'efirma'])
    .default('simple')
    .describe(
      '`simple` (default: typed or drawn on the signing page, backed by Sello\'s seal and audit trail) or `efirma`: the signer signs in their browser with their own SAT e.firma (FIEL: `.cer`, `.key` and password; the key never leaves the browser), one PAdES signature per signer. A document\'s signers are all `simple` or all `efirma`: a mixed list is 422 `mixed_signature_types` (docs/signing.md "e.firma").',
    ),
  rfc: z
    .string()
    .trim()
    .toUpperCase()
    .regex(RFC_PATTERN, 'must be an RFC: 13 characters for a person (e.g. HEGT7610034S2), 12 for a company (e.g. AAA010101AAA)')
    .nullish()
    .describe('`efirma` signers: the RFC their certificate must carry (the holder\'s, or for a company\'s e.firma the company\'s or its legal representative\'s). Optional.')
    .meta({ example: 'HEGT7610034S2' }),
  curp: z
    .string()
    .trim()
    .toUpperCase()
    .refine((v) => isValidCurp(v), 'must be a valid CURP (18 characters, check digit, date and state)')
    .nullish()
    .describe('`efirma` signers: the CURP their certificate must carry (the holder\'s, or the legal representative\'s). Optional.')
    .meta({ example: 'HEGT761003MDFRNN09' }),
});
export type SignerInput = z.infer<typeof SignerInputSchema>;

/**
 * Parses a signers array (already JSON-decoded).
 * @throws ApiError 400 `invalid_signer` listing the first problem.
 */
export function parseSigners(raw: unknown): SignerInput[] {
  const r = z.array(SignerInputSchema).min(1).max(MAX_SIGNERS).safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new ApiError(400, 'invalid_signer', `Invalid signers: ${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`, { issues: r.error.issues.map((x) => ({ path: x.path.join('.'), message: x.message })) });
  }
  return r.data;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/**
 * `expiry_date` (`YYYY-MM-DD`): the document expires at the end of that day, 23:59:59.999 UTC.
 * @throws ApiError 400 `validation_error` when malformed.
 */
export function parseExpiryDate(v: string | undefined): string | null {
  if (v === undefined || v === '') return null;
  const m = DATE.exec(v);
  const t = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 23, 59, 59, 999) : NaN;
  if (!m || Number.isNaN(t) || new Date(t).getUTCDate() !== Number(m[3])) throw new ApiError(400, 'validation_error', 'expiry_date must be a date YYYY-MM-DD', { field: 'expiry_date', value: v });
  return new Date(t).toISOString();
}

/** `expires_in` of `/v1/signing/create`: `<n>d` (days, 1-365) or `<n>h` (hours). */
export function parseExpiresIn(v: string | undefined, now: number): string | null {
  if (v === undefined || v === '') return null;
  const m = /^(\d{1,4})([dh])$/.exec(v.trim());
  const n = m ? Number(m[1]) : 0;
  if (!m || n < 1 || (m[2] === 'd' && n > 365) || (m[2] === 'h' && n > 8760)) throw new ApiError(400, 'validation_error', 'expires_in must look like `7d` (1-365 days) or `48h`', { field: 'expires_in', value: v });
  return new Date(now + n * (m[2] === 'd' ? 86_400_000 : 3_600_000)).toISOString();
}

/**
 * `notify_email` (where declines are mailed), checked like a signer's address.
 * @throws ApiError 400 `validation_error` when it is not an e-mail address.
 */
export function parseNotifyEmail(v: string | undefined | null): string | null {
  const t = v?.trim();
  if (!t) return null;
  if (!isValidEmail(t)) throw new ApiError(400, 'validation_error', 'notify_email must be an e-mail address', { field: 'notify_email' });
  return t;
}

/**
 * The origin of a new document's links (`PUBLIC_BASE_URL`, an allow-listed `PUBLIC_ORIGINS` entry, or the
 * bound address; never the request's `Host`): `linkOrigin` of apps/api/public-origin.ts over the config.
 */
export type LinkOriginOf = (request: FastifyRequest) => string;

/**
 * A document title: trimmed, 1-200 characters, no control characters (as deployments' names).
 * @throws ApiError 400 `validation_error` (`details.field` = `field`).
 */
export function parseTitle(v: string | undefined, field = 'title'): string {
  const t = v?.trim();
  if (!t) throw new ApiError(400, 'validation_error', `${field} is required`, { field });
  if (t.length > 200) throw new ApiError(400, 'validation_error', `${field} is longer than 200 characters`, { field });
  if (hasControlCharacters(t)) throw new ApiError(400, 'validation_error', `${field} must not contain control characters (CR, LF, tab...)`, { field });
  return t;
}

/** The API key (or dashboard) identity recorded as the acting `user` in the audit trail. */
export function actor(request: FastifyRequest): string {
  return request.auth?.keyId ? `api_key:${request.auth.keyId}` : 'api';
}

/** The caller of a finalized file's download: its key id and whether it holds `admin` (blocked documents). */
export function downloader(request: FastifyRequest): { keyId: string | null; admin: boolean } {
  return { keyId: request.auth?.keyId ?? null, admin: !!request.auth?.permissions.includes('admin') };
}

export function sendPdf(reply: FastifyReply, filename: string, bytes: Buffer) {
  reply.header('content-type', 'application/pdf');
  reply.header('content-disposition', `attachment; filename="${filename}"`);
  reply.header('cache-control', 'private, no-store');
  return reply.send(bytes);
}

export const LIMITS_TEXT =
  `PDF: at most ${MAX_PDF_BYTES / 1024 / 1024} MiB (413 \`pdf_too_large\`) and ${MAX_PDF_PAGES} pages (400 \`pdf_too_many_pages\`); at most ${MAX_SIGNERS} signers. ` +
  `Refused with 422 (docs/signing.md): \`pdf_too_complex\` (pages drawing more than ${MAX_CONTENT_BYTES / 1024 / 1024} MiB of content, or reading the file past its deadline), ` +
  '`pdf_active_content` (JavaScript, Launch actions, XFA forms), `pdf_embedded_file` (embedded files, file attachments), `pdf_already_signed` (signatures or signature fields); ' +
  '503 `pdf_busy` with Retry-After when the PDF threads are busy.';

export const SignerView = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.string(),
  order: z.number(),
  status: z.enum(['pending', 'sent', 'signed', 'declined']),
  sent_at: z.string().optional(),
  signed_at: z.string().optional(),
  ip_address: z.string().nullable().optional(),
  signature_id: z.string().nullable().optional(),
  reminder_sent_at: z.string().optional(),
  declined_at: z.string().optional(),
  decline_reason: z.string().nullable().optional(),
  fields: z.array(PlacementSchema.extend({ from_tag: z.boolean().optional() })).optional(),
  signature_type: z.enum(['simple', 'efirma']).describe('`simple` (typed or drawn) or `efirma` (the signer\'s own SAT e.firma)'),
  rfc: z.string().nullable().optional().describe('`efirma` signers: the RFC the creator required (null: any)'),
  curp: z.string().nullable().optional().describe('`efirma` signers: the CURP the creator required (null: any)'),
  efirma: z
    .object({
      certificate_serial: z.string().describe('Serial number of the signer\'s certificate, lower-case hex'),
      certificate_sha256: z.string().describe('SHA-256 (hex) of the certificate (DER)'),
      issuer: z.string().describe('Issuer of the certificate (RFC 4514), a SAT e.firma CA'),
      holder_name: z.string().describe('The holder\'s name as the certificate states it'),
      rfc: z.string().nullable().describe('RFC read from the certificate (x500UniqueIdentifier; for a company, the company\'s)'),
      representative_rfc: z.string().nullable().describe('Company e.firma: the legal representative\'s RFC'),
      curp: z.string().nullable().describe('CURP read from the certificate (serialNumber)'),
      representative_curp: z.string().nullable().describe('Company e.firma: the legal representative\'s CURP'),
      ocsp_status: z.enum(['good', 'revoked', 'unknown']).describe('The certificate\'s OCSP status when it signed (always `good`: others are refused)'),
      ocsp_produced_at: z.string().describe('When the OCSP response was produced (ISO 8601)'),
    })
    .optional()
    .describe('Present once an `efirma` signer signed: their certificate and its revocation check'),
});

export const DocumentView = z.object({
  document_id: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  message: z.string().nullable().optional(),
  status: z.enum(['draft', 'sent', 'partially_signed', 'signed', 'completed', 'expired', 'cancelled']),
  created_at: z.string(),
  updated_at: z.string(),
  expiry_date: z.string(),
  language: z.enum(['es', 'en']).describe('Language of the signing page, e-mails and certificate of completion: `es` (Spanish, Mexico) or `en`'),
  time_zone: z.string().describe('IANA time zone of the dates signers read (page, e-mails, certificate)').meta({ example: 'America/Mexico_City' }),
  signers: z.array(SignerView),
  file: z.object({ name: z.string(), size: z.number().int(), pages: z.number().int() }),
  signing_url: z.string().describe('Landing page of the document; each signer signs through the personal link of their e-mail, never shown here'),
  finalized_at: z.string().nullable().optional(),
  download_url: z.string().optional(),
  certificate_url: z.string().optional(),
  expired_at: z.string().optional(),
  cancellation: z.object({ by: z.enum(['owner', 'signer']), signer_id: z.string().nullable(), reason: z.string().nullable(), at: z.string() }).optional(),
  blocked: z
    .object({
      blocked_at: z.string(),
      blocked_until: z.string().nullable().describe('End of the legal retention period (ISO 8601), when the retention sweep shreds the document; null: kept until deleted'),
      downloads: z.array(z.object({ downloaded_at: z.string(), file: z.string(), key_id: z.string().nullable() })).describe('Every download of its files by an admin key'),
    })
    .optional()
    .describe('Present when an erasure request blocked this finalized document (docs/privacy.md "Blocking"): title, file name, signers and the audit trail\'s personal fields are withheld; only admin keys download it (`read`/`write` keys: 403 `document_blocked`)'),
  audit_trail: z
    .array(
      z.object({
        event: z.string(),
        timestamp: z.string(),
        user: z.string().optional(),
        recipients: z.array(z.string()).optional(),
        signer: z.object({ id: z.string(), email: z.string(), name: z.string() }).optional(),
        ip_address: z.string().optional(),
        user_agent: z.string().optional(),
        reason: z.string().nullable().optional(),
        image_sha256: z.string().optional().describe('`document_signed` with a drawn signature: SHA-256 of the image (the one the sealed PDF shows)'),
        efirma: z
          .object({ certificate_serial: z.string().nullable(), issuer: z.string(), ocsp_status: z.string(), ocsp_produced_at: z.string() })
          .optional()
          .describe('`document_signed` with an e.firma: the certificate serial (hex; null once erased), its issuer and the OCSP result at signing'),
        prev_hash: z.string().describe('SHA-256 of the previous entry (of the uploaded PDF for the first)'),
        hash: z.string().describe('SHA-256 of this entry'),
      }),
    )
    .optional(),
});

export const SIGNING_ERRORS = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 413: ErrorBody, 422: ErrorBody, 503: ErrorBody };
