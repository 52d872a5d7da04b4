/**
 * The signing capability's runtime, built once per process from the platform: the use cases, the
 * `signing-lifecycle` process manager with its activities, and the dispatcher that feeds it from the log.
 */
import type { Platform } from '../../apps/platform/types.ts';
import { bindProcessManager, type RegisteredProcessManager } from '../../infra/ports/workflows.ts';
import { brandingOf, forEmail } from '../deployments/branding.ts';
import { createSigningActivities } from './activities.ts';
import { DEFAULT_BRANDING } from './emails.ts';
import { startSigningDispatcher, type SigningDispatcher } from './dispatcher.ts';
import { signingLifecycle } from './process.ts';
import { createSigningService, type SigningDeps, type SigningService } from './service.ts';
import { JobFailedError } from '../../infra/ports/job-queue.ts';
import { SigningError } from '../../domain/signing/errors.ts';
import type { SealInput, SealOutput } from '../../models/signing/jobs.ts';
import { createEfirmaSigning, type EfirmaPdfThreads, type EfirmaSigning } from './efirma.ts';
import { efirmaPkiFromConfig } from './efirma-pki.ts';

export interface SigningRuntime {
  service: SigningService;
  /** Signing with the signer's own e.firma (issue 29); null when `EFIRMA_TRUST_LIST` is not configured. */
  efirma: EfirmaSigning | null;
  processManagers: readonly RegisteredProcessManager[];
  /** Starts the dispatcher (API processes). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves when every signing event logged so far has reached the workflow engine. */
  caughtUp(): Promise<void>;
}

/**
 * @param runSeal runs the `signing.seal` job on the platform's job queue (the manifest passes it, so this
 *   module does not import the manifest); its failures are mapped to signing errors here.
 * @param pdf the PDF threads (`apps/worker/pdf-pool.ts`, passed by the manifest): closed by `stop()`.
 */
export function createSigningRuntime(platform: Platform, runSeal: (input: SealInput) => Promise<SealOutput>, pdf: SigningDeps['pdf'] & Partial<EfirmaPdfThreads> & { close(): Promise<void> }): SigningRuntime {
  const c = platform.config;
  const service = createSigningService({
    events: platform.events,
    readModels: platform.readModels,
    blobs: platform.blobs,
    clock: platform.clock,
    pdf,
    identity: () => platform.secrets.signingIdentity(),
    seal: async (input) => {
      try {
        return await runSeal(input);
      } catch (error) {
        if (error instanceof JobFailedError && error.code === 'timestamp_unavailable') throw new SigningError('timestamp_unavailable', error.message, error.details ?? {});
        if (error instanceof SigningError) throw error;
        platform.log.error({ err: { name: (error as Error).name, message: (error as Error).message } }, 'signing: seal job failed');
        throw new SigningError('seal_unavailable', 'The document could not be sealed now; finalize again later', {});
      }
    },
    linkKey: () => platform.secrets.signingLinkKey(),
    catchUp: () => platform.projections.catchUp(),
    tenantLocale: (tenantId) => platform.tenancy.state.tenants.get(tenantId)?.locale,
    settings: {
      publicBaseUrl: c.PUBLIC_BASE_URL ? c.PUBLIC_BASE_URL.replace(/\/+$/, '') : null,
      previewTtlSeconds: c.SIGNING_PREVIEW_TTL_SECONDS,
      defaultExpiryDays: c.SIGNING_DEFAULT_EXPIRY_DAYS,
      conservation: c.CONSERVATION_TSA_URL ? { url: c.CONSERVATION_TSA_URL, timeoutMs: c.CONSERVATION_TSA_TIMEOUT_MS, attempts: c.CONSERVATION_TSA_ATTEMPTS } : null,
    },
  });
  const pki = efirmaPkiFromConfig(c);
  const efirma = pki
    ? createEfirmaSigning({
        blobs: platform.blobs,
        clock: platform.clock,
        pki,
        pdf: pdf.efirmaPrepare && pdf.efirmaEmbed ? (pdf as EfirmaPdfThreads) : null,
        service: service.efirmaHooks(),
      })
    : null;
  const activities = createSigningActivities({
    events: platform.events,
    mailer: platform.mailer,
    clock: platform.clock,
    service,
    mailFrom: c.MAIL_FROM,
    publishWebhookEvent: (tenantId, type, data) => platform.publishWebhookEvent(tenantId, type, data),
    // White-label (issue 15): invitations and reminders of a deployment's tenant carry its branding.
    branding: async (tenantId) => {
      const service = brandingOf(platform);
      return service ? forEmail(await service.brandingForTenant(tenantId), DEFAULT_BRANDING) : undefined;
    },
  });
  let dispatcher: SigningDispatcher | null = null;
  return {
    service,
    efirma,
    processManagers: [bindProcessManager(signingLifecycle, activities)],
    async start() {
      dispatcher ??= await startSigningDispatcher({ events: platform.events, readModels: platform.readModels, engine: platform.workflows });
    },
    async stop() {
      await dispatcher?.stop();
      dispatcher = null;
      await pdf.close();
    },
    async caughtUp() {
      await dispatcher?.caughtUp();
    },
  };
}
