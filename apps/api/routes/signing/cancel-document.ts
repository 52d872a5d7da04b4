import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { SigningService } from '../../../../workflows/signing/service.ts';
import { DocumentIdParams, DocumentView, SIGNING_ERRORS, actor, mapSigningErrors } from './shared.ts';

export const CancelBody = z.object({ reason: z.string().max(2000).optional().describe('Recorded in the audit trail') }).default({});
export const CancelResponse = z.object({ success: z.literal(true), data: DocumentView });

/**
 * `POST /v1/signing/documents/{id}/cancel` (designed here; the spec names the `cancelled` status only):
 * the owner stops a document that is not finalized; its links stop working, no more reminders.
 */
export function registerCancel(app: ApiApp, service: SigningService): void {
  app.route({
    method: 'POST',
    url: '/v1/signing/documents/:document_id/cancel',
    config: { auth: { permission: 'write' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['signing'],
      summary: 'Cancel a signing document',
      description: 'Any status before `completed` -> `cancelled` (`cancellation.by = owner`). Finalized: 400 `document_locked`; expired: 400 `document_expired`.',
      params: DocumentIdParams,
      body: CancelBody,
      response: { 200: CancelResponse, ...SIGNING_ERRORS },
    },
    handler: async (request) => {
      const { document_id } = request.params as z.infer<typeof DocumentIdParams>;
      const body = (request.body ?? {}) as z.infer<typeof CancelBody>;
      const data = await mapSigningErrors(() => service.cancel(request.auth!.tenantId, document_id, { reason: body.reason ?? null, user: actor(request) }));
      return { success: true as const, data };
    },
  });
}
