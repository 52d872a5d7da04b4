import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { SigningService } from '../../../../workflows/signing/service.ts';
import { DocumentIdParams, SIGNING_ERRORS, ErrorBody, actor, mapSigningErrors } from './shared.ts';

export const FinalizeResponse = z.object({
  success: z.literal(true),
  data: z.object({
    document_id: z.string(),
    status: z.string(),
    finalized_at: z.string().nullable(),
    download_url: z.string(),
    certificate_url: z.string(),
    final_sha256: z.string().nullable().describe('SHA-256 of the signed PDF (`format=pdf`)'),
    audit_chain_head: z.string().describe('Hash of the last audit entry before finalize (printed on the certificate)'),
    conservation: z
      .object({
        gen_time: z.string().describe('The provider\'s time of the RFC 3161 token (its `genTime`)'),
        token_sha256: z.string().describe('SHA-256 of the token\'s DER'),
        tsa_url: z.string().describe('The conservation provider\'s RFC 3161 service that issued it'),
        url: z.string().describe('Where to download the token (`GET /v1/signing/documents/{id}/conservation`)'),
      })
      .nullable()
      .describe('NOM-151 conservation record of the final PDF (`CONSERVATION_TSA_URL` set); null without a provider'),
  }),
});

/**
 * `POST /v1/signing/documents/{id}/finalize` (spec): `signed` -> `completed` (locked). Stamps the
 * signatures, appends the certificate of completion, and seals the whole file with a PAdES signature
 * (B-B, or B-T with `SIGNING_TSA_URL`; a TSA that does not answer is 503 `timestamp_unavailable`).
 */
export function registerFinalize(app: ApiApp, service: SigningService): void {
  app.route({
    method: 'POST',
    url: '/v1/signing/documents/:document_id/finalize',
    config: { auth: { permission: 'write' }, rateClass: 'heavy', errorShape: 'structured' },
    schema: {
      tags: ['signing'],
      summary: 'Finalize a signed document',
      description:
        'Needs status `signed` (409 `invalid_document_status` before; 400 `document_locked` after). Produces the PAdES-signed PDF, the PDF with the audit pages and the certificate. ' +
        'With `CONSERVATION_TSA_URL` set, the SHA-256 of the final PDF is time-stamped by the NOM-151 conservation provider (RFC 3161) and the token kept as the document\'s conservation record; a provider that does not answer is 503 `conservation_unavailable` with `Retry-After` (nothing recorded, finalize again; never the local clock). ' +
        'Parallel finalizes of one document seal once: the others answer 409 `finalize_in_progress` with `Retry-After`. 500 `signature_image_mismatch` when a drawn signature\'s stored image is not the one its audit entry names (nothing is sealed).',
      params: DocumentIdParams,
      response: { 200: FinalizeResponse, ...SIGNING_ERRORS, 503: ErrorBody },
    },
    handler: async (request) => {
      const { document_id } = request.params as z.infer<typeof DocumentIdParams>;
      const data = await mapSigningErrors(() => service.finalize(request.auth!.tenantId, document_id, actor(request)));
      return { success: true as const, data };
    },
  });
}
