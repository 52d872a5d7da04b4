/** Document signing: envelopes, ordered signers, the signing page, PAdES seals, the audit chain (`/v1/signing/*`, `/sign/*`). */
import { defineJobs, runJob } from '../../infra/ports/job-queue.ts';
import type { handlers } from '../../models/signing/jobs.ts';
import { signingProjection } from '../../projections/signing/index.ts';
import { createSigningRuntime, type SigningRuntime } from '../../workflows/signing/runtime.ts';
import type { CapabilityManifest } from '../platform/types.ts';
import { PdfPool } from '../worker/pdf-pool.ts';

/**
 * Use cases: the signing service; projection: `signing_documents` (lists, audit trails, verify look-ups);
 * process manager: `signing-lifecycle` (invitations, reminders, expiry, webhooks); background: the
 * dispatcher feeding it from the log.
 */
/** The signing worker job (render + PAdES seal of the finalized files); types from `models/signing/jobs.ts`. */
export const signingJobs = defineJobs<typeof handlers>({ 'signing.seal': true });

export const signingCapability: CapabilityManifest<SigningRuntime> = {
  name: 'signing',
  summary: 'Signing documents: ordered signers, a signing page, PAdES-sealed results and a hash-chained audit trail.',
  jobs: { definitions: signingJobs, load: () => import('../../models/signing/jobs.ts') },
  projections: [signingProjection],
  // PDFs are parsed and rendered on PDF threads of their own (deadlines, fair across tenants): see there why
  // not on the job queue's inference threads.
  useCases: (platform) => createSigningRuntime(platform, (input) => runJob(platform.jobs, signingJobs['signing.seal'], input, { timeoutMs: 120_000 }), new PdfPool()),
  processManagers: (runtime) => runtime.processManagers,
  start: (runtime) => runtime.start(),
  stop: (runtime) => runtime.stop(),
  routes: async () => (await import('../api/routes/signing/index.ts')).registerSigningRoutes,
};
