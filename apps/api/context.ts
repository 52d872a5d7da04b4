import { join, resolve } from 'node:path';
import { pino, type Logger } from 'pino';
import type { EventStore } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import type { JobQueue } from '../../infra/ports/job-queue.ts';
import type { BlobStore } from '../../infra/ports/blob-store.ts';
import type { Mailer } from '../../infra/ports/mail.ts';
import type { VectorIndex } from '../../infra/ports/vector-index.ts';
import type { Clock } from '../../infra/ports/workflows.ts';
import { SqliteEventStore } from '../../infra/event-store/sqlite/sqlite-event-store.ts';
import { SqliteReadModelStore } from '../../infra/read-models/sqlite/sqlite-read-models.ts';
import { PostgresReadModelStore } from '../../infra/read-models/postgres/postgres-read-models.ts';
import { WorkerPoolJobQueue } from '../../infra/job-queue/worker-pool/worker-pool-queue.ts';
import { LocalDirBlobStore } from '../../infra/blob-store/local-dir/local-dir-blob-store.ts';
import { OutboxMailer } from '../../infra/mail/outbox/outbox-mailer.ts';
import { SmtpMailer } from '../../infra/mail/smtp/smtp-mailer.ts';
import { CreditLedger } from '../../domain/credits/credit-ledger.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import { projections } from '../../projections/index.ts';
import type { Config } from './config.ts';
import { TenancyView } from './tenancy-view.ts';
import { createVectorIndex } from './vector-index.ts';
import { UsageRecorder } from './usage-recorder.ts';

/** Everything a route, hook or background task may use. Built once per process by {@link createContext}. */
export interface AppContext {
  config: Config;
  log: Logger;
  clock: Clock;
  events: EventStore;
  readModels: ReadModelStore;
  jobs: JobQueue;
  blobs: BlobStore;
  mailer: Mailer;
  vectorIndex: VectorIndex;
  tenancy: TenancyView;
  credits: CreditLedger;
  projections: ProjectionRunner;
  /** Buffers usage events and appends them in batches (flush() before reading them back). */
  usage: UsageRecorder;
  /**
   * Appends a webhook-catalog event (`face.verified`, `ocr.completed`, ...) to
   * `webhook-events-<tenantId>`; the webhooks context delivers it from the log.
   */
  publishWebhookEvent(tenantId: string, type: string, data: Record<string, unknown>, requestId?: string): Promise<void>;
  /** Stops subscriptions and closes every adapter. */
  close(): Promise<void>;
}

export interface ContextOverrides {
  events?: EventStore;
  readModels?: ReadModelStore;
  jobs?: JobQueue;
  clock?: Clock;
  log?: Logger;
}

/** Builds the context: the embedded adapter for each port unless configuration selects the scaled-out one. */
export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const dataDir = resolve(config.DATA_DIR);
  const log =
    overrides.log ??
    pino({
      level: config.LOG_LEVEL,
      redact: { paths: ['req.headers.authorization', '*.key', '*.secret', '*.password', '*.api_key'], censor: '[redacted]' },
      serializers: {
        // Request logs carry the path only: query strings can hold personal data (e-mail addresses).
        req: (req: { id?: string; method?: string; url?: string; ip?: string }) => ({ id: req.id, method: req.method, path: req.url?.split('?')[0], ip: req.ip }),
      },
    });
  const clock = overrides.clock ?? { now: () => Date.now() };
  const events = overrides.events ?? new SqliteEventStore(join(dataDir, 'events.sqlite'));
  const readModels =
    overrides.readModels ??
    (config.DATABASE_URL ? PostgresReadModelStore.create(config.DATABASE_URL, config.DATABASE_SCHEMA) : new SqliteReadModelStore(join(dataDir, 'read-models.sqlite')));
  const jobs = overrides.jobs ?? new WorkerPoolJobQueue({ threads: config.WORKER_THREADS, timeoutMs: config.JOB_TIMEOUT_MS });
  const blobs = new LocalDirBlobStore(join(dataDir, 'blobs'));
  const mailer = config.SMTP_URL ? new SmtpMailer(config.SMTP_URL) : new OutboxMailer(join(dataDir, 'outbox'));
  const vectorIndex = await createVectorIndex(config, dataDir);
  const tenancy = new TenancyView(events);
  await tenancy.start();
  const credits = new CreditLedger(events, () => clock.now());
  const creditsFollower = await credits.follow();
  // A reservation is settled within the request (job timeout JOB_TIMEOUT_MS); one still open after
  // 15 minutes belongs to a process that died mid-request. Checked at start and every 5 minutes.
  const STALE_RESERVATION_MS = 15 * 60_000;
  const sweep = () => credits.releaseStale(STALE_RESERVATION_MS).catch((err: unknown) => log.error({ err }, 'could not release stale credit reservations'));
  await sweep();
  const sweeper = setInterval(() => void sweep(), 5 * 60_000);
  sweeper.unref();
  const runner = new ProjectionRunner(events, projections, { store: readModels, vectorIndex }, (name, error) =>
    log.error({ err: error, projection: name }, 'projection failed; it will retry'),
  );
  await runner.start();
  const usage = new UsageRecorder(events, log);

  return {
    config,
    log,
    clock,
    events,
    readModels,
    jobs,
    blobs,
    mailer,
    vectorIndex,
    tenancy,
    credits,
    projections: runner,
    usage,
    async publishWebhookEvent(tenantId, type, data, requestId) {
      await events.append(`webhook-events-${tenantId}`, [
        { type, data, metadata: { tenant_id: tenantId, ...(requestId ? { request_id: requestId } : {}), occurred_at: new Date(clock.now()).toISOString() } },
      ]);
    },
    async close() {
      clearInterval(sweeper);
      await usage.flush();
      await runner.stop();
      await creditsFollower.stop();
      await tenancy.stop();
      await jobs.close();
      await mailer.close();
      await vectorIndex.close();
      await readModels.close();
      await events.close();
    },
  };
}
