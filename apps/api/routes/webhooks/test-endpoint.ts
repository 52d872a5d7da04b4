import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import { RESPONSE_BODY_LIMIT, TEST_EVENT_TYPE_DEFAULT } from './constants.ts';
import type { WebhookService } from '../../../../workflows/webhook-delivery/service.ts';
import { EndpointIdParams, mapErrors, WEBHOOK_ERROR_RESPONSES } from './schemas.ts';

export const TestEndpointBody = z
  .object({
    event_type: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9_.-]+$/)
      .default(TEST_EVENT_TYPE_DEFAULT)
      .describe('Event type to send (any name; default `test`).')
      .meta({ example: 'face.verified' }),
  })
  .nullish();
export const TestEndpointResponse = z.object({
  success: z.literal(true),
  data: z.object({
    test_sent: z.boolean().describe('The receiver answered (any status). False on timeout, connection or TLS error.'),
    response_status: z.number().int().nullable(),
    response_time: z.number().describe('Milliseconds.'),
    response_body: z.string().describe(`The receiver's answer, cut to its first ${RESPONSE_BODY_LIMIT} bytes.`),
    response_body_truncated: z.boolean().describe('True when `response_body` was cut (extension).'),
    error_message: z.string().nullable().describe('Why the attempt failed, when it did (extension).'),
  }),
});

/** `POST /v1/webhooks/endpoints/{endpoint_id}/test`: one synchronous signed delivery, not retried or recorded. */
export function registerTestEndpoint(app: ApiApp, service: WebhookService): void {
  app.route({
    method: 'POST',
    url: '/v1/webhooks/endpoints/:endpoint_id/test',
    config: { auth: { permission: 'write' }, rateClass: 'light', errorShape: 'structured' },
    schema: {
      tags: ['webhooks'],
      summary: 'Send a test delivery',
      description: `Signed like a real delivery; waits for the answer (up to the 10 s delivery limit). \`response_body\` holds at most ${RESPONSE_BODY_LIMIT} bytes.`,
      params: EndpointIdParams,
      body: TestEndpointBody,
      response: { ...WEBHOOK_ERROR_RESPONSES, 200: TestEndpointResponse },
    },
    handler: async (request) => {
      const { endpoint_id } = request.params as z.infer<typeof EndpointIdParams>;
      const body = request.body as z.infer<typeof TestEndpointBody>;
      const r = await mapErrors(() => service.test(request.auth!.tenantId, endpoint_id, body?.event_type ?? TEST_EVENT_TYPE_DEFAULT));
      return { success: true as const, data: r };
    },
  });
}
