import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { SigningService } from '../../../../workflows/signing/service.ts';
import { DocumentIdParams, SIGNING_ERRORS, mapSigningErrors } from './shared.ts';

export const PreviewResponse = z.object({ success: z.literal(true), data: z.object({ preview_url: z.string(), expires_at: z.string() }) });

/** `GET /v1/signing/documents/{id}/public-preview` (spec): a short-lived, view-only URL (it cannot sign). */
export function registerPreview(app: ApiApp, service: SigningService): void {
  app.route({
    method: 'GET',
    url: '/v1/signing/documents/:document_id/public-preview',
    config: { auth: { permission: 'read' }, rateClass: 'light', errorShape: 'structured' },
    schema: {
      tags: ['signing'],
      summary: 'Short-lived preview URL',
      description: 'HMAC-signed URL valid `SIGNING_PREVIEW_TTL_SECONDS` (default 15 min) showing the pages, without any signing capability.',
      params: DocumentIdParams,
      response: { 200: PreviewResponse, ...SIGNING_ERRORS },
    },
    handler: async (request) => {
      const { document_id } = request.params as z.infer<typeof DocumentIdParams>;
      return { success: true as const, data: await mapSigningErrors(() => service.preview(request.auth!.tenantId, document_id)) };
    },
  });
}
