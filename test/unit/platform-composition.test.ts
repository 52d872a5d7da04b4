import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loadConfig, type Config } from '../../apps/api/config.ts';
import { createPlatform, selectAdapters } from '../../apps/platform/platform.ts';
import { capabilities, jobTableOf, projectionsOf } from '../../apps/capabilities/index.ts';
import { webhooksCapability } from '../../apps/capabilities/webhooks.ts';
import { createHandlerTable } from '../../apps/worker/handlers.ts';
import { defineJobs } from '../../infra/ports/job-queue.ts';
import { SqliteEventStore } from '../../infra/event-store/sqlite/sqlite-event-store.ts';
import { SealingEventStore } from '../../infra/privacy/sealing-event-store.ts';
import { SqliteReadModelStore } from '../../infra/read-models/sqlite/sqlite-read-models.ts';
import { PostgresReadModelStore } from '../../infra/read-models/postgres/postgres-read-models.ts';
import { OutboxMailer } from '../../infra/mail/outbox/outbox-mailer.ts';
import { SmtpMailer } from '../../infra/mail/smtp/smtp-mailer.ts';
import { SandboxRegistryProvider } from '../../infra/registry-provider/sandbox/sandbox-provider.ts';
import { HttpRegistryProvider } from '../../infra/registry-provider/http/http-provider.ts';
import { LocalDirBlobStore } from '../../infra/blob-store/local-dir/local-dir-blob-store.ts';
import { EmbeddedVectorIndex } from '../../infra/vector-index/embedded/index.ts';
import { WorkerPoolJobQueue } from '../../infra/job-queue/worker-pool/worker-pool-queue.ts';
import { KafkaJobQueue } from '../../infra/job-queue/kafka/kafka-queue.ts';

const dirs: string[] = [];
const silent = pino({ level: 'silent' });

