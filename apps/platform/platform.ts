/**
 * The composition root: `createPlatform(config, { kind })` builds every port from the validated
 * configuration through its factory (`infra/<port>/index.ts`) and derives the projection list, the
 * workflow registrations and (in `apps/worker`) the job handler table from the capability manifests
 * (`apps/capabilities`). `apps/api`, `apps/cli`, `apps/worker` and any later process build it the same
 * way; `start()` starts only what that process kind runs.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { pino, type Logger, type LoggerOptions } from 'pino';
import type { Config } from '../api/config.ts';
import type { EventStore } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import type { JobConsumer, JobQueue } from '../../infra/ports/job-queue.ts';
import type { BlobStore } from '../../infra/ports/blob-store.ts';
import type { Mailer } from '../../infra/ports/mail.ts';
import type { VectorIndex } from '../../infra/ports/vector-index.ts';
import type { Clock, WorkflowEngine } from '../../infra/ports/workflows.ts';
import type { RegistryProvider } from '../../infra/ports/registry-provider.ts';
import { createEventStore, selectEventStore } from '../../infra/event-store/index.ts';
import { createReadModels, selectReadModels } from '../../infra/read-models/index.ts';
import { createInferencePool, createJobConsumer, createJobQueue, inferenceThreads, selectJobQueue } from '../../infra/job-queue/index.ts';
import { createWorkflowEngine, selectWorkflows } from '../../infra/workflows/index.ts';
import { createVectorIndex, selectVectorIndex } from '../../infra/vector-index/index.ts';
import { createBlobStore, selectBlobStore } from '../../infra/blob-store/index.ts';
import { createMailer, selectMailer } from '../../infra/mail/index.ts';
import { createRegistryProvider, selectRegistryProvider } from '../../infra/registry-provider/index.ts';
import { createEmailVerifier, selectEmailVerifier } from '../../infra/email-verifier/index.ts';
import { createRateLimiter, selectRateLimiter } from '../../infra/rate-limiter/index.ts';
import type { RateLimiter } from '../../infra/ports/rate-limiter.ts';
import { createIdempotencyStore, selectIdempotencyStore } from '../../infra/idempotency/index.ts';
import type { IdempotencyStore } from '../../infra/ports/idempotency-store.ts';
import { createSecrets, type Secrets } from '../../infra/secrets/index.ts';
import type { EmailVerifier } from '../../domain/email/verify-email.ts';
import { CreditLedger } from '../../domain/credits/credit-ledger.ts';
import { TEMPLATE_DIMENSION } from '../../domain/face-matching/template.ts';
import { webhookEventsStream } from '../../domain/webhooks/catalog.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import { capabilities, projectionsOf } from '../capabilities/index.ts';
import { TenancyView } from './tenancy-view.ts';
import { UsageRecorder, UsageWriterThread, inlineUsageSink, readsUsageEvents, type UsageSink } from './usage-recorder.ts';
import type { AdapterSelection, AnyCapability, CapabilityManifest, CapabilityName, Platform, PlatformOverrides, ProcessKind } from './types.ts';

export type { Platform, PlatformOverrides, ProcessKind } from './types.ts';

/** The inference worker entry every job-queue adapter runs (registers tsx, then loads `apps/worker/worker.ts`). */
export const WORKER_ENTRY = fileURLToPath(new URL('../worker/worker-entry.mjs', import.meta.url));

/**
 * Credit reservations carry their holder's incarnation and a lease (CREDIT_RESERVATION_LEASE_MS). At
 * start-up of the only API process of a store (CREDIT_HOLDERS=single, the embedded deployment) every
 * reservation of another incarnation is released at once; expired leases are released at start and
 * every SWEEP_INTERVAL_MS (from the followed snapshot: no IO unless something is released). A
 * reservation recorded without a lease (older versions) is released after STALE_RESERVATION_MS.
 */
const STALE_RESERVATION_MS = 15 * 60_000;
const SWEEP_INTERVAL_MS = 10_000;

/** Structured JSON logs; keys, secrets and query strings (they can hold e-mail addresses) never logged. */
function createLogger(config: Config): Logger {
  return pino(loggerOptions(config.LOG_LEVEL));
}

