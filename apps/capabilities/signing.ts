/** Document signing: envelopes, ordered signers, the signing page, PAdES seals, the audit chain (`/v1/signing/*`, `/sign/*`). */
import { signingProjection } from '../../projections/signing/index.ts';
import { createSigningRuntime, type SigningRuntime } from '../../workflows/signing/runtime.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/**
 * Use cases: the signing service; projection: `signing_documents` (lists, audit trails, verify look-ups);
 * process manager: `signing-lifecycle` (invitations, reminders, expiry, webhooks); background: the
 * dispatcher feeding it from the log.
 */
export const signingCapability: CapabilityManifest<SigningRuntime> = {
  name: 'signing',
  summary: 'Signing documents: ordered signers, a signing page, PAdES-sealed results and a hash-chained audit trail.',
  projections: [signingProjection],
  useCases: (platform) => createSigningRuntime(platform),
  processManagers: (runtime) => runtime.processManagers,
  start: (runtime) => runtime.start(),
  stop: (runtime) => runtime.stop(),
  routes: async () => (await import('../api/routes/signing/index.ts')).registerSigningRoutes,
};
