/** Fingerprint matching: our minutiae extractor and MCC matcher, `/v1/fingerprint-matching/*` (docs/fingerprint.md). */
import { randomUUID } from 'node:crypto';
import { defineJobs } from '../../infra/ports/job-queue.ts';
import type { handlers } from '../../models/fingerprint/jobs.ts';
import type { FingerprintDeps } from '../../domain/fingerprint/deps.ts';
import { GalleryCache } from '../../domain/fingerprint/gallery.ts';
import { fingerprintTemplatesProjection } from '../../projections/fingerprint-templates/fingerprint-templates.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/** The fingerprint inference jobs; types from `models/fingerprint/jobs.ts`. */
export const fingerprintJobs = defineJobs<typeof handlers>({ 'fingerprint.extract': true });

export const fingerprintCapability: CapabilityManifest<FingerprintDeps> = {
  name: 'fingerprint',
  summary: 'Fingerprint templates per tenant (event-sourced): minutiae extraction on the workers, MCC matching 1:1 and 1:N.',
  jobs: { definitions: fingerprintJobs, load: () => import('../../models/fingerprint/jobs.ts') },
  projections: [fingerprintTemplatesProjection],
  useCases: (platform) => ({
    events: platform.events,
    readModels: platform.readModels,
    catchUp: () => platform.projections.catchUp(),
    now: () => platform.clock.now(),
    newId: () => `fpt_${randomUUID().replace(/-/g, '')}`,
    gallery: new GalleryCache(platform.readModels),
  }),
  routes: async () => (await import('../api/routes/fingerprint-matching/index.ts')).registerFingerprintRoutes,
};