/**
 * The pino options of the service's logs at `level` (redaction of keys and secrets; the request line
 * keeps the path without its query string). Exported so a test can log to a file exactly as the service
 * does (the privacy byte scan reads the logs).
 */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    // `busboyOptions.headers`: @fastify/multipart logs every request header at trace ("Providing options to
    // busboy"): the API key in Authorization, the caller's User-Agent (personal data, issue 28).
    redact: { paths: ['req.headers.authorization', 'busboyOptions.headers', '*.key', '*.secret', '*.password', '*.api_key'], censor: '[redacted]' },
    serializers: {
      req: (req: { id?: string; method?: string; url?: string; ip?: string }) => ({ id: req.id, method: req.method, path: req.url?.split('?')[0], ip: req.ip }),
    },
  };
}

/**
 * Who may hold credit reservations on the store: `single` (one API process: the embedded deployment,
 * the SQLite event store) unless CREDIT_HOLDERS says otherwise; `shared` for a scaled-out event store.
 */
export function creditHolders(config: Config): 'single' | 'shared' {
  return config.CREDIT_HOLDERS ?? (config.EVENT_STORE === 'sqlite' ? 'single' : 'shared');
}

/** Which adapter each port's factory picks for `config` (nothing is opened). */
export function selectAdapters(config: Config): AdapterSelection {
  return {
    eventStore: selectEventStore(config),
    readModels: selectReadModels(config),
    jobQueue: selectJobQueue(config),
    workflows: selectWorkflows(config),
    vectorIndex: selectVectorIndex(config),
    blobStore: selectBlobStore(config),
    mail: selectMailer(config),
    registryProvider: selectRegistryProvider(config),
    emailVerifier: selectEmailVerifier(config),
    rateLimiter: selectRateLimiter(config),
    idempotency: selectIdempotencyStore(config),
  };
}

/** Memoises `create`; `opened()` tells whether it ran. */
function lazy<T>(create: () => T): { get(): T; opened(): boolean; set(value: T): void } {
  let value: { v: T } | null = null;
  return {
    get: () => (value ??= { v: create() }).v,
    opened: () => value !== null,
    set: (v) => {
      value = { v };
    },
  };
}

class SelloPlatform implements Platform {
  readonly adapters: AdapterSelection;
  readonly log: Logger;
  readonly clock: Clock;
  readonly capabilityTestOptions: Partial<Record<CapabilityName, Record<string, unknown>>>;
  readonly capabilities: readonly AnyCapability[] = capabilities;
  /** This boot of this process (a random id): the holder recorded on its credit reservations. */
  readonly incarnation = `inc_${randomUUID().replace(/-/g, '')}`;
  private readonly ports;
  private readonly useCases = new Map<AnyCapability, unknown>();
  private started = false;
  private readonly stops: (() => Promise<void>)[] = [];
  /**
   * Usage events are written, and the usage-only projections run, on the usage-writer thread: API
   * processes with `USAGE_WRITER=thread` whose event store and read models come from configuration
   * (another thread can open them), not from in-memory overrides.
   */
  private readonly usageThread: boolean;

