/**
 * The e.firma routes of the signing page (issue 29; use cases in workflows/signing/efirma.ts):
 * - `GET /sign/assets/<name>-<sha>.js`: the form's two scripts (node-forge's browser bundle and the page's
 *   own), cached a year under content-addressed names (./efirma-assets.ts);
 * - `POST /sign/:document_id/efirma/prepare` `{t, certificate}` (JSON; `t` is the personal link's token, as
 *   the page's other forms carry it; `certificate` the `.cer`, DER in base64): the certificate is checked
 *   and the signature prepared. 200 `{success, data: {prepare_id, signed_attributes, expires_at}}`;
 * - `POST /sign/:document_id/efirma/complete` `{t, prepare_id, signature, consent: 'yes'}` (`signature`:
 *   RSASSA-PKCS1-v1_5 SHA-256 over the DER signed attributes, base64): 200 `{success, data: {status,
 *   signed_at, signature_id, heading, text}}` (heading and text in the document's language).
 * Errors in the structured shape with the signing error's status (docs/signing.md "e.firma"). Public like
 * the rest of `/sign/*`: the public rate limits apply (apps/api/public-limits.ts). Answers are `no-store`.
 */
import { z } from 'zod';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { ErrorBody } from '../../error-schemas.ts';
import type { ApiApp } from '../../types.ts';
import type { SigningService } from '../../../../workflows/signing/service.ts';
import type { EfirmaSigning } from '../../../../workflows/signing/efirma.ts';
import { SigningError } from '../../../../domain/signing/errors.ts';
import { SIGNING_MESSAGES } from '../../../../domain/signing/messages.ts';
import { formatDateTime } from '../../../../domain/shared/locale.ts';
import { mapSigningErrors } from './shared.ts';
import { EFIRMA_ASSETS } from './efirma-assets.ts';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const Params = z.object({ document_id: z.string().max(64).describe('Document id (`doc_` + 24 hex)') });
const Token = z.string().max(100).describe('The signer\'s personal link token (`t` of the link), as the page\'s forms carry it');
export const EfirmaPrepareBody = z.object({
  t: Token,
  certificate: z.string().max(32 * 1024).describe('The signer\'s `.cer`: DER X.509, base64 (at most 16 KiB decoded)'),
});
export const EfirmaPrepareResponse = z.object({
  success: z.literal(true),
  data: z.object({
    prepare_id: z.string().describe('`efp_` + 32 hex: the prepared signature, completed by the same signer within minutes'),
    signed_attributes: z.string().describe('DER SignedAttributes (content-type, message-digest of the byte range, signing-certificate-v2, signing-time), base64: what the browser signs'),
    expires_at: z.string().describe('When the prepared signature expires (ISO 8601)'),
  }),
});
export const EfirmaCompleteBody = z.object({
  t: Token,
  prepare_id: z.string().max(64),
  signature: z.string().max(2048).describe('RSASSA-PKCS1-v1_5 SHA-256 over the DER signed attributes, with the key of the prepared certificate, base64'),
  consent: z.literal('yes').describe('The signer agrees to sign electronically'),
});
export const EfirmaCompleteResponse = z.object({
  success: z.literal(true),
  data: z.object({
    status: z.enum(['partially_signed', 'signed']).describe('The document\'s status after this signature'),
    signed_at: z.string().nullable(),
    signature_id: z.string().nullable(),
    heading: z.string().describe('Confirmation heading, in the document\'s language'),
    text: z.string().describe('Confirmation text, in the document\'s language'),
  }),
});
const ERRORS = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody, 429: ErrorBody, 503: ErrorBody };
const DESCRIPTION =
  'Public (no API key: the personal link\'s token is the credential; the /sign/* rate limits apply). docs/signing.md "Signing with e.firma". ' +
  'Refusals: 401 `invalid_link`; 409 `not_your_turn`, `efirma_not_expected` (a simple signer); 400 `already_signed`, `document_expired`, `document_cancelled`, `document_locked`; ';
