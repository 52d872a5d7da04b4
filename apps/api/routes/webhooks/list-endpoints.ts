import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { WebhookService } from '../../../../workflows/webhook-delivery/service.ts';
import { EndpointItem, Pagination, Paging, mapErrors, WEBHOOK_ERROR_RESPONSES } from './schemas.ts';

export const ListEndpointsQuery = z.object({
  active: z.enum(['true', 'false']).optional().describe('Only active (`true`) or inactive (`false`) endpoints.'),
  ...Paging,
});
export const ListEndpointsResponse = z.object({ success: z.literal(true), data: z.array(EndpointItem), pagination: Pagination });

/** `GET /v1/webhooks/endpoints`: the tenant's endpoints, newest first, with `last_delivery` and `success_rate`. */
export function registerListEndpoints(app: ApiApp, service: WebhookService): void {
  app.route({
    method: 'GET',
    url: '/v1/webhooks/endpoints',
    config: { auth: { permission: 'read' }, rateClass: 'light', errorShape: 'structured' },
    schema: { tags: ['webhooks'], summary: 'List webhook endpoints', querystring: ListEndpointsQuery, response: { ...WEBHOOK_ERROR_RESPONSES, 200: ListEndpointsResponse } },
    handler: async (request) => {
      const q = request.query as z.infer<typeof ListEndpointsQuery>;
      const page = await mapErrors(() =>
        service.list(request.auth!.tenantId, { active: q.active === undefined ? undefined : q.active === 'true', page: q.page, per_page: q.per_page }),
      );
      return { success: true as const, ...page };
    },
  });
}
