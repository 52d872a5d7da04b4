import { z } from 'zod';
import { requestErasure, getErasure } from '../../../../domain/privacy/erasure.ts';
import { isValidEmail } from '../../../../domain/signing/decide.ts';
import { FaceMatchingError } from '../../../../domain/face-matching/errors.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';
import { errorSchema } from '../../error-schemas.ts';
import { privacyCapability } from '../../../capabilities/privacy.ts';

const ReceiptItem = z.object({
  kind: z
    .enum(['face_templates', 'fingerprint_templates', 'data_keys', 'signer_records', 'signer_records_blocked', 'signer_records_in_clear', 'signer_files', 'email_verifications', 'outbox_mails', 'idempotency_answers', 'usage_calls', 'usage_exports'])
    .describe(
      'What was erased. For `email`: `signer_records` (signing documents not finalized with a signer at the address: the document\'s data key is destroyed, its personal fields read as erased, its audit chain still verifies), ' +
        '`signer_records_blocked` (finalized documents under their legal retention period: blocked, not erased: no longer served to signers nor shown with personal fields, only admin keys download them, each download recorded; shredded by the retention sweep at `blocked_until`), `signer_records_in_clear` (documents created before signing events were sealed: not erasable from the log), `signer_files` (files of the `signer_records` documents holding their signers\' data: drawn signature images, e.firma signed versions, prepared signatures and OCSP responses; deleted from the blob store, the uploaded PDF and its page images stay), ' +
        '`email_verifications` (always 0: a verification keeps no address), `outbox_mails` (stored outbound mails addressed to it, deleted). ' +
        'For `subject_id`: `face_templates`, `fingerprint_templates`, `data_keys`, and `idempotency_answers` (answers stored for an `Idempotency-Key` that named the subject id, ' +
        'or that were tagged with it: OCR calls given `subject_id`; removed, a retry with such a key runs its call again), ' +
        '`usage_calls` (usage rows of calls that named the subject: enrol, verify, delete; their IP address and user agent cleared) and `usage_exports` (export files with `include_details` covering such a call: deleted, the export reads `expired`).',
    ),
  stores: z.array(z.string()).describe('Where: `event_log` (crypto-shredded: the data key is destroyed, the events read as erased), `read_models`, `vector_index` (every API process\'s replica), `key_store`, `outbox`, `idempotency_store`; empty when nothing was erased.'),
  count: z.number().int().describe('How many items (templates active or deleted before; keys destroyed; documents; mails).'),
  erased_at: z.string().describe('ISO 8601.'),
  document_ids: z.array(z.string()).optional().describe('The signing documents of a `signer_records*` line (ids only).'),
  blocked: z
    .array(z.object({ document_id: z.string(), blocked_until: z.string().nullable() }))
    .optional()
    .describe('`signer_records_blocked`: each blocked document and the end of its blocking (finalization plus the tenant\'s `signed_documents_days`; null: kept until deleted), when the retention sweep shreds it.'),
});
const ErasureSchema = z.object({
  erasure_id: z.string().describe('`era_...`').meta({ example: 'era_3f9c1d2e4b5a69788a9b0c1d2e3f4a5b' }),
  status: z.enum(['processing', 'completed']).describe('`processing` until every step is done; a repeated request resumes it.'),
  scope: z.object({ subject_id: z.boolean(), email: z.boolean() }).describe('What the request covered (the subject itself is never echoed).'),
  requested_at: z.string(),
  completed_at: z.string().nullable(),
  erased: z.array(ReceiptItem).describe('The receipt: what was erased, where and when. Holds no personal data.'),
});
const CreateBody = z
  .object({
    subject_id: z.string().min(1).max(256).optional().describe('A face/fingerprint subject id: every template enrolled under it is erased, with the answers stored for an `Idempotency-Key` that name it or were tied to it (OCR calls given `subject_id`).').meta({ example: 'customer-42' }),
    email: z.string().max(254).optional().describe('An e-mail address: every signer record, e-mail verification and outbox mail of it is erased (compared case-insensitively).').meta({ example: 'ana@example.com' }),
  })
  .strict();