  constructor(
    readonly kind: ProcessKind,
    readonly config: Config,
    overrides: PlatformOverrides,
  ) {
    this.adapters = selectAdapters(config);
    this.usageThread = kind === 'api' && config.USAGE_WRITER === 'thread' && !overrides.events && !overrides.readModels;
    this.log = overrides.log ?? createLogger(config);
    this.clock = overrides.clock ?? { now: () => Date.now() };
    this.capabilityTestOptions = overrides.capabilityTestOptions ?? {};
    const clock = this.clock;
    this.ports = {
      events: lazy<EventStore>(() => overrides.events ?? createEventStore(config)),
      readModels: lazy<ReadModelStore>(() => overrides.readModels ?? createReadModels(config)),
      jobs: lazy<JobQueue>(() => overrides.jobs ?? createJobQueue(config, { workerFile: WORKER_ENTRY, blobs: () => this.blobs, log: this.log })),
      workflows: lazy<WorkflowEngine>(() => createWorkflowEngine(config, { clock, logger: this.log })),
      vectorIndex: lazy<VectorIndex>(() => createVectorIndex(config, { dimensions: TEMPLATE_DIMENSION, dir: 'vectors' })),
      blobs: lazy<BlobStore>(() => createBlobStore(config)),
      mailer: lazy<Mailer>(() => createMailer(config)),
      registry: lazy<RegistryProvider>(() => createRegistryProvider(config)),
      emailVerifier: lazy<EmailVerifier>(() => createEmailVerifier(config)),
      rateLimiter: lazy<RateLimiter>(() => createRateLimiter(config)),
      idempotency: lazy<IdempotencyStore>(() => createIdempotencyStore(config)),
      secrets: lazy<Secrets>(() => createSecrets(config)),
      tenancy: lazy<TenancyView>(() => new TenancyView(this.events)),
      credits: lazy<CreditLedger>(() => {
        const ledger = new CreditLedger(this.events, () => clock.now(), undefined, { incarnation: this.incarnation, leaseMs: config.CREDIT_RESERVATION_LEASE_MS });
        // White-label clients reserve from their payer's plan allowance (docs/deployments.md, Credits).
        ledger.planOf = (tenantId) => this.tenancy.state.tenants.get(tenantId)?.plan;
        return ledger;
      }),
      usageSink: lazy<UsageSink>(() => (this.usageThread ? new UsageWriterThread(config, this.log) : inlineUsageSink(this.events))),
      usage: lazy<UsageRecorder>(() => new UsageRecorder(this.usageSink, this.log)),
      projections: lazy<ProjectionRunner>(
        () =>
          new ProjectionRunner(
            this.events,
            projectionsOf(this.capabilities).filter((p) => !(this.usageThread && readsUsageEvents(p))),
            { store: this.readModels, vectorIndex: this.vectorIndex },
            (name, error) => this.log.error({ err: error, projection: name }, 'projection failed; it will retry'),
            this.usageThread ? () => this.usage.catchUp() : undefined,
          ),
      ),
    };
  }

  get events(): EventStore { return this.ports.events.get(); }
  get readModels(): ReadModelStore { return this.ports.readModels.get(); }
  get jobs(): JobQueue { return this.ports.jobs.get(); }
  get workflows(): WorkflowEngine { return this.ports.workflows.get(); }
  get vectorIndex(): VectorIndex { return this.ports.vectorIndex.get(); }
  get blobs(): BlobStore { return this.ports.blobs.get(); }
  get mailer(): Mailer { return this.ports.mailer.get(); }
  get registry(): RegistryProvider { return this.ports.registry.get(); }
  get rateLimiter(): RateLimiter { return this.ports.rateLimiter.get(); }
  get idempotency(): IdempotencyStore { return this.ports.idempotency.get(); }
  get emailVerifier(): EmailVerifier { return this.ports.emailVerifier.get(); }
  set emailVerifier(verifier: EmailVerifier) { this.ports.emailVerifier.set(verifier); }
  get secrets(): Secrets { return this.ports.secrets.get(); }
  get tenancy(): TenancyView { return this.ports.tenancy.get(); }
  get credits(): CreditLedger { return this.ports.credits.get(); }
  get usage(): UsageRecorder { return this.ports.usage.get(); }
  get projections(): ProjectionRunner { return this.ports.projections.get(); }
  private get usageSink(): UsageSink { return this.ports.usageSink.get(); }

  use<S>(capability: CapabilityManifest<S>): S {
    if (!this.useCases.has(capability)) this.useCases.set(capability, capability.useCases ? capability.useCases(this) : undefined);
    return this.useCases.get(capability) as S;
  }