function configFor(overrides: Partial<Record<keyof Config, unknown>> = {}): Config {
  const dir = mkdtempSync(join(tmpdir(), 'sello-platform-'));
  dirs.push(dir);
  return loadConfig({}, { DATA_DIR: dir, LOG_LEVEL: 'silent', WORKER_THREADS: 1, ...overrides });
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('composition root', () => {
  it('selects the embedded adapter of every port by default', () => {
    expect(selectAdapters(configFor())).toEqual({
      eventStore: 'sqlite',
      readModels: 'sqlite',
      jobQueue: 'worker-threads',
      workflows: 'sqlite',
      vectorIndex: 'embedded',
      blobStore: 'local',
      mail: 'outbox',
      registryProvider: 'sandbox',
      emailVerifier: 'dns-smtp',
      rateLimiter: 'memory',
      idempotency: 'sqlite',
    });
  });

  it('switches each port alone from configuration', () => {
    const a = selectAdapters(configFor({ DATABASE_URL: 'postgres://u@127.0.0.1:1/x', SMTP_URL: 'smtp://127.0.0.1:2525', REGISTRY_PROVIDER: 'http', REGISTRY_PROVIDER_URL: 'https://registry.example' }));
    expect(a).toMatchObject({ eventStore: 'sqlite', readModels: 'postgres', mail: 'smtp', registryProvider: 'http', jobQueue: 'worker-threads' });
    // An explicit selector wins over the presence of a URL.
    expect(selectAdapters(configFor({ DATABASE_URL: 'postgres://u@127.0.0.1:1/x', READ_MODELS: 'sqlite', SMTP_URL: 'smtp://h', MAIL: 'outbox' }))).toMatchObject({ readModels: 'sqlite', mail: 'outbox' });
    expect(() => configFor({ EVENT_STORE: 'kafka' })).toThrow(/EVENT_STORE/);
  });

  it('an api process opens the selected adapters and starts its background work', async () => {
    const platform = await createPlatform(configFor(), { kind: 'api', overrides: { log: silent } });
    try {
      expect(platform.kind).toBe('api');
      expect(platform.events).toBeInstanceOf(SealingEventStore);
      expect((platform.events as SealingEventStore).inner).toBeInstanceOf(SqliteEventStore);
      expect(platform.readModels).toBeInstanceOf(SqliteReadModelStore);
      expect(platform.jobs).toBeInstanceOf(WorkerPoolJobQueue);
      expect(platform.vectorIndex).toBeInstanceOf(EmbeddedVectorIndex);
      expect(platform.blobs).toBeInstanceOf(LocalDirBlobStore);
      expect(platform.mailer).toBeInstanceOf(OutboxMailer);
      expect(platform.registry).toBeInstanceOf(SandboxRegistryProvider);
      // The workflow engine runs, with the process managers the manifests declare registered on it.
      expect(platform.use(webhooksCapability).processManagers.map((pm) => pm.name)).toEqual(['webhook-delivery']);
      await expect(platform.workflows.start('no-such-workflow', 'wf-1', {})).rejects.toThrow(/not registered/);
      // A key generated once is reused (same bytes on the second call).
      expect(platform.secrets.webhookSecretKey().equals(platform.secrets.webhookSecretKey())).toBe(true);
    } finally {
      await platform.close();
    }
  });

  it('a cli process builds the same platform but starts nothing, and reads the same log', async () => {
    const config = configFor({ SMTP_URL: 'smtp://127.0.0.1:2525', REGISTRY_PROVIDER: 'http', REGISTRY_PROVIDER_URL: 'https://registry.example' });
    const cli = await createPlatform(config, { kind: 'cli', overrides: { log: silent } });
    try {
      expect(cli.kind).toBe('cli');
      expect(cli.mailer).toBeInstanceOf(SmtpMailer);
      expect(cli.registry).toBeInstanceOf(HttpRegistryProvider);
      await cli.events.append('probe-1', [{ type: 'probed', data: {} }]);
      expect(await cli.events.headPosition()).toBe(1);
    } finally {
      await cli.close();
    }
  });

  it('an inference thread opens no store until asked, and a projector runs only the projections', async () => {
    const thread = await createPlatform(configFor(), { kind: 'inference', overrides: { log: silent } });
    expect(thread.adapters.jobQueue).toBe('worker-threads');
    await thread.close(); // nothing was opened: closing touches no adapter

    const lazyPg = await createPlatform(configFor({ READ_MODELS: 'postgres', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }), { kind: 'cli', overrides: { log: silent } });
    // Selected but not opened until used: the bad URL fails only on first use.
    expect(lazyPg.adapters.readModels).toBe('postgres');
    expect(lazyPg.readModels).toBeInstanceOf(PostgresReadModelStore);
    await lazyPg.close();

    const p = await createPlatform(configFor(), { kind: 'projector', overrides: { log: silent } });
    try {
      await p.events.append('tenant-t1', [{ type: 'TenantCreated', data: { tenant_id: 't1', name: 'x', plan: 'free', created_at: new Date(0).toISOString() }, metadata: { tenant_id: 't1' } }]);
      await p.projections.catchUp();
      expect(await p.readModels.getCheckpoint('tenants')).toBeGreaterThan(0);
    } finally {
      await p.close();
    }
  });

  it('a worker process starts the consumer of the configured shared queue, and refuses the in-process one', async () => {
    await expect(createPlatform(configFor(), { kind: 'worker', overrides: { log: silent } })).rejects.toThrow(/JOB_QUEUE=bullmq .*JOB_QUEUE=kafka/);
    // Kafka's claim check needs a store every process reaches, and brokers.
    await expect(createPlatform(configFor({ JOB_QUEUE: 'kafka', KAFKA_BROKERS: '127.0.0.1:1' }), { kind: 'worker', overrides: { log: silent } })).rejects.toThrow(/BLOB_STORE=s3/);
    await expect(createPlatform(configFor({ JOB_QUEUE: 'kafka', BLOB_STORE: 's3' }), { kind: 'worker', overrides: { log: silent } })).rejects.toThrow(/KAFKA_BROKERS/);
    const s3 = { BLOB_STORE: 's3', S3_ENDPOINT: 'http://127.0.0.1:1', S3_ACCESS_KEY: 'k', S3_SECRET_KEY: 's' };
    const api = await createPlatform(configFor({ JOB_QUEUE: 'kafka', KAFKA_BROKERS: '127.0.0.1:1', ...s3 }), { kind: 'cli', overrides: { log: silent } });
    expect(api.adapters.jobQueue).toBe('kafka');
    expect(api.jobs).toBeInstanceOf(KafkaJobQueue); // opened lazily: no broker needed to build it
    await api.close();
    expect(() => configFor({ KAFKA_BROKERS: 'no-port' })).toThrow(/KAFKA_BROKERS.*host:port/s);
  });

  it('derives the projection list and the job handler table from the manifests', () => {
    expect(projectionsOf(capabilities).map((p) => p.name)).toEqual(['tenants', 'api-keys', 'usage-events', 'webhooks', 'face-embeddings', 'signing-documents', 'usage-analytics', 'usage-exports', 'fingerprint-templates', 'deployments']);
    const table = jobTableOf(capabilities);
    expect([...table.keys()].sort()).toEqual(
      ['face.analyze', 'face.descriptor', 'face.detect', 'face.landmarks', 'face.liveness', 'face.verify', 'face.warmup', 'fingerprint.extract', 'ocr.authenticity', 'ocr.extractDocument', 'ocr.extractId', 'ocr.readPage', 'signing.seal', 'system.checksum', 'system.fail', 'system.health', 'system.sleep'].sort(),
    );
    expect(() => jobTableOf([...capabilities, capabilities.find((c) => c.name === 'face')!])).toThrow(/declared twice/);
    expect(capabilities.map((c) => c.name)).toEqual(['platform', 'registry', 'email', 'webhooks', 'face-matching', 'ocr', 'face', 'signing', 'usage', 'fingerprint', 'deployments', 'privacy', 'privacy-retention']);
  });

  it('the worker resolves each job type to its manifest handler module, configured once with the platform configuration', async () => {
    const configured: unknown[] = [];
    const handlers = { 'demo.double': async (input: { n: number }) => input.n * 2 };
    const demo = {
      name: 'face' as const,
      summary: 'test capability',
      jobs: { definitions: defineJobs<typeof handlers>({ 'demo.double': true }), load: async () => ({ handlers, configure: (c: unknown) => void configured.push(c) }) },
    };
    const config = configFor({ FACE_DETECTOR: 'tiny' });
    const resolve = createHandlerTable({ capabilities: [demo], config });
    expect(await (await resolve('demo.double'))({ n: 21 } as never)).toBe(42);
    await resolve('demo.double');
    expect(configured).toEqual([config]);
    await expect(resolve('demo.missing')).rejects.toMatchObject({ code: 'unknown_job' });
  });
});
