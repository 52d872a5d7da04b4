import path from 'node:path';
import type { ApiApp } from '../../app.ts';
import type { AppContext } from '../../context.ts';
import { createEmbeddedWorkflowEngine } from '../../../../infra/workflows/embedded/index.ts';
import { createWebhooksRuntime } from '../../../../workflows/webhook-delivery/runtime.ts';
import { registerCreateEndpoint } from './create-endpoint.ts';
import { registerDeleteEndpoint } from './delete-endpoint.ts';
import { registerListDeliveries } from './list-deliveries.ts';
import { registerListEndpoints } from './list-endpoints.ts';
import { registerListEvents } from './list-events.ts';
import { registerTestEndpoint } from './test-endpoint.ts';
import { registerUpdateEndpoint } from './update-endpoint.ts';

/**
 * `/v1/webhooks/*` and the delivery machinery behind it: the embedded workflow engine
 * (`DATA_DIR/workflows.sqlite`), the `webhook-delivery` workflow and the fan-out from the log. The engine
 * and fan-out start on fastify `onReady` and stop on `onClose` (in-flight attempts get 5 s; any still
 * running are fed back as interrupted on the next start and retried on schedule).
 */
export function registerWebhookRoutes(app: ApiApp, ctx: AppContext): void {
  const engine = createEmbeddedWorkflowEngine({
    path: path.join(path.resolve(ctx.config.DATA_DIR), 'workflows.sqlite'),
    clock: ctx.clock,
    logger: ctx.log,
    pollIntervalMs: ctx.config.WORKFLOW_POLL_MS,
  });
  const runtime = createWebhooksRuntime({
    eventStore: ctx.events,
    readModels: ctx.readModels,
    engine,
    clock: ctx.clock,
    catchUp: () => ctx.projections.catchUp(),
    logger: ctx.log,
    config: {
      secretKey: ctx.config.WEBHOOK_SECRET_KEY,
      dataDir: path.resolve(ctx.config.DATA_DIR),
      allowCidrs: ctx.config.WEBHOOK_ALLOW_CIDRS,
      caCertsPath: ctx.config.WEBHOOK_CA_CERTS,
      timeoutMs: ctx.config.WEBHOOK_TIMEOUT_MS,
      perEndpointConcurrency: ctx.config.WEBHOOK_ENDPOINT_CONCURRENCY,
    },
  });
  runtime.register();

  app.addHook('onReady', async () => {
    await engine.run();
    await runtime.start();
  });
  app.addHook('onClose', async () => {
    await runtime.stop();
    await engine.stop(5_000);
  });

  const service = runtime.service;
  registerCreateEndpoint(app, service);
  registerListEndpoints(app, service);
  registerUpdateEndpoint(app, service);
  registerDeleteEndpoint(app, service);
  registerTestEndpoint(app, service);
  registerListDeliveries(app, service);
  registerListEvents(app);
}
