import { z } from 'zod';
import { deleteTemplate, getTemplate, listTemplates, purgeTemplates } from '../../../../domain/fingerprint/use-cases.ts';
import { toIsoTemplate } from '../../../../domain/fingerprint/iso.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';
import { errorSchema, fingerprintDeps, run } from './common.ts';

const TemplateSchema = z.object({
  id: z.string(), subject_id: z.string(), finger_position: z.number().int(), minutiae_count: z.number().int(), quality_score: z.number().int(),
  source: z.enum(['image', 'iso']), template_version: z.string(), metadata: z.record(z.string(), z.unknown()), created_at: z.string(),
  verification_count: z.number().int(), last_verified_at: z.string().nullable(), is_active: z.boolean(), deleted_at: z.string().nullable(),
});
const ListResponse = z.object({ success: z.literal(true), templates: z.array(TemplateSchema), count: z.number().int() });
const ListQuery = z.object({
  active_only: z.enum(['true', 'false', '1', '0']).optional().describe('Default true.'),
  subject_id: z.string().min(1).max(256).optional(),
});
const IdParams = z.object({ templateId: z.string().min(1).max(128) });
const DeleteQuery = z.object({ subject_id: z.string().min(1).max(256).optional().describe("Only this subject's templates; without it, all of yours.") });
const DeleteResponse = z.object({ success: z.literal(true), message: z.string() });
const notFound = errorSchema(['template_not_found']).describe('No active template with this id in your account (also for ids of other accounts).');
const badRequest = errorSchema(['validation_error', 'invalid_request']);

/** Listing, ISO export and deletion of templates (free, like face matching's embeddings). */
export function registerFingerprintTemplates(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/v1/fingerprint-matching/templates',
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'structured' },
    schema: { tags: ['fingerprint-matching'], summary: 'List your fingerprint templates', description: 'Newest first, at most 1000; minutiae are not included (GET …/templates/:id/iso).', querystring: ListQuery, response: { 200: ListResponse, 400: badRequest } },
    handler: async (request) => {
      const q = request.query as z.infer<typeof ListQuery>;
      await ctx.projections.catchUp();
      const templates = await run(() => listTemplates(fingerprintDeps(ctx), { tenantId: request.auth!.tenantId, subjectId: q.subject_id, activeOnly: !(q.active_only === 'false' || q.active_only === '0') }));
      return { success: true as const, templates, count: templates.length };
    },
  });

  app.route({
    method: 'GET',
    url: '/v1/fingerprint-matching/templates/:templateId/iso',
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['fingerprint-matching'], summary: 'Export a template as ISO/IEC 19794-2:2005', params: IdParams,
      description: 'Answers `application/octet-stream`: a one-view FMR record at 500 ppi (197 px/cm).',
      response: { 200: z.any().describe('The ISO/IEC 19794-2:2005 record (binary).'), 404: notFound },
    },
    handler: async (request, reply) => {
      const { templateId } = request.params as z.infer<typeof IdParams>;
      const { doc, template } = await run(() => getTemplate(fingerprintDeps(ctx), { tenantId: request.auth!.tenantId, templateId }));
      reply.header('content-type', 'application/octet-stream').header('content-disposition', `attachment; filename="${doc.id}.iso"`);
      return reply.send(Buffer.from(toIsoTemplate(template, doc.finger_position)));
    },
  });

  app.route({
    method: 'DELETE',
    url: '/v1/fingerprint-matching/templates/:templateId',
    config: { auth: { permission: 'write' }, rateClass: 'standard', errorShape: 'structured' },
    schema: { tags: ['fingerprint-matching'], summary: 'Delete one template', params: IdParams, response: { 200: DeleteResponse, 404: notFound } },
    handler: async (request) => {
      const { templateId } = request.params as z.infer<typeof IdParams>;
      await run(() => deleteTemplate(fingerprintDeps(ctx), { tenantId: request.auth!.tenantId, templateId, requestId: request.id }));
      return { success: true as const, message: `Template ${templateId} deleted` };
    },
  });

  app.route({
    method: 'DELETE',
    url: '/v1/fingerprint-matching/templates',
    config: { auth: { permission: 'write' }, rateClass: 'standard', errorShape: 'structured' },
    schema: { tags: ['fingerprint-matching'], summary: "Delete a subject's templates, or all of yours", description: 'Idempotent.', querystring: DeleteQuery, response: { 200: DeleteResponse, 400: badRequest } },
    handler: async (request) => {
      const q = request.query as z.infer<typeof DeleteQuery>;
      if (q.subject_id !== undefined && q.subject_id.trim() === '') throw new ApiError(400, 'invalid_request', 'subject_id must not be empty', { field: 'subject_id' });
      const n = await run(() => purgeTemplates(fingerprintDeps(ctx), { tenantId: request.auth!.tenantId, subjectId: q.subject_id, requestId: request.id }));
      return { success: true as const, message: `Deleted ${n} template${n === 1 ? '' : 's'} ${q.subject_id === undefined ? 'of this account' : `of subject ${q.subject_id}`}` };
    },
  });
}
