/**
 * The platform: every port and shared service of a Sello process, built by one function
 * (`createPlatform` in `./platform.ts`) from the validated configuration, and the capability manifest
 * each bounded context exports (`apps/capabilities/*`). Types only, so routes, manifests and tests can
 * import them without loading any adapter.
 */
import type { Logger } from 'pino';
import type { Config } from '../api/config.ts';
import type { ApiApp } from '../api/types.ts';
import type { EventStore } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import type { JobGroup, JobQueue } from '../../infra/ports/job-queue.ts';
import type { BlobStore } from '../../infra/ports/blob-store.ts';
import type { Mailer } from '../../infra/ports/mail.ts';
import type { VectorIndex } from '../../infra/ports/vector-index.ts';
import type { Clock, RegisteredProcessManager, WorkflowEngine } from '../../infra/ports/workflows.ts';
import type { RegistryProvider } from '../../infra/ports/registry-provider.ts';
import type { RateLimiter } from '../../infra/ports/rate-limiter.ts';
import type { IdempotencyStore } from '../../infra/ports/idempotency-store.ts';
import type { Secrets } from '../../infra/secrets/index.ts';
import type { EmailVerifier } from '../../domain/email/verify-email.ts';
import type { CreditLedger } from '../../domain/credits/credit-ledger.ts';
import type { Projection } from '../../projections/projection.ts';
import type { ProjectionRunner } from '../../projections/runner.ts';
import type { TenancyView } from './tenancy-view.ts';
import type { UsageRecorder } from './usage-recorder.ts';

/**
 * What a process is for; it decides what `start()` starts (every port is opened lazily, on first use):
 * - `api`: the HTTP edge: tenancy view, credit follower and stale-reservation sweeper, projections,
 *   the workflow engine with every capability's process managers, and the capabilities' background tasks;
 * - `cli`: operator commands: nothing runs in the background;
 * - `worker`: an inference worker process (`npm run start:worker`): its inference threads and the
 *   consumer of the configured shared queue (`JOB_QUEUE=bullmq` or `kafka`), which feeds them;
 * - `inference`: one inference thread (of an API process's pool or a worker process's): nothing runs in
 *   the background; it runs jobs from the handler table derived from the manifests;
 * - `projector`: a separate projection process: the projection runner only.
 */
export type ProcessKind = 'api' | 'cli' | 'worker' | 'inference' | 'projector';

/** The adapter each port's factory selected from the configuration (`infra/<port>/index.ts`). */
export interface AdapterSelection {
  eventStore: string;
  readModels: string;
  jobQueue: string;
  workflows: string;
  vectorIndex: string;
  blobStore: string;
  mail: string;
  registryProvider: string;
  emailVerifier: string;
  rateLimiter: string;
  idempotency: string;
}

/** Ports and shared services the platform may be given instead of building them (tests, benchmarks). */
export interface PlatformOverrides {
  events?: EventStore;
  readModels?: ReadModelStore;
  jobs?: JobQueue;
  clock?: Clock;
  log?: Logger;
  /**
   * Test-only options of capabilities, by capability name (e.g. `deployments.logoFetch`: the loopback
   * allowance and CA of a test HTTPS server). Never read from configuration: production has none.
   */
  capabilityTestOptions?: Partial<Record<CapabilityName, Record<string, unknown>>>;
}

/**
 * Everything a route, use case, job or background task may use. Ports are opened on first access, so a
 * process that never touches one (a CLI command, an inference worker) never opens it; `close()` closes
 * only what was opened.
 */
