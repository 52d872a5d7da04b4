import { z } from 'zod';
import { deleteEmbedding, purgeEmbeddings } from '../../../../domain/face-matching/delete-embeddings.ts';
import { listEmbeddings } from '../../../../domain/face-matching/list-embeddings.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';
import { errorSchema, faceMatchingDeps, run } from './common.ts';

export const EmbeddingSchema = z.object({
  id: z.string(),
  subject_id: z.string(),
  embeddingDimension: z.number().int().describe('Always 512.'),
  quality_score: z.number().nullable(),
  liveness_score: z.number().nullable(),
  enrollment_source: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  verification_count: z.number().int().describe('Successful verifications against this embedding.'),
  last_verified_at: z.string().nullable().describe('Time of the last successful verification.'),
  is_active: z.boolean().describe('False once deleted (listed only with `active_only=false`).'),
  deleted_at: z.string().nullable(),
});
const ListResponse = z.object({ success: z.literal(true), embeddings: z.array(EmbeddingSchema), count: z.number().int() });
const ListQuery = z.object({
  active_only: z.enum(['true', 'false', '1', '0']).optional().describe('Default true: only embeddings not deleted.'),
  subject_id: z.string().min(1).max(256).optional().describe('Only this subject\'s embeddings.'),
});
const DeleteResponse = z.object({ success: z.literal(true), message: z.string() });
const IdParams = z.object({ embeddingId: z.string().min(1).max(128) });
const DeleteQuery = z.object({ subject_id: z.string().min(1).max(256).optional().describe('Delete only this subject\'s embeddings; without it, all of your embeddings.') });
const badRequest = errorSchema(['validation_error', 'invalid_request']).describe('A query parameter is malformed (`details.field` / `details.issues`).');

/**
 * `GET /v1/face-matching/embeddings`, `DELETE /v1/face-matching/embeddings/:embeddingId`,
 * `DELETE /v1/face-matching/embeddings[?subject_id=]`. Free (not in the spec's credit table).
 */
export function registerFaceMatchingEmbeddings(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/v1/face-matching/embeddings',
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['face-matching'],
      summary: 'List your face embeddings',
      description: 'Newest first, at most 1000. Templates are never returned.',
      querystring: ListQuery,
      response: { 200: ListResponse, 400: badRequest },
    },
    handler: async (request) => {
      const q = request.query as z.infer<typeof ListQuery>;
      await ctx.projections.catchUp();
      const activeOnly = !(q.active_only === 'false' || q.active_only === '0');
      const embeddings = await run(() => listEmbeddings(faceMatchingDeps(ctx), { tenantId: request.auth!.tenantId, subjectId: q.subject_id, activeOnly }));
      return { success: true as const, embeddings, count: embeddings.length };
    },
  });

  app.route({
    method: 'DELETE',
    url: '/v1/face-matching/embeddings/:embeddingId',
    config: { auth: { permission: 'write' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['face-matching'],
      summary: 'Delete one embedding',
      params: IdParams,
      response: {
        200: DeleteResponse,
        400: badRequest,
        404: errorSchema(['embedding_not_found']).describe('`embedding_not_found`: no active embedding with this id in your account (also for ids of other accounts).'),
      },
    },
    handler: async (request) => {
      const { embeddingId } = request.params as z.infer<typeof IdParams>;
      await run(() => deleteEmbedding(faceMatchingDeps(ctx), { tenantId: request.auth!.tenantId, embeddingId, requestId: request.id }));
      return { success: true as const, message: `Embedding ${embeddingId} deleted` };
    },
  });

  app.route({
    method: 'DELETE',
    url: '/v1/face-matching/embeddings',
    config: { auth: { permission: 'write' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['face-matching'],
      summary: "Delete a subject's embeddings, or all of yours",
      description: 'With `subject_id`: every embedding of that subject; without: every embedding of your account. Idempotent.',
      querystring: DeleteQuery,
      response: { 200: DeleteResponse, 400: badRequest },
    },
    handler: async (request) => {
      const q = request.query as z.infer<typeof DeleteQuery>;
      if (q.subject_id !== undefined && q.subject_id.trim() === '') throw new ApiError(400, 'invalid_request', 'subject_id must not be empty', { field: 'subject_id' });
      const n = await run(() => purgeEmbeddings(faceMatchingDeps(ctx), { tenantId: request.auth!.tenantId, subjectId: q.subject_id, requestId: request.id }));
      const scope = q.subject_id === undefined ? 'of this account' : `of subject ${q.subject_id}`;
      return { success: true as const, message: `Deleted ${n} embedding${n === 1 ? '' : 's'} ${scope}` };
    },
  });
}
