import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { WebhookService } from '../../../../workflows/webhook-delivery/service.ts';
import { ActiveField, DescriptionField, EventsField, UrlField, mapErrors, WEBHOOK_ERROR_RESPONSES } from './schemas.ts';

export const CreateEndpointBody = z.object({
  url: UrlField,
  events: EventsField,
  description: DescriptionField.optional(),
  active: ActiveField.default(true),
});
export const CreateEndpointResponse = z.object({
  success: z.literal(true),
  data: z.object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    secret: z
      .string()
      .describe('Signing secret (`whsec_` + base64 of 32 bytes). Returned only here: store it now; Sello keeps it encrypted.')
      .meta({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwZ8f3u1n0m2E=' }),
    active: z.boolean(),
    created_at: z.string(),
  }),
});

/** `POST /v1/webhooks/endpoints`: registers an HTTPS endpoint; the secret is returned once. */
export function registerCreateEndpoint(app: ApiApp, service: WebhookService): void {
  app.route({
    method: 'POST',
    url: '/v1/webhooks/endpoints',
    config: { auth: { permission: 'write' }, rateClass: 'light', errorShape: 'structured' },
    schema: {
      tags: ['webhooks'],
      summary: 'Create a webhook endpoint',
      description:
        'The URL must be HTTPS and must not resolve to a loopback, private, link-local or metadata address (400 `url_not_allowed`). ' +
        '`events` must name catalog events (400 `invalid_event_type`). The `secret` is shown only in this answer.',
      body: CreateEndpointBody,
      response: { ...WEBHOOK_ERROR_RESPONSES, 201: CreateEndpointResponse },
    },
    handler: async (request, reply) => {
      const body = request.body as z.infer<typeof CreateEndpointBody>;
      const created = await mapErrors(() => service.create(request.auth!.tenantId, body));
      reply.status(201);
      return { success: true as const, data: created };
    },
  });
}
