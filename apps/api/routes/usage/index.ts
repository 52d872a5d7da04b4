import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import type { UsageRuntime } from '../../../capabilities/usage.ts';
import { registerUsageReads } from './read.ts';
import { registerUsageAlerts } from './alerts.ts';
import { registerUsageExports } from './exports.ts';
import { registerUsageDashboard } from './dashboard.ts';
import { SELLO_BRANDING } from './page.ts';
import { pageBrandingOf } from '../../../../workflows/deployments/branding.ts';

/** `/v1/usage/*` (issue 14): reads from the usage read models, alerts, exports, and the usage page. */
export function registerUsageRoutes(app: ApiApp, platform: Platform, runtime: UsageRuntime): void {
  registerUsageReads(app, platform);
  registerUsageAlerts(app, runtime.alerts);
  registerUsageExports(app, platform, runtime.exports);
  // White-label (issue 15): the usage page of a deployment's tenant carries its branding.
  registerUsageDashboard(app, platform, async (tenantId, request) => (await pageBrandingOf(platform, { tenantId, host: request.headers.host }, SELLO_BRANDING)) ?? {});
}
