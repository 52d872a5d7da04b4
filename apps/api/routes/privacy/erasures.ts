import { z } from 'zod';
import { eraseSubject, getErasure } from '../../../../domain/privacy/erasure.ts';
import { FaceMatchingError } from '../../../../domain/face-matching/errors.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';
import { errorSchema } from '../../error-schemas.ts';
import { privacyCapability } from '../../../capabilities/privacy.ts';

const ReceiptItem = z.object({
  kind: z.enum(['face_templates', 'fingerprint_templates', 'data_keys']).describe('What was erased.'),
  stores: z.array(z.string()).describe('Where: `event_log` (crypto-shredded: the data key is destroyed, the events read as erased), `read_models`, `vector_index` (every API process\'s replica), `key_store`.'),
  count: z.number().int().describe('How many items (templates active or deleted before; keys destroyed).'),
  erased_at: z.string().describe('ISO 8601.'),
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
    subject_id: z.string().min(1).max(256).optional().describe('A face/fingerprint subject id: every template enrolled under it is erased.').meta({ example: 'customer-42' }),
    email: z.string().max(254).optional().describe('Not available yet (issue 28): answered 400 `invalid_request`.'),
  })
  .strict();
const CreateResponse = z.object({ success: z.literal(true), erasure_id: z.string(), status: z.enum(['processing', 'completed']), data: ErasureSchema });
const GetResponse = z.object({ success: z.literal(true), data: ErasureSchema });
const IdParams = z.object({ erasureId: z.string().min(1).max(64) });
const badRequest = errorSchema(['validation_error', 'invalid_request']).describe('No `subject_id`, a malformed one, or `email` (not available yet).');

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
      summary: 'Erase a data subject (admin)',
      description:
        'Erases every face and fingerprint template enrolled under `subject_id`: the subject\'s data key is destroyed, so the templates in the event log (and every backup of it) read as erased; ' +
        'they leave the listings, the vector index of every API process and the fingerprint galleries; search and verify no longer find them. Idempotent: repeating the request is harmless ' +
        '(a `processing` erasure is resumed; after completion a new erasure also covers templates enrolled since). Erasure by `email` (signers, e-mail verifications, mails) is not available yet.',
      body: CreateBody,
      response: { 202: CreateResponse, 400: badRequest },
    },
    handler: async (request, reply) => {
      const body = request.body as z.infer<typeof CreateBody>;
      if (body.email !== undefined) throw new ApiError(400, 'invalid_request', 'erasure by email is not available yet; send subject_id', { field: 'email' });
      if (body.subject_id === undefined) throw new ApiError(400, 'invalid_request', 'subject_id is required', { field: 'subject_id' });
      let erasure;
      try {
        erasure = await eraseSubject(deps(), { tenantId: request.auth!.tenantId, subjectId: body.subject_id, requestId: request.id });
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
