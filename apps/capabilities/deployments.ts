/** White-label deployments: `/api/deployments/*`, the provisioning workflow and the branding service. */
import { deploymentsProjection } from '../../projections/deployments/index.ts';
import { createDeploymentsRuntime, type DeploymentsRuntime } from '../../workflows/deployments/runtime.ts';
import type { CapabilityManifest } from '../platform/types.ts';
import type { LogoFetcherOptions } from '../../workflows/deployments/logo.ts';

/**
 * Use cases: the deployment service (routes) and the branding service (`brandingForTenant`,
 * `brandingForHost`, for signing pages, e-mails and the usage page); process managers:
 * `deployment-provisioning` and `deployment-deactivation`; background: the starter that starts them
 * from the log.
 */
export const deploymentsCapability: CapabilityManifest<DeploymentsRuntime> = {
  name: 'deployments',
  summary: 'White-label client deployments: provisioning (tenant, plan, first keys, branding) as a durable workflow, and branding lookups.',
  projections: [deploymentsProjection],
  useCases: (platform) =>
    createDeploymentsRuntime({
      eventStore: platform.events,
      readModels: platform.readModels,
      blobs: () => platform.blobs,
      engine: platform.workflows,
      clock: platform.clock,
      catchUp: () => platform.projections.catchUp(),
      secretKey: () => platform.secrets.deploymentSecretKey(),
      logoTimeoutMs: platform.config.DEPLOYMENT_LOGO_TIMEOUT_MS,
      // Tests reach a loopback HTTPS server this way; no configuration variable can set it.
      testLogoFetch: platform.capabilityTestOptions.deployments?.logoFetch as LogoFetcherOptions | undefined,
      publicBaseUrl: platform.config.PUBLIC_BASE_URL,
      credits: () => platform.credits,
      logger: platform.log,
    }),
  processManagers: (runtime) => runtime.processManagers,
  start: (runtime) => runtime.start(),
  stop: (runtime) => runtime.stop(),
  routes: async () => (await import('../api/routes/deployments/index.ts')).registerDeploymentRoutes,
};
