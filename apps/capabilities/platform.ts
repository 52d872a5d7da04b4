/** The platform itself: tenants, API keys, credits, usage events, status (`/v1/credits/*`, `/v1/api-keys`, `/v1/status`). */
import { defineJobs } from '../../infra/ports/job-queue.ts';
import type { handlers } from '../worker/system-jobs.ts';
import { apiKeysProjection } from '../../projections/api-keys/api-keys.ts';
import { tenantsProjection } from '../../projections/tenants/tenants.ts';
import { usageEventsProjection } from '../../projections/usage-events/usage-events.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/** Jobs the platform uses to check its workers (`system.health`) and the queue contract's probes. */
export const systemJobs = defineJobs<typeof handlers>({
  'system.health': true,
  'system.checksum': true,
  'system.fail': true,
  'system.sleep': true,
});

export const platformCapability: CapabilityManifest = {
  name: 'platform',
  summary: 'Tenants, plans, API keys, credits (reserve -> commit/release), usage events and service status.',
  jobs: { definitions: systemJobs, load: () => import('../worker/system-jobs.ts') },
  projections: [tenantsProjection, apiKeysProjection, usageEventsProjection],
  routes: async () => (await import('../api/routes/platform/index.ts')).registerPlatformRoutes,
};
