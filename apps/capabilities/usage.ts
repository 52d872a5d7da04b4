/** Usage analytics, credits, alerts, exports and the usage page (`/v1/usage/*`, `/dashboard/usage`; issue 14). */
import { usageAnalyticsProjection } from '../../projections/usage-analytics/projection.ts';
import { createHmac } from 'node:crypto';
import { usageExportsProjection } from '../../projections/usage-exports/index.ts';
import { createUsageAlerts, type UsageAlerts } from '../../workflows/usage-alerts/service.ts';
import { createUsageExports, type UsageExports } from '../../workflows/usage-exports/service.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/** What the usage routes and background tasks use. */
export interface UsageRuntime {
  alerts: UsageAlerts;
  exports: UsageExports;
}

/**
 * Projection: `usage-analytics` (rollups, monthly totals, credit accounts, alerts with their evaluation);
 * process managers: `usage-alert-notification`; background: the alert outbox dispatcher.
 */
export const usageCapability: CapabilityManifest<UsageRuntime> = {
  name: 'usage',
  summary: 'Usage summary, statistics, real-time view, credits, alerts, exports and the usage page, from projections of the usage and credit events.',
  projections: [usageAnalyticsProjection, usageExportsProjection],
  useCases: (platform) => ({
    alerts: createUsageAlerts({
      events: platform.events,
      readModels: platform.readModels,
      engine: platform.workflows,
      mailer: platform.mailer,
      clock: platform.clock,
      log: platform.log,
      catchUp: () => platform.projections.catchUp(),
      secretKey: platform.secrets.webhookSecretKey(),
      mailFrom: platform.config.MAIL_FROM,
      sender: { allowCidrs: platform.config.WEBHOOK_ALLOW_CIDRS, caCertsPath: platform.config.WEBHOOK_CA_CERTS, timeoutMs: platform.config.WEBHOOK_TIMEOUT_MS },
    }),
    exports: createUsageExports({
      events: platform.events,
      readModels: platform.readModels,
      blobs: platform.blobs,
      engine: platform.workflows,
      mailer: platform.mailer,
      clock: platform.clock,
      log: platform.log,
      catchUp: () => platform.projections.catchUp(),
      // A key of its own, derived from the service's secret key: links cannot be forged without it.
      linkKey: createHmac('sha256', platform.secrets.webhookSecretKey()).update('sello/usage-export-download-links/v1').digest(),
      mailFrom: platform.config.MAIL_FROM,
      publicBaseUrl: () => platform.config.PUBLIC_BASE_URL?.replace(/\/$/, '') ?? `http://${platform.config.HOST === '0.0.0.0' ? 'localhost' : platform.config.HOST}:${platform.config.PORT}`,
    }),
  }),
  processManagers: (runtime) => [...runtime.alerts.processManagers, ...runtime.exports.processManagers],
  start: (runtime) => runtime.alerts.start(),
  stop: (runtime) => runtime.alerts.stop(),
  routes: async () => (await import('../api/routes/usage/index.ts')).registerUsageRoutes,
};