  async publishWebhookEvent(tenantId: string, type: string, data: Record<string, unknown>, requestId?: string): Promise<void> {
    await this.events.append(webhookEventsStream(tenantId), [
      { type, data, metadata: { tenant_id: tenantId, ...(requestId ? { request_id: requestId } : {}), occurred_at: new Date(this.clock.now()).toISOString() } },
    ]);
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.kind === 'api') await this.startApi();
    else if (this.kind === 'worker') await this.startWorker();
    else if (this.kind === 'projector') {
      await this.projections.start();
      this.stops.push(() => this.projections.stop());
    }
  }

  private async startApi(): Promise<void> {
    await this.tenancy.start();
    this.stops.push(() => this.tenancy.stop());
    const follower = await this.credits.follow();
    this.stops.push(() => follower.stop());
    const sweep = (otherHolders: boolean) =>
      this.credits
        .releaseAbandoned({ otherHolders, legacyMaxAgeMs: STALE_RESERVATION_MS })
        .then((released) => {
          if (released > 0) this.log.info({ released, incarnation: this.incarnation }, 'released credit reservations of a process that is gone');
        })
        .catch((err: unknown) => this.log.error({ err }, 'could not release abandoned credit reservations'));
    await sweep(creditHolders(this.config) === 'single');
    const sweeper = setInterval(() => void sweep(false), SWEEP_INTERVAL_MS);
    sweeper.unref();
    this.stops.push(async () => clearInterval(sweeper));
    const sink = this.usageSink;
    if (sink instanceof UsageWriterThread) await sink.started();
    await this.projections.start();
    this.stops.push(() => this.projections.stop());
    // Workflows: every capability's process managers are registered before the engine runs, so timers
    // and activities found after a restart have their handlers.
    for (const capability of this.capabilities) {
      if (capability.processManagers) for (const pm of capability.processManagers(this.use(capability))) pm.register(this.workflows);
    }
    await this.workflows.run();
    this.stops.push(() => this.workflows.stop(5_000));
    for (const capability of this.capabilities) {
      if (!capability.start) continue;
      const useCases = this.use(capability);
      await capability.start(useCases, this);
      if (capability.stop) this.stops.push(() => capability.stop!(useCases));
    }
  }

  /**
   * A worker process: its inference threads, fed by the consumer of the configured shared queue. Closing
   * stops the consumer first (it finishes and answers the running jobs), then the threads.
   */
  private async startWorker(): Promise<void> {
    const pool = createInferencePool(this.config, { workerFile: WORKER_ENTRY });
    let consumer: JobConsumer | undefined;
    const stop = async (): Promise<void> => {
      await consumer?.close();
      await pool.close();
    };
    try {
      consumer = createJobConsumer(this.config, { workerFile: WORKER_ENTRY, pool, concurrency: inferenceThreads(this.config), blobs: () => this.blobs, log: this.log });
      await consumer.ready();
    } catch (error) {
      await stop(); // createPlatform rejects: nobody else would stop the threads
      throw error;
    }
    this.stops.push(stop);
  }

  async close(): Promise<void> {
    // Background work stops in the reverse order it started (capabilities, engine, projections, ...).
    for (const stop of this.stops.splice(0).reverse()) await stop();
    const p = this.ports;
    if (p.usage.opened()) await p.usage.get().close();
    else if (p.usageSink.opened()) await p.usageSink.get().close();
    if (p.jobs.opened()) await p.jobs.get().close();
    if (p.mailer.opened()) await p.mailer.get().close();
    if (p.registry.opened()) await p.registry.get().close();
    if (p.rateLimiter.opened()) await p.rateLimiter.get().close();
    if (p.idempotency.opened()) await p.idempotency.get().close();
    if (p.vectorIndex.opened()) await p.vectorIndex.get().close();
    if (p.readModels.opened()) await p.readModels.get().close();
    if (p.events.opened()) await p.events.get().close();
  }
}

/**
 * Builds the platform of a process of `kind` from `config` and starts what that kind runs
 * (see {@link ProcessKind}). Ports are opened on first use.
 * @throws Error when a port's configuration is incomplete (e.g. `READ_MODELS=postgres` without
 *   `DATABASE_URL`) at the moment that port is first used.
 */
export async function createPlatform(config: Config, options: { kind: ProcessKind; overrides?: PlatformOverrides }): Promise<Platform> {
  const platform = new SelloPlatform(options.kind, config, options.overrides ?? {});
  await platform.start();
  return platform;
}

/** Replaces the platform's e-mail verifier (tests: a verifier that fails, to exercise the 500 answer). */
export function overrideEmailVerifier(platform: Platform, verifier: EmailVerifier): void {
  platform.emailVerifier = verifier;
}
