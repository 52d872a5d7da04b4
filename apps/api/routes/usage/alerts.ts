import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { UsageAlerts } from '../../../../workflows/usage-alerts/service.ts';
import { ALERT_METRICS, ALERT_OPERATORS, ALERT_WINDOWS, type AlertInput } from '../../../../domain/usage/alerts.ts';
import { USAGE_ROUTE_CONFIG, USAGE_WRITE_ROUTE_CONFIG, mapUsageErrors, USAGE_ERROR_RESPONSES } from './common.ts';

const Condition = z
  .object({
    metric: z.string().max(40).describe(`One of ${Object.keys(ALERT_METRICS).map((m) => `\`${m}\``).join(', ')} (docs/usage.md).`).meta({ example: 'credits_remaining' }),
    operator: z.string().max(20).describe(`${Object.keys(ALERT_OPERATORS).join(', ')} or ${Object.values(ALERT_OPERATORS).join(' ')}.`).meta({ example: 'lt' }),
    value: z.number().describe('Threshold, in the metric\'s unit (credits, calls, percent 0-100, seconds).').meta({ example: 100 }),
    window: z.string().max(8).optional().describe(`For error_rate and avg_response_time: ${Object.keys(ALERT_WINDOWS).join(', ')} (default 1h).`),
  })
  .partial();
const Notification = z
  .object({
    webhook_url: z.string().max(2048).nullable().describe('HTTPS URL receiving a signed POST (same signature and SSRF rules as webhooks).').meta({ example: 'https://hooks.example.com/alerts' }),
    email: z.string().max(254).nullable().describe('Address e-mailed when the alert fires.').meta({ example: 'ops@example.com' }),
  })
  .partial();
const AlertBody = z.object({
  name: z.string().max(200).optional().meta({ example: 'Credits running low' }),
  type: z.string().max(20).optional().describe('`threshold` (the only type).'),
  condition: Condition.optional(),
  notification: Notification.optional(),
  enabled: z.boolean().optional().describe('Disabled alerts are not evaluated (default true).'),
});

const AlertRecord = z.object({
  id: z.string().meta({ example: 'alr_5f0c2b7e9a1d3c4b5a697887' }),
  name: z.string(),
  type: z.literal('threshold'),
  condition: z.object({ metric: z.string(), operator: z.string(), value: z.number(), window: z.string().optional() }),
  notification: z.object({ webhook_url: z.string().nullable(), email: z.string().nullable() }),
  enabled: z.boolean(),
  state: z.enum(['armed', 'triggered']).describe('`triggered` after firing; re-armed (`armed`) when the condition clears.'),
  last_value: z.number().nullable().describe('Metric value at the latest evaluation (null: no data or unlimited).'),
  last_evaluated_at: z.string().nullable(),
  triggered_count: z.number(),
  last_triggered_at: z.string().nullable(),
  history: z
    .array(
      z.object({
        fire_id: z.string(),
        fired_at: z.string(),
        value: z.number(),
        cleared_at: z.string().nullable(),
        notifications: z
          .object({
            webhook: z.object({ status: z.string(), attempts: z.number(), response_status: z.number().nullable(), error_message: z.string().nullable() }).nullable(),
            email: z.object({ status: z.string(), message_id: z.string().nullable(), error_message: z.string().nullable() }).nullable(),
            notified_at: z.string(),
          })
          .nullable()
          .describe('Outcome of the notifications; null while they are being sent.'),
      }),
    )
    .describe('The latest 50 firings, newest first.'),
  created_at: z.string(),
  updated_at: z.string(),
  secret: z.string().optional().describe('Signing secret of the webhook notifications; returned only at creation.'),
});
const AlertParams = z.object({ alert_id: z.string().min(1).max(100) });

/** `/v1/usage/alerts` (POST, GET), `/v1/usage/alerts/{alert_id}` (GET, PUT, DELETE). */
export function registerUsageAlerts(app: ApiApp, alerts: UsageAlerts): void {
  const tags = ['usage'];
  app.route({
    method: 'POST',
    url: '/v1/usage/alerts',
    config: USAGE_WRITE_ROUTE_CONFIG,
    schema: {
      tags,
      summary: 'Create a usage alert',
      description: 'Capped per plan: Free 0, Basic 1, Pro 5, Enterprise unlimited (403 `alert_limit_reached`). Answers 201 with the record and, once, its signing `secret`.',
      body: AlertBody,
      response: { ...USAGE_ERROR_RESPONSES, 201: z.object({ success: z.literal(true), data: AlertRecord }) },
    },
    handler: async (request, reply) =>
      mapUsageErrors(async () => {
        const a = request.auth!;
        const data = await alerts.create(a.tenantId, a.tenant.plan, request.body as AlertInput);
        reply.code(201);
        return { success: true as const, data };
      }),
  });
  app.route({
    method: 'GET',
    url: '/v1/usage/alerts',
    config: USAGE_ROUTE_CONFIG,
    schema: { tags, summary: 'List usage alerts', response: { ...USAGE_ERROR_RESPONSES, 200: z.object({ success: z.literal(true), data: z.array(AlertRecord) }) } },
    handler: async (request) => ({ success: true as const, data: await alerts.list(request.auth!.tenantId) }),
  });
  app.route({
    method: 'GET',
    url: '/v1/usage/alerts/:alert_id',
    config: USAGE_ROUTE_CONFIG,
    schema: { tags, summary: 'Get a usage alert with its firing history', params: AlertParams, response: { ...USAGE_ERROR_RESPONSES, 200: z.object({ success: z.literal(true), data: AlertRecord }) } },
    handler: async (request) =>
      mapUsageErrors(async () => ({ success: true as const, data: await alerts.get(request.auth!.tenantId, (request.params as { alert_id: string }).alert_id) })),
  });
  app.route({
    method: 'PUT',
    url: '/v1/usage/alerts/:alert_id',
    config: USAGE_WRITE_ROUTE_CONFIG,
    schema: {
      tags,
      summary: 'Update a usage alert',
      description: 'Any subset of the creation body. A changed condition, or re-enabling, re-arms the alert.',
      params: AlertParams,
      body: AlertBody,
      response: { ...USAGE_ERROR_RESPONSES, 200: z.object({ success: z.literal(true), data: AlertRecord }) },
    },
    handler: async (request) =>
      mapUsageErrors(async () => ({
        success: true as const,
        data: await alerts.update(request.auth!.tenantId, (request.params as { alert_id: string }).alert_id, request.body as AlertInput),
      })),
  });
  app.route({
    method: 'DELETE',
    url: '/v1/usage/alerts/:alert_id',
    config: USAGE_WRITE_ROUTE_CONFIG,
    schema: { tags, summary: 'Delete a usage alert', params: AlertParams, response: { ...USAGE_ERROR_RESPONSES, 200: z.object({ success: z.literal(true), data: z.object({ alert_id: z.string(), deleted: z.literal(true) }) }) } },
    handler: async (request) =>
      mapUsageErrors(async () => {
        const id = (request.params as { alert_id: string }).alert_id;
        await alerts.remove(request.auth!.tenantId, id);
        return { success: true as const, data: { alert_id: id, deleted: true as const } };
      }),
  });
}
