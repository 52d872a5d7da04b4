import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { WebhookService } from '../../../../workflows/webhook-delivery/service.ts';
import { EndpointIdParams, mapErrors, WEBHOOK_ERROR_RESPONSES } from './schemas.ts';

export const DeleteEndpointResponse = z.object({ success: z.literal(true), data: z.object({ message: z.string(), endpoint_id: z.string() }) });

/** `DELETE /v1/webhooks/endpoints/{endpoint_id}`: removes the endpoint; pending retries to it stop. */
export function registerDeleteEndpoint(app: ApiApp, service: WebhookService): void {
  app.route({
    method: 'DELETE',
    url: '/v1/webhooks/endpoints/:endpoint_id',
    config: { auth: { permission: 'write' }, rateClass: 'light', errorShape: 'structured' },
    schema: { tags: ['webhooks'], summary: 'Delete a webhook endpoint', params: EndpointIdParams, response: { ...WEBHOOK_ERROR_RESPONSES, 200: DeleteEndpointResponse } },
    handler: async (request) => {
      const { endpoint_id } = request.params as z.infer<typeof EndpointIdParams>;
      return { success: true as const, data: await mapErrors(() => service.remove(request.auth!.tenantId, endpoint_id)) };
    },
  });
}
