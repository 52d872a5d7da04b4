import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { WebhookService } from '../../../../workflows/webhook-delivery/service.ts';
import { ActiveField, DescriptionField, EndpointIdParams, EventsField, UrlField, mapErrors, WEBHOOK_ERROR_RESPONSES } from './schemas.ts';

/**
 * Strict: a field the endpoint cannot change is refused (400 `validation_error`), not ignored: a `secret`
 * sent to rotate it was answered 200 and left the old secret in place (rotate by creating a new endpoint).
 */
export const UpdateEndpointBody = z
  .object({
    url: UrlField.optional(),
    events: EventsField.optional(),
    description: DescriptionField.optional(),
    active: ActiveField.optional(),
  })
  .strict();
export const UpdateEndpointResponse = z.object({
  success: z.literal(true),
  data: z.object({ id: z.string(), url: z.string(), events: z.array(z.string()), active: z.boolean(), updated_at: z.string() }),
});

/** `PUT /v1/webhooks/endpoints/{endpoint_id}`: changes any of url, events, description, active. */
export function registerUpdateEndpoint(app: ApiApp, service: WebhookService): void {
  app.route({
    method: 'PUT',
    url: '/v1/webhooks/endpoints/:endpoint_id',
    config: { auth: { permission: 'write' }, rateClass: 'light', errorShape: 'structured' },
    schema: {
      tags: ['webhooks'],
      summary: 'Update a webhook endpoint',
      description: 'All fields optional; the same checks as creation apply; any other field (e.g. `secret`: rotate it by creating a new endpoint) is 400 `validation_error`. 404 `endpoint_not_found` for unknown ids and other accounts\' ids.',
      params: EndpointIdParams,
      body: UpdateEndpointBody,
      response: { ...WEBHOOK_ERROR_RESPONSES, 200: UpdateEndpointResponse },
    },
    handler: async (request) => {
      const { endpoint_id } = request.params as z.infer<typeof EndpointIdParams>;
      const body = (request.body ?? {}) as z.infer<typeof UpdateEndpointBody>;
      const r = await mapErrors(() => service.update(request.auth!.tenantId, endpoint_id, body));
      return { success: true as const, data: { id: r.id, url: r.url, events: r.events, active: r.active, updated_at: r.updated_at } };
    },
  });
}
