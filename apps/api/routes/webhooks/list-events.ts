import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import { WEBHOOK_EVENT_CATALOG } from '../../../../domain/webhooks/catalog.ts';
import { WEBHOOK_ERROR_RESPONSES } from './schemas.ts';

export const ListEventsResponse = z.object({
  success: z.literal(true),
  data: z.object({
    events: z.array(
      z.object({
        name: z.string().meta({ example: 'face.verified' }),
        description: z.string().meta({ example: 'Face verification completed.' }),
        category: z.string().meta({ example: 'face' }),
      }),
    ),
  }),
});

/** `GET /v1/webhooks/events`: the event catalog (spec, Events). */
export function registerListEvents(app: ApiApp): void {
  app.route({
    method: 'GET',
    url: '/v1/webhooks/events',
    config: { auth: { permission: 'read' }, rateClass: 'light', errorShape: 'structured' },
    schema: { tags: ['webhooks'], summary: 'List the webhook event catalog', response: { ...WEBHOOK_ERROR_RESPONSES, 200: ListEventsResponse } },
    handler: async () => ({
      success: true as const,
      data: { events: WEBHOOK_EVENT_CATALOG.map((e) => ({ name: e.name, description: e.description, category: e.category })) },
    }),
  });
}
