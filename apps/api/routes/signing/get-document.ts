import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { SigningService } from '../../../../workflows/signing/service.ts';
import { DocumentIdParams, DocumentView, SIGNING_ERRORS, mapSigningErrors } from './shared.ts';

export const GetDocumentResponse = z.object({ success: z.literal(true), data: DocumentView });

/** `GET /v1/signing/documents/{id}` (spec) and its alternative path `GET /v1/signing/status/{id}` (same body). */
export function registerGetDocument(app: ApiApp, service: SigningService): void {
  for (const url of ['/v1/signing/documents/:document_id', '/v1/signing/status/:document_id']) {
    app.route({
      method: 'GET',
      url,
      config: { auth: { permission: 'read' }, rateClass: 'light', errorShape: 'structured' },
      schema: {
        tags: ['signing'],
        summary: url.includes('status') ? 'Document status (alternative path)' : 'Get a signing document',
        description: 'The document, its signers and its audit trail (each entry with `prev_hash` and `hash`: the hash chain rooted in the PDF\'s SHA-256).',
        params: DocumentIdParams,
        response: { 200: GetDocumentResponse, ...SIGNING_ERRORS },
      },
      handler: async (request) => {
        const { document_id } = request.params as z.infer<typeof DocumentIdParams>;
        const data = await mapSigningErrors(() => service.get(request.auth!.tenantId, document_id));
        return { success: true as const, data };
      },
    });
  }
}
