/**
 * The signing capability's runtime, built once per process from the platform: the use cases, the
 * `signing-lifecycle` process manager with its activities, and the dispatcher that feeds it from the log.
 */
import type { Platform } from '../../apps/platform/types.ts';
import { bindProcessManager, type RegisteredProcessManager } from '../../infra/ports/workflows.ts';
import { createSigningActivities } from './activities.ts';
import { startSigningDispatcher, type SigningDispatcher } from './dispatcher.ts';
import { signingLifecycle } from './process.ts';
import { createSigningService, type SigningService } from './service.ts';

export interface SigningRuntime {
  service: SigningService;
  processManagers: readonly RegisteredProcessManager[];
  /** Starts the dispatcher (API processes). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves when every signing event logged so far has reached the workflow engine. */
  caughtUp(): Promise<void>;
}

export function createSigningRuntime(platform: Platform): SigningRuntime {
  const c = platform.config;
  const service = createSigningService({
    events: platform.events,
    readModels: platform.readModels,
    blobs: platform.blobs,
    clock: platform.clock,
    identity: () => platform.secrets.signingIdentity(),
    linkKey: () => platform.secrets.signingLinkKey(),
    catchUp: () => platform.projections.catchUp(),
    settings: {
      publicBaseUrl: c.PUBLIC_BASE_URL ? c.PUBLIC_BASE_URL.replace(/\/+$/, '') : null,
      tsa: c.SIGNING_TSA_URL ? { url: c.SIGNING_TSA_URL, timeoutMs: c.SIGNING_TSA_TIMEOUT_MS, attempts: c.SIGNING_TSA_ATTEMPTS } : null,
      previewTtlSeconds: c.SIGNING_PREVIEW_TTL_SECONDS,
      defaultExpiryDays: c.SIGNING_DEFAULT_EXPIRY_DAYS,
    },
  });
  const activities = createSigningActivities({
    events: platform.events,
    mailer: platform.mailer,
    clock: platform.clock,
    service,
    mailFrom: c.MAIL_FROM,
    publishWebhookEvent: (tenantId, type, data) => platform.publishWebhookEvent(tenantId, type, data),
  });
  let dispatcher: SigningDispatcher | null = null;
  return {
    service,
    processManagers: [bindProcessManager(signingLifecycle, activities)],
    async start() {
      dispatcher ??= await startSigningDispatcher({ events: platform.events, readModels: platform.readModels, engine: platform.workflows });
    },
    async stop() {
      await dispatcher?.stop();
      dispatcher = null;
    },
    async caughtUp() {
      await dispatcher?.caughtUp();
    },
  };
}