const ua = (r: FastifyRequest) => str(r.headers['user-agent']) || 'unknown';

/** Registers the scripts and the e.firma routes; `efirma` null: the routes answer 503 (not configured). `limit`: the `/sign/*` rate limit. */
export function registerEfirmaRoutes(app: ApiApp, service: SigningService, efirma: EfirmaSigning | null, limit?: onRequestHookHandler): void {
  const config = { auth: false as const, rateClass: 'light' as const, errorShape: 'structured' as const };
  const hide = { hide: true };
  const use = (): EfirmaSigning => {
    if (!efirma) throw new SigningError('efirma_not_configured', 'Signing with e.firma is not configured on this service', {});
    return efirma;
  };
  void app.register(async (scope) => {
    if (limit) scope.addHook('onRequest', limit);
    for (const a of EFIRMA_ASSETS) {
      scope.get(a.path, { config, schema: hide }, async (_request, reply) =>
        reply
          .header('content-type', 'text/javascript; charset=utf-8')
          .header('cache-control', 'public, max-age=31536000, immutable')
          .header('x-content-type-options', 'nosniff')
          .header('cross-origin-resource-policy', 'same-origin')
          .send(a.body),
      );
    }

    scope.post(
      '/sign/:document_id/efirma/prepare',
      {
        config,
        bodyLimit: 64 * 1024,
        schema: {
          tags: ['signing'],
          summary: 'e.firma signer: check the certificate and prepare the signature',
          description:
            DESCRIPTION +
            '422 `efirma_certificate_invalid`, `efirma_not_fiel` (a CSD), `efirma_certificate_expired`, `efirma_identity_mismatch` (RFC/CURP), `efirma_untrusted`, `efirma_certificate_revoked`, `efirma_certificate_status_unknown`; 503 `efirma_ocsp_unavailable` (never accepted unchecked), `efirma_not_configured`, `pdf_busy`.',
          params: Params,
          body: EfirmaPrepareBody,
          response: { 200: EfirmaPrepareResponse, ...ERRORS },
        },
      },
      async (request, reply) => {
      const { document_id } = request.params as { document_id: string };
      const b = (request.body ?? {}) as Record<string, unknown>;
      const data = await mapSigningErrors(() => use().prepare(document_id, str(b.t), b.certificate));
      return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send({ success: true, data });
      },
    );

    scope.post(
      '/sign/:document_id/efirma/complete',
      {
        config,
        bodyLimit: 16 * 1024,
        schema: {
          tags: ['signing'],
          summary: 'e.firma signer: complete a prepared signature with the browser\'s signature value',
          description: DESCRIPTION + '404 `efirma_prepare_not_found` (unknown, used or expired); 409 `efirma_prepare_stale` (another signer signed since: prepare again); 422 `efirma_signature_invalid`; 503 `pdf_busy`.',
          params: Params,
          body: EfirmaCompleteBody,
          response: { 200: EfirmaCompleteResponse, ...ERRORS },
        },
      },
      async (request, reply) => {
      const { document_id } = request.params as { document_id: string };
      const b = (request.body ?? {}) as Record<string, unknown>;
      const { state, signer } = await mapSigningErrors(() =>
        use().complete(document_id, str(b.t), { prepareId: b.prepare_id, signature: b.signature, consent: str(b.consent) === 'yes', ip: request.ip, userAgent: ua(request) }),
      );
      const m = SIGNING_MESSAGES[state.locale.language].page;
      const at = formatDateTime(signer.signed_at ?? service.now(), state.locale);
      return reply
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .send({
          success: true,
          data: {
            status: state.status,
            signed_at: signer.signed_at,
            signature_id: signer.signature_id,
            heading: m.signedHeading,
            text: m.signedText(signer.name, state.title, at, signer.signature_id ?? '', state.status === 'signed'),
          },
        });
      },
    );
  });
}
