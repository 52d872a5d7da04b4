import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import type { WebhooksRuntime } from '../../../../workflows/webhook-delivery/runtime.ts';
import { registerCreateEndpoint } from './create-endpoint.ts';
import { registerDeleteEndpoint } from './delete-endpoint.ts';
import { registerListDeliveries } from './list-deliveries.ts';
import { registerListEndpoints } from './list-endpoints.ts';
import { registerListEvents } from './list-events.ts';
import { registerTestEndpoint } from './test-endpoint.ts';
import { registerUpdateEndpoint } from './update-endpoint.ts';

/**
 * `/v1/webhooks/*`. The delivery machinery behind it (the `webhook-delivery` process manager on the
 * platform's workflow engine, and the fan-out from the log) is started by the platform from the
 * webhooks manifest (`apps/capabilities/webhooks.ts`); the routes use its service.
 */
export function registerWebhookRoutes(app: ApiApp, _platform: Platform, runtime: WebhooksRuntime): void {
  const service = runtime.service;
  registerCreateEndpoint(app, service);
  registerListEndpoints(app, service);
  registerUpdateEndpoint(app, service);
  registerDeleteEndpoint(app, service);
  registerTestEndpoint(app, service);
  registerListDeliveries(app, service);
  registerListEvents(app);
}
