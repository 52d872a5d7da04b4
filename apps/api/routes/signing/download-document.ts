import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { SigningService } from '../../../../workflows/signing/service.ts';
import { DocumentIdParams, SIGNING_ERRORS, downloader, mapSigningErrors, sendPdf } from './shared.ts';

export const DownloadQuery = z.object({
  format: z.enum(['pdf', 'pdf_with_audit']).default('pdf').describe('`pdf`: the signed document with its certificate page; `pdf_with_audit`: the same plus the audit-trail pages. e.firma documents: `pdf` is the signers\' incrementally signed file with Sello\'s seal and LTV data (no page added); `pdf_with_audit` appends the certificate of completion with the audit trail before the seal'),
});

/**
 * `GET /v1/signing/documents/{id}/download` (spec) and `GET /v1/signing/download/{id}` (alternative path,
 * same answer): the finalized, PAdES-signed PDF. Before finalize: 409 `invalid_document_status`.
 */
export function registerDownload(app: ApiApp, service: SigningService): void {
  for (const url of ['/v1/signing/documents/:document_id/download', '/v1/signing/download/:document_id']) {
    app.route({
      method: 'GET',
      url,
      config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'structured' },
      schema: {
        tags: ['signing'],
        summary: url.startsWith('/v1/signing/download') ? 'Download the signed PDF (alternative path)' : 'Download the signed PDF',
        description: 'Binary `application/pdf`. A document blocked by an erasure request (docs/privacy.md "Blocking"): only an `admin` key downloads it, and each download is recorded (`blocked.downloads` of the document); other keys get 403 `document_blocked`.',
        params: DocumentIdParams,
        querystring: DownloadQuery,
        response: { ...SIGNING_ERRORS },
      },
      handler: async (request, reply) => {
        const { document_id } = request.params as z.infer<typeof DocumentIdParams>;
        const { format } = request.query as z.infer<typeof DownloadQuery>;
        const f = await mapSigningErrors(() => service.download(request.auth!.tenantId, document_id, format, downloader(request)));
        return sendPdf(reply, f.filename, f.bytes);
      },
    });
  }
}
