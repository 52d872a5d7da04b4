import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { SigningService } from '../../../../workflows/signing/service.ts';
import { DocumentIdParams, SIGNING_ERRORS, actor, mapSigningErrors } from './shared.ts';

export const SendInvitationsBody = z
  .object({
    reminder_days: z.number().int().min(0).max(60).default(3).describe('Days between reminders (0 = none); default 3'),
    custom_message: z.string().max(4000).optional().describe('Shown in the invitation and reminder e-mails'),
  })
  .default({ reminder_days: 3 });

export const SendInvitationsResponse = z.object({
  success: z.literal(true),
  data: z.object({
    invitations_sent: z.number().int(),
    document_status: z.string(),
    sent_at: z.string().nullable(),
    reminder_days: z.number().int(),
    signers_notified: z.array(z.object({ email: z.string(), status: z.string(), sent_at: z.string().nullable() })),
  }),
});

/**
 * `POST /v1/signing/documents/{id}/send-invitations` (spec): `draft` -> `sent`. Invites the signers of the
 * lowest `order` (equal orders in parallel); later orders are invited when the earlier ones have signed.
 * The e-mails (each with the signer's personal link) are sent by the lifecycle workflow from the log.
 */
export function registerSendInvitations(app: ApiApp, service: SigningService): void {
  app.route({
    method: 'POST',
    url: '/v1/signing/documents/:document_id/send-invitations',
    config: { auth: { permission: 'write' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['signing'],
      summary: 'Send the invitations',
      description: 'Only from `draft` (409 `invalid_document_status` otherwise). Signers of the first order become `sent`; reminders follow every `reminder_days` until they sign.',
      params: DocumentIdParams,
      body: SendInvitationsBody,
      response: { 200: SendInvitationsResponse, ...SIGNING_ERRORS },
    },
    handler: async (request) => {
      const { document_id } = request.params as z.infer<typeof DocumentIdParams>;
      const body = (request.body ?? { reminder_days: 3 }) as z.infer<typeof SendInvitationsBody>;
      const data = await mapSigningErrors(() =>
        service.sendInvitations(request.auth!.tenantId, document_id, { reminderDays: body.reminder_days, customMessage: body.custom_message ?? null, user: actor(request) }),
      );
      return { success: true as const, data };
    },
  });
}
