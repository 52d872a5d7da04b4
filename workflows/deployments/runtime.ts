import type { BlobStore } from '../../infra/ports/blob-store.ts';
import type { EventStore } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import { bindProcessManager, type Clock, type RegisteredProcessManager, type WorkflowEngine } from '../../infra/ports/workflows.ts';
import { createSecretBox } from '../../domain/webhooks/secret-box.ts';
import { createDeploymentActivities } from './activities.ts';
import { createBrandingService, type BrandingService } from './branding.ts';
import { createLogoFetcher, type LogoFetcher, type LogoFetcherOptions } from './logo.ts';
import { deactivationProcess, provisioningProcess } from './process.ts';
import { createDeploymentService, type ClientCreditAccounts, type DeploymentService } from './service.ts';
import { startDeploymentStarter, type DeploymentStarter } from './starter.ts';

export interface DeploymentsRuntimeDeps {
  eventStore: EventStore;
  readModels: ReadModelStore;
  blobs: () => BlobStore;
  engine: WorkflowEngine;
  clock: Clock;
  catchUp: () => Promise<void>;
  /** 32-byte key sealing issued keys until revealed (`platform.secrets.deploymentSecretKey()`). */
  secretKey: () => Buffer;
  logoTimeoutMs: number;
  /** TESTS ONLY: the logo fetch's loopback allowance and extra CA (from `PlatformOverrides.capabilityTestOptions`). */
  testLogoFetch?: LogoFetcherOptions;
  publicBaseUrl?: string;
  /** The credit ledger (`platform.credits`): links a client tenant to its owner's credits and sets its cap. */
  credits: () => ClientCreditAccounts;
  logger?: { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}

export interface DeploymentsRuntime {
  service: DeploymentService;
  branding: BrandingService;
  processManagers: readonly RegisteredProcessManager[];
  /** Starts the workflow starter (after the engine runs). */
  start(): Promise<void>;
  /** Resolves once every provisioning request in the log has its workflow started. */
  starterCaughtUp(): Promise<void>;
  stop(): Promise<void>;
}

/** Wires the deployments capability: service (routes), branding lookups, provisioning workflows, starter. */
export function createDeploymentsRuntime(deps: DeploymentsRuntimeDeps): DeploymentsRuntime {
  let fetcher: LogoFetcher | null = null;
  const logoFetcher = () => (fetcher ??= createLogoFetcher({ timeoutMs: deps.logoTimeoutMs, ...deps.testLogoFetch }));
  let box: ReturnType<typeof createSecretBox> | null = null;
  // The key is read on first use, so processes that never provision never create the key file.
  const secrets = {
    seal: (p: string, aad: string) => (box ??= createSecretBox(deps.secretKey())).seal(p, aad),
    open: (c: string, aad: string) => (box ??= createSecretBox(deps.secretKey())).open(c, aad),
  };
  const lazyBlobs: BlobStore = {
    put: (...a) => deps.blobs().put(...a),
    get: (k) => deps.blobs().get(k),
    delete: (k) => deps.blobs().delete(k),
    list: (p) => deps.blobs().list(p),
    putStream: (...a) => deps.blobs().putStream(...a),
    getStream: (k) => deps.blobs().getStream(k),
  };
  const credits: ClientCreditAccounts = {
    link: (...a) => deps.credits().link(...a),
    setCap: (...a) => deps.credits().setCap(...a),
    snapshot: (t) => deps.credits().snapshot(t),
  };
  const service = createDeploymentService({ eventStore: deps.eventStore, readModels: deps.readModels, blobs: lazyBlobs, secrets, clock: deps.clock, catchUp: deps.catchUp, credits });
  let stopping = false;
  const activities = createDeploymentActivities({
    eventStore: deps.eventStore,
    blobs: lazyBlobs,
    secrets,
    logoFetcher,
    clock: deps.clock,
    credits,
    stopping: () => stopping,
    logger: deps.logger,
  });
  const pick = (names: string[]) => Object.fromEntries(names.map((n) => [n, activities[n]!]));
  const processManagers = [
    bindProcessManager(provisioningProcess, pick(['deployments.step', 'deployments.activate', 'deployments.recordFailure'])),
    bindProcessManager(deactivationProcess, pick(['deployments.revokeKeys'])),
  ];
  let starter: DeploymentStarter | null = null;
  return {
    service,
    branding: createBrandingService({ readModels: deps.readModels, publicBaseUrl: deps.publicBaseUrl }),
    processManagers,
    async start() {
      starter ??= await startDeploymentStarter({ eventStore: deps.eventStore, readModels: deps.readModels, engine: deps.engine });
    },
    async starterCaughtUp() {
      await starter?.caughtUp();
    },
    async stop() {
      stopping = true;
      await starter?.stop();
      starter = null;
      await fetcher?.close();
      fetcher = null;
    },
  };
}