const CreateResponse = z.object({ success: z.literal(true), erasure_id: z.string(), status: z.enum(['processing', 'completed']), data: ErasureSchema });
const GetResponse = z.object({ success: z.literal(true), data: ErasureSchema });
const IdParams = z.object({ erasureId: z.string().min(1).max(64) });
const badRequest = errorSchema(['validation_error', 'invalid_request']).describe('Neither `subject_id` nor `email`, a malformed `subject_id`, or an `email` that is not one address.');

/**
 * `POST /v1/privacy/erasures` and `GET /v1/privacy/erasures/:erasureId` (admin keys). Free. The erasure
 * runs within the request (milliseconds: two purges, a key destruction, the projections' catch-up); the
 * 202 answer carries its state, `completed` unless a step failed (then 5xx, and a repeated request resumes it).
 */
export function registerPrivacyRoutes(app: ApiApp, ctx: Platform): void {
  const deps = () => ctx.use(privacyCapability);
  app.route({
    method: 'POST',
    url: '/v1/privacy/erasures',
    config: { auth: { permission: 'admin' }, rateClass: 'light', errorShape: 'structured' },
    schema: {
      tags: ['privacy'],
      summary: 'Erase a data subject or an e-mail address (admin)',
      description:
        'Erases every face and fingerprint template enrolled under `subject_id`: the subject\'s data key is destroyed, so the templates in the event log (and every backup of it) read as erased; ' +
        'they leave the listings, the vector index of every API process and the fingerprint galleries; search and verify no longer find them. Idempotent: repeating the request is harmless ' +
        '(a `processing` erasure is resumed; after completion a new erasure also covers templates enrolled since). ' +
        'With `email` (alone or with `subject_id`): every signing document not finalized with a signer at that address is crypto-shredded (its data key is destroyed: names, e-mails, IP addresses, user agents, typed names, title... read as erased, the audit chain still verifies), ' +
        'finalized ones are left for blocking and listed by id, and the outbox mails addressed to it are deleted. The receipt lists what was erased per kind, never the address.',
      body: CreateBody,
      response: { 202: CreateResponse, 400: badRequest },
    },
    handler: async (request, reply) => {
      const body = request.body as z.infer<typeof CreateBody>;
      if (body.subject_id === undefined && body.email === undefined) throw new ApiError(400, 'invalid_request', 'send subject_id, email or both', { field: 'subject_id' });
      if (body.email !== undefined && !isValidEmail(body.email.trim())) throw new ApiError(400, 'invalid_request', 'email must be one e-mail address (local@domain)', { field: 'email' });
      let erasure;
      try {
        erasure = await requestErasure(deps(), { tenantId: request.auth!.tenantId, subjectId: body.subject_id, email: body.email, requestId: request.id });
      } catch (error) {
        if (error instanceof FaceMatchingError) throw new ApiError(error.status, error.code, error.message, error.details);
        throw error;
      }
      reply.status(202);
      return { success: true as const, erasure_id: erasure.erasure_id, status: erasure.status, data: erasure };
    },
  });

  app.route({
    method: 'GET',
    url: '/v1/privacy/erasures/:erasureId',
    config: { auth: { permission: 'admin' }, rateClass: 'light', errorShape: 'structured' },
    schema: {
      tags: ['privacy'],
      summary: 'An erasure and its receipt (admin)',
      params: IdParams,
      response: { 200: GetResponse, 404: errorSchema(['erasure_not_found']).describe('No erasure with this id in your account.') },
    },
    handler: async (request) => {
      const { erasureId } = request.params as z.infer<typeof IdParams>;
      const erasure = await getErasure(deps(), request.auth!.tenantId, erasureId);
      if (!erasure) throw new ApiError(404, 'erasure_not_found', `no erasure ${erasureId}`);
      return { success: true as const, data: erasure };
    },
  });
}
