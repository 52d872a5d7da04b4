/** Usage analytics, credits, alerts, exports and the usage page (`/v1/usage/*`, `/dashboard/usage`; issue 14). */
import { usageAnalyticsProjection } from '../../projections/usage-analytics/projection.ts';
import { createUsageAlerts, type UsageAlerts } from '../../workflows/usage-alerts/service.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/** What the usage routes and background tasks use. */
export interface UsageRuntime {
  alerts: UsageAlerts;
}

/**
 * Projection: `usage-analytics` (rollups, monthly totals, credit accounts, alerts with their evaluation);
 * process managers: `usage-alert-notification`; background: the alert outbox dispatcher.
 */
export const usageCapability: CapabilityManifest<UsageRuntime> = {
  name: 'usage',
  summary: 'Usage summary, statistics, real-time view, credits, alerts, exports and the usage page, from projections of the usage and credit events.',
  projections: [usageAnalyticsProjection],
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
  }),
  processManagers: (runtime) => [...runtime.alerts.processManagers],
  start: (runtime) => runtime.alerts.start(),
  stop: (runtime) => runtime.alerts.stop(),
  routes: async () => (await import('../api/routes/usage/index.ts')).registerUsageRoutes,
};