export interface Platform {
  readonly kind: ProcessKind;
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  /** {@link PlatformOverrides.capabilityTestOptions} (empty outside tests). */
  readonly capabilityTestOptions: Partial<Record<CapabilityName, Record<string, unknown>>>;
  /** Which adapter each port uses (decided from configuration; nothing is opened to answer). */
  readonly adapters: AdapterSelection;
  readonly events: EventStore;
  readonly readModels: ReadModelStore;
  readonly jobs: JobQueue;
  readonly workflows: WorkflowEngine;
  /** The 512-d face-matching template index. */
  readonly vectorIndex: VectorIndex;
  readonly blobs: BlobStore;
  readonly mailer: Mailer;
  readonly registry: RegistryProvider;
  /** Per-minute and concurrency limits of the edge (`RATE_LIMITER`: memory, or Redis shared by every instance). */
  readonly rateLimiter: RateLimiter;
  /** `Idempotency-Key` records of charged calls (`IDEMPOTENCY_STORE`: SQLite file, or Redis shared by every instance). */
  readonly idempotency: IdempotencyStore;
  /** The e-mail verifier (built on first use: it loads ~120k-domain lists). */
  emailVerifier: EmailVerifier;
  readonly secrets: Secrets;
  readonly tenancy: TenancyView;
  readonly credits: CreditLedger;
  readonly projections: ProjectionRunner;
  /** Buffers usage events and appends them in batches (`flush()` before reading them back). */
  readonly usage: UsageRecorder;
  /** Every capability's manifest, in registration order. */
  readonly capabilities: readonly AnyCapability[];
  /** The use cases of `capability`, built on first use from this platform and kept. */
  use<S>(capability: CapabilityManifest<S>): S;
  /**
   * Appends a webhook-catalog event (`face.verified`, `ocr.completed`, ...) to
   * `webhook-events-<tenantId>`; the webhooks capability delivers it from the log.
   */
  publishWebhookEvent(tenantId: string, type: string, data: Record<string, unknown>, requestId?: string): Promise<void>;
  /** Starts what this process kind runs (see {@link ProcessKind}); idempotent. */
  start(): Promise<void>;
  /** Stops background work (in-flight workflow activities get 5 s) and closes every opened adapter. */
  close(): Promise<void>;
}

/** The capabilities (bounded contexts) of the product, including those still to come. */
export type CapabilityName =
  | 'platform' | 'face' | 'face-matching' | 'ocr' | 'email' | 'registry' | 'webhooks'
  | 'signing' | 'usage' | 'deployments' | 'fingerprint' | 'privacy' | 'privacy-retention';

/** Registers a capability's HTTP routes on the edge, with the capability's use cases. */
export type RouteRegistration<S> = (app: ApiApp, platform: Platform, useCases: S) => void | Promise<void>;

/**
 * What a capability contributes to every process, in one object (`apps/capabilities/<name>.ts`):
 * the worker's handler table, the projection list, the workflow registrations and the route groups are
 * all derived from the list of manifests (`apps/capabilities/index.ts`), never kept by hand.
 * `S` is the type of the capability's use cases (what its routes and background tasks call).
 */
export interface CapabilityManifest<S = undefined> {
  name: CapabilityName;
  /** One line: what the capability does. */
  summary: string;
  /** Typed job definitions and the lazily imported handler module the inference workers run them with. */
  jobs?: JobGroup;
  /** Projections (event -> read model) the projection runner applies and `cli replay` rebuilds. */
  projections?: readonly Projection[];
  /** Builds the capability's use cases from the platform (called once, on first `platform.use`). */
  useCases?: (platform: Platform) => S;
  /** Process managers with their activities, registered on the platform's workflow engine before it runs. */
  processManagers?: (useCases: S) => readonly RegisteredProcessManager[];
  /** Starts the capability's background work (after the workflow engine runs); API processes only. */
  start?: (useCases: S, platform: Platform) => Promise<void>;
  /** Stops what `start` started. */
  stop?: (useCases: S) => Promise<void>;
  /** The route group, imported lazily so non-HTTP processes never load it. */
  routes?: () => Promise<RouteRegistration<S>>;
}

/**
 * A manifest whatever its use-case type: `S` is both produced and consumed by a manifest (invariant), so
 * a list of different capabilities can only be typed with `any` here; `Platform.use` restores the type.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCapability = CapabilityManifest<any>;
