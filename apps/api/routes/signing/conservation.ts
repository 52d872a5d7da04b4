import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { ApiApp } from '../../types.ts';
import type { SigningService } from '../../../../workflows/signing/service.ts';
import { CONSERVATION_MEDIA_TYPE } from '../../../../workflows/signing/conservation.ts';
import { DocumentIdParams, SIGNING_ERRORS, downloader, mapSigningErrors } from './shared.ts';

/**
 * `GET /v1/signing/documents/{id}/conservation` (issue 29 item 5; the spec is silent): the NOM-151
 * conservation record of a finalized document, the RFC 3161 TimeStampToken over the SHA-256 of its final PDF
 * (workflows/signing/conservation.ts), served as DER.
 */
export function registerConservation(app: ApiApp, service: SigningService): void {
  app.route({
    method: 'GET',
    url: '/v1/signing/documents/:document_id/conservation',
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['signing'],
      summary: 'NOM-151 conservation record (RFC 3161 time-stamp token)',
      description:
        `Binary \`${CONSERVATION_MEDIA_TYPE}\`: the DER TimeStampToken (RFC 3161 2.4.2: a CMS ContentInfo of SignedData whose content is a TSTInfo) that the conservation provider (\`CONSERVATION_TSA_URL\`) issued at finalize over the SHA-256 of the final PDF (\`download?format=pdf\`). ` +
        'It is the bare token, not a TimeStampResp, hence `application/pkcs7-mime` rather than `application/timestamp-reply`. Check it with `openssl ts -verify -digest <sha256 of the PDF> -in <token> -token_in -CAfile <provider CA>`. ' +
        '409 `invalid_document_status` before finalize; 404 `conservation_not_found` when the document was finalized without a conservation provider; a blocked document (docs/privacy.md "Blocking"): admin keys only, each download recorded, others 403 `document_blocked`.',
      params: DocumentIdParams,
      response: { ...SIGNING_ERRORS },
    },
    handler: async (request, reply) => {
      const { document_id } = request.params as z.infer<typeof DocumentIdParams>;
      const f = await mapSigningErrors(() => service.conservation(request.auth!.tenantId, document_id, downloader(request)));
      const r = reply as unknown as FastifyReply;
      r.header('content-type', CONSERVATION_MEDIA_TYPE);
      r.header('content-disposition', `attachment; filename="${f.filename}"`);
      r.header('cache-control', 'private, no-store');
      return r.send(f.bytes);
    },
  });
}
