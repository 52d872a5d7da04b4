import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { SigningService } from '../../../../workflows/signing/service.ts';
import { SIGNING_ERRORS, mapSigningErrors } from './shared.ts';

export const ListQuery = z.object({
  status: z.enum(['draft', 'sent', 'partially_signed', 'signed', 'completed', 'expired', 'cancelled']).optional(),
  page: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(100).default(25).describe('Default 25, max 100 (spec)'),
  sort: z.enum(['created_at', 'updated_at', 'title']).default('created_at'),
  order: z.enum(['asc', 'desc']).default('desc'),
});

export const ListResponse = z.object({
  success: z.literal(true),
  data: z.object({
    documents: z.array(
      z.object({ document_id: z.string(), title: z.string(), status: z.string(), created_at: z.string(), updated_at: z.string(), expiry_date: z.string(), signers_count: z.number().int(), signed_count: z.number().int(), blocked: z.boolean().optional().describe('true: blocked by an erasure request (title withheld as `[blocked]`, docs/privacy.md "Blocking")') }),
    ),
    pagination: z.object({ page: z.number().int(), per_page: z.number().int(), total: z.number().int(), total_pages: z.number().int() }),
  }),
});

/** `GET /v1/signing/documents` (spec): the tenant's documents, filtered, sorted and paged. */
export function registerListDocuments(app: ApiApp, service: SigningService): void {
  app.route({
    method: 'GET',
    url: '/v1/signing/documents',
    config: { auth: { permission: 'read' }, rateClass: 'light', errorShape: 'structured' },
    schema: { tags: ['signing'], summary: 'List signing documents', querystring: ListQuery, response: { 200: ListResponse, ...SIGNING_ERRORS } },
    handler: async (request) => {
      const q = request.query as z.infer<typeof ListQuery>;
      const data = await mapSigningErrors(() => service.list(request.auth!.tenantId, { ...(q.status ? { status: q.status } : {}), page: q.page, perPage: q.per_page, sort: q.sort, order: q.order }));
      return { success: true as const, data };
    },
  });
}
