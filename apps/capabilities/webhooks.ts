/** Signed webhooks: endpoints, the delivery workflow and the fan-out from the log (`/v1/webhooks/*`). */
import { webhooksProjection } from '../../projections/webhooks/index.ts';
import { createWebhooksRuntime, type WebhooksRuntime } from '../../workflows/webhook-delivery/runtime.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/**
 * Use cases: the webhook service (endpoints, test deliveries, listings); process manager:
 * `webhook-delivery` with its activities; background: the fan-out of catalog events into deliveries.
 */
export const webhooksCapability: CapabilityManifest<WebhooksRuntime> = {
  name: 'webhooks',
  summary: 'Registers endpoints and delivers catalog events, signed, with retries, from the event log.',
  projections: [webhooksProjection],
  useCases: (platform) =>
    createWebhooksRuntime({
      eventStore: platform.events,
      readModels: platform.readModels,
      engine: platform.workflows,
      clock: platform.clock,
      catchUp: () => platform.projections.catchUp(),
      logger: platform.log,
      secretKey: platform.secrets.webhookSecretKey(),
      config: {
        allowCidrs: platform.config.WEBHOOK_ALLOW_CIDRS,
        caCertsPath: platform.config.WEBHOOK_CA_CERTS,
        timeoutMs: platform.config.WEBHOOK_TIMEOUT_MS,
        perEndpointConcurrency: platform.config.WEBHOOK_ENDPOINT_CONCURRENCY,
      },
    }),
  processManagers: (runtime) => runtime.processManagers,
  start: (runtime) => runtime.start(),
  stop: (runtime) => runtime.stop(),
  routes: async () => (await import('../api/routes/webhooks/index.ts')).registerWebhookRoutes,
};
