/** Retention periods and tenant off-boarding (`/v1/privacy/retention`, `/v1/privacy/offboarding`; docs/privacy.md). */
import { createPrivacyRetention, type PrivacyRetention } from '../../workflows/privacy-retention/service.ts';
import { retentionWorkflowId } from '../../workflows/privacy-retention/process.ts';
import { privacyCapability } from './privacy.ts';
import { signingCapability } from './signing.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/**
 * Use cases: the retention settings and sweep (`domain/privacy/retention.ts`), tenant off-boarding
 * (`domain/privacy/offboarding.ts`); process manager `privacy-retention` (the daily sweep of every
 * tenant), started by API processes. Erasures go through the privacy capability's erasure path.
 */
export const privacyRetentionCapability: CapabilityManifest<PrivacyRetention> = {
  name: 'privacy-retention',
  summary: "Per-tenant retention periods of personal data, the daily sweep that erases what outlived them, and tenant off-boarding.",
  useCases: (platform) =>
    createPrivacyRetention({
      erasure: platform.use(privacyCapability),
      events: platform.events,
      readModels: platform.readModels,
      blobs: platform.blobs,
      engine: () => platform.workflows,
      workflowId: retentionWorkflowId(platform.config.WORKFLOWS === 'temporal' ? platform.config.TEMPORAL_TASK_QUEUE : null),
      removeSigningDocument: async (tenantId, documentId) => {
        await platform.use(signingCapability).service.remove(tenantId, documentId, 'privacy-retention');
      },
      log: platform.log,
    }),
  processManagers: (runtime) => runtime.processManagers,
  start: (runtime) => runtime.start(),
  routes: async () => (await import('../api/routes/privacy/retention.ts')).registerRetentionRoutes,
};
