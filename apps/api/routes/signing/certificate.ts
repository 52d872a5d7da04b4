import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { SigningService } from '../../../../workflows/signing/service.ts';
import { DocumentIdParams, SIGNING_ERRORS, downloader, mapSigningErrors, sendPdf } from './shared.ts';

/** `GET /v1/signing/documents/{id}/certificate` (spec: `certificate_url`, response "not shown"): the certificate of completion and audit pages, a PAdES-signed PDF. */
export function registerCertificate(app: ApiApp, service: SigningService): void {
  app.route({
    method: 'GET',
    url: '/v1/signing/documents/:document_id/certificate',
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['signing'],
      summary: 'Certificate of completion (PDF)',
      description: 'Binary `application/pdf`: document hash, signers (time, IP, method), the audit trail with its hash chain; sealed like the document. A blocked document (docs/privacy.md "Blocking"): admin keys only, each download recorded; others get 403 `document_blocked`.',
      params: DocumentIdParams,
      response: { ...SIGNING_ERRORS },
    },
    handler: async (request, reply) => {
      const { document_id } = request.params as z.infer<typeof DocumentIdParams>;
      const f = await mapSigningErrors(() => service.certificate(request.auth!.tenantId, document_id, downloader(request)));
      return sendPdf(reply, f.filename, f.bytes);
    },
  });
}
