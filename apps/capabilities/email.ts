/** E-mail verification: syntax, domain lists, MX, SMTP probe (`/v1/email/*`, docs/email.md). */
import type { EmailVerifier } from '../../domain/email/verify-email.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/** Use case: the platform's e-mail verifier (`infra/email-verifier`, built on first use). */
export const emailCapability: CapabilityManifest<{ verifier(): EmailVerifier }> = {
  name: 'email',
  summary: 'Verifies e-mail addresses one at a time or in batches (DNS and SMTP checks through the e-mail verifier port).',
  useCases: (platform) => ({ verifier: () => platform.emailVerifier }),
  routes: async () => (await import('../api/routes/email/index.ts')).registerEmailRoutes,
};
