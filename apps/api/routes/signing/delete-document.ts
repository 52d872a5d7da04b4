import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { SigningService } from '../../../../workflows/signing/service.ts';
import { DocumentIdParams, SIGNING_ERRORS, actor, mapSigningErrors } from './shared.ts';

export const DeleteResponse = z.object({ success: z.literal(true), data: z.object({ message: z.string(), document_id: z.string() }) });

/** `DELETE /v1/signing/documents/{id}` (spec): removes the document's files; later reads are 404. */
export function registerDelete(app: ApiApp, service: SigningService): void {
  app.route({
    method: 'DELETE',
    url: '/v1/signing/documents/:document_id',
    config: { auth: { permission: 'write' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['signing'],
      summary: 'Delete a signing document',
      description: 'Deletes the uploaded and finalized PDFs, drawn signatures and page images, and closes the lifecycle. The event log keeps the `document_deleted` fact (docs/signing.md).',
      params: DocumentIdParams,
      response: { 200: DeleteResponse, ...SIGNING_ERRORS },
    },
    handler: async (request) => {
      const { document_id } = request.params as z.infer<typeof DocumentIdParams>;
      const data = await mapSigningErrors(() => service.remove(request.auth!.tenantId, document_id, actor(request)));
      return { success: true as const, data };
    },
  });
}
