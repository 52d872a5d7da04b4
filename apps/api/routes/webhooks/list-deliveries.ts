import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { WebhookService } from '../../../../workflows/webhook-delivery/service.ts';
import { DeliveryItem, EndpointIdParams, Pagination, Paging, mapErrors, WEBHOOK_ERROR_RESPONSES } from './schemas.ts';

export const ListDeliveriesQuery = z.object({
  status: z.enum(['success', 'failed', 'pending']).optional().describe('Filter by status (`pending` is an extension).'),
  event_type: z.string().min(1).max(100).optional().describe('Filter by event type.').meta({ example: 'face.verified' }),
  ...Paging,
});
export const ListDeliveriesResponse = z.object({ success: z.literal(true), data: z.array(DeliveryItem), pagination: Pagination });

/** `GET /v1/webhooks/endpoints/{endpoint_id}/deliveries`: deliveries to the endpoint, newest first. */
export function registerListDeliveries(app: ApiApp, service: WebhookService): void {
  app.route({
    method: 'GET',
    url: '/v1/webhooks/endpoints/:endpoint_id/deliveries',
    config: { auth: { permission: 'read' }, rateClass: 'light', errorShape: 'structured' },
    schema: {
      tags: ['webhooks'],
      summary: 'List deliveries of an endpoint',
      params: EndpointIdParams,
      querystring: ListDeliveriesQuery,
      response: { ...WEBHOOK_ERROR_RESPONSES, 200: ListDeliveriesResponse },
    },
    handler: async (request) => {
      const { endpoint_id } = request.params as z.infer<typeof EndpointIdParams>;
      const q = request.query as z.infer<typeof ListDeliveriesQuery>;
      const page = await mapErrors(() => service.deliveries(request.auth!.tenantId, endpoint_id, q));
      return { success: true as const, ...page };
    },
  });
}
