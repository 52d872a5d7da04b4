/**
 * The scaled-out deployment on the design card's profile, for real: two API processes and two inference
 * worker processes (started here, on loopback) sharing one PostgreSQL (event store), one Temporal server
 * (workflows; a dev server of this test's own, on a database file, so the test can restart it), Kafka
 * (inference jobs), MinIO (blobs, claim checks) and Redis (rate limits). Checks the figures:
 * exact credits under 200 concurrent billed calls, an exact per-minute limit across instances, one
 * webhook delivery per event, one charge for an Idempotency-Key retried on both instances (Redis store),
 * a two-signer signing lifecycle with its invitation e-mails, no acknowledged
 * work lost when a worker or an API process is killed mid-flight, and no timer lost when the Temporal
 * server restarts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { Agent, FormData, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faceCrop } from '../api/face/fixtures.ts';
import { dropSchemas, postgresReachable, testDatabaseUrl, uniqueSchema } from '../helpers/postgres.ts';
import { redisReachable, testRedisUrl } from '../helpers/redis.ts';
import { minioReachable, s3BlobConfig, TestBuckets } from '../helpers/minio.ts';
import { startTemporalDevServer, temporalCliPath, type TestTemporalServer } from '../helpers/temporal.ts';
import { kafkaReachable, testKafkaBrokers } from '../helpers/kafka.ts';
import { cli, freePort, scaledOutEnv, startProcess, waitFor, type Proc } from '../helpers/processes.ts';
import { makeCertificate, startReceiver, type TestCertificate, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { linkOf, makePdf, readOutbox, type OutboxMail } from '../helpers/signing.ts';

const what = 'scaled-out multi-process test';
const temporalCli = temporalCliPath(what);
const ready =
  (await postgresReachable(what)) && (await redisReachable(what)) && (await minioReachable(what)) && (await kafkaReachable(what)) && temporalCli !== null;

describe.runIf(ready)('scaled out: 2 API processes + 2 worker processes on PostgreSQL, Temporal, Kafka, MinIO and Redis', () => {
  const schema = uniqueSchema('sello_scale');
  const tag = `${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const dirs: string[] = [];
  const procs: Proc[] = [];
  let env: Record<string, string>;
  let apis: { url: string; proc: Proc }[] = [];
  let workers: Proc[] = [];
  let cert: TestCertificate;
  let rx: WebhookReceiver;
  let image: Buffer;
  let temporal: TestTemporalServer;
  const buckets = new TestBuckets('sello-scale');

  const apiEnv = (): Record<string, string> => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sello-scale-'));
    dirs.push(dir);
    return { ...env, DATA_DIR: dir };
  };
  const outboxes = (): OutboxMail[] => dirs.flatMap((d) => readOutbox(d));
  const startApi = async (): Promise<{ url: string; proc: Proc }> => {
    const port = await freePort();
    const proc = startProcess('apps/api/server.ts', { ...apiEnv(), PORT: String(port) });
    procs.push(proc);
    const url = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${url}/openapi.json`)).ok, 90_000, `API on ${port}\n${proc.output()}`);
    return { url, proc };
  };
  const startWorker = async (): Promise<Proc> => {
    const proc = startProcess('apps/worker/main.ts', apiEnv());
    procs.push(proc);
    await waitFor(() => proc.output().includes('"ready":true'), 60_000, `worker\n${proc.output()}`);
    return proc;
  };
  // Under load a detection waits minutes in the queue: no client-side header/body timeout (fetch's is 300 s).
  const patient = new Agent({ headersTimeout: 0, bodyTimeout: 0, connections: 256 });
  const detect = async (url: string, key: string) => {
    const fd = new FormData();
    fd.append('image', new Blob([new Uint8Array(image)], { type: 'image/jpeg' }), 'face.jpg');
    return undiciFetch(`${url}/v1/face/detect`, { method: 'POST', body: fd, headers: { authorization: `Bearer ${key}` }, dispatcher: patient });
  };
  const balance = async (url: string, key: string): Promise<number> => {
    const r = await fetch(`${url}/v1/credits/balance`, { headers: { authorization: `Bearer ${key}` } });
    return ((await r.json()) as { data: { available_credits: number } }).data.available_credits;
  };
  /** Committed and open reservations of a tenant, read from the log itself (not from any process's memory). */
  const ledger = async (tenantId: string): Promise<{ committed: number; open: number }> => {
    const c = new pg.Client({ connectionString: testDatabaseUrl() });
    await c.connect();
    try {
      const { rows } = await c.query<{ type: string; data: { reservation_id: string; amount?: number } }>(
        `SELECT type, data FROM ${schema}.es_events WHERE stream_name = $1 ORDER BY stream_revision`,
        [`credits-${tenantId}`],
      );
      const reserved = new Map<string, number>();
      let committed = 0;
      for (const r of rows) {
        if (r.type === 'CreditsReserved') reserved.set(r.data.reservation_id, r.data.amount ?? 0);
        if (r.type === 'CreditsCommitted') {
          committed += r.data.amount ?? 0;
          reserved.delete(r.data.reservation_id);
        }
        if (r.type === 'CreditsReleased') reserved.delete(r.data.reservation_id);
      }
      return { committed, open: reserved.size };
    } finally {
      await c.end();
    }
  };
  /** A tenant on the Free plan (20 monthly credits) with `extra` purchased credits and lifted limits. */
  const tenant = async (extra: number, limits: { rpm?: string; concurrency?: string } = {}): Promise<{ tenantId: string; key: string }> => {
    const { tenant_id: tenantId } = (await cli(['tenant', 'create', '--name', 'scale', '--plan', 'free'], env)) as { tenant_id: string };
    const { key } = (await cli(['key', 'create', '--tenant', tenantId, '--permissions', 'read,write'], env)) as { key: string };
    if (extra > 0) await cli(['credits', 'grant', '--tenant', tenantId, '--amount', String(extra)], env);
    await cli(['tenant', 'limits', '--tenant', tenantId, '--rpm', limits.rpm ?? 'unlimited', '--concurrency', limits.concurrency ?? 'unlimited'], env);
    // Both API processes follow the log: wait until each accepts the key.
    for (const api of apis) await waitFor(async () => (await fetch(`${api.url}/v1/credits/balance`, { headers: { authorization: `Bearer ${key}` } })).status === 200, 20_000, 'key known to every API');
    return { tenantId, key };
  };

  beforeAll(async () => {
    image = await sharp(await faceCrop('a')).resize(320, 240).jpeg().toBuffer();
    cert = await makeCertificate();
    rx = await startReceiver(cert);
    const temporalDir = mkdtempSync(path.join(tmpdir(), 'sello-scale-temporal-'));
    dirs.push(temporalDir);
    temporal = await startTemporalDevServer(temporalCli!, { dbFile: path.join(temporalDir, 'temporal.db') });
    env = {
      ...scaledOutEnv({
        databaseUrl: testDatabaseUrl(),
        schema,
        redisUrl: testRedisUrl(),
        prefix: `sello-scale-${tag}`,
        temporalAddress: temporal.address,
        blobs: s3BlobConfig(buckets.name()),
        jobQueue: 'kafka',
        kafkaBrokers: testKafkaBrokers(),
      }),
      JOB_LOCK_MS: '3000',
      // This machine is shared and slow under load: 150 detections on two one-thread workers may take minutes.
      JOB_TIMEOUT_MS: '1400000',
      HTTP_REQUEST_TIMEOUT_MS: '1400000',
      // A call that outlives its reservation's lease is answered but not charged: the lease must cover the
      // slowest call (docs/operations.md).
      CREDIT_RESERVATION_LEASE_MS: '1500000',
      FACE_DETECTOR: 'tiny',
      WORKER_THREADS: '1',
      WORKFLOW_POLL_MS: '50',
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8,::1/128',
      WEBHOOK_CA_CERTS: cert.certFile,
    };
    const migrated = await cli(['migrate'], env);
    expect(migrated).toMatchObject({ event_store: 'migrated', schema });
    workers = await Promise.all([startWorker(), startWorker()]);
    apis = [await startApi(), await startApi()];
  }, 300_000);

  afterAll(async () => {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.race([Promise.all(procs.map((p) => p.exited)), new Promise((r) => setTimeout(r, 15_000))]);
    for (const p of procs) p.kill('SIGKILL');
    await rx?.close();
    cert?.dispose();
    await temporal?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await dropSchemas([schema]);
    await buckets.removeAll();
  }, 60_000);

  it('200 concurrent billed calls across both APIs against a balance of 150: exactly 150 charged, 50 refused, balance 0', async () => {
    const { tenantId, key } = await tenant(130); // 20 monthly + 130 purchased
    expect(await balance(apis[0]!.url, key)).toBe(150);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => detect(apis[i % 2]!.url, key)));
    const codes = results.map((r) => r.status);
    const refused = await Promise.all(results.filter((r) => r.status === 429).map(async (r) => ((await r.json()) as { error: string }).error));
    const histogram: Record<number, number> = {};
    for (const c of codes) histogram[c] = (histogram[c] ?? 0) + 1;
    expect(histogram).toEqual({ 200: 150, 429: 50 });
    expect(new Set(refused)).toEqual(new Set(['insufficient_credits']));
    expect(await ledger(tenantId)).toEqual({ committed: 150, open: 0 });
    for (const api of apis) await waitFor(async () => (await balance(api.url, key)) === 0, 10_000, 'balance 0 on every API');
  }, 1_500_000);

  it('Idempotency-Key holds across both APIs: concurrent retries of one call on either instance charge it once and replay its answer', async () => {
    const { tenantId, key } = await tenant(0);
    const keyed = (url: string, img: Buffer, idem: string) => {
      const fd = new FormData();
      fd.append('image', new Blob([new Uint8Array(img)], { type: 'image/jpeg' }), 'face.jpg');
      return undiciFetch(`${url}/v1/face/detect`, { method: 'POST', body: fd, headers: { authorization: `Bearer ${key}`, 'idempotency-key': idem }, dispatcher: patient });
    };
    const before = await balance(apis[0]!.url, key);
    // Ten at once, alternating instances: one runs, the others see it in progress (409) or, once it is done, replay it.
    const racing = await Promise.all(Array.from({ length: 10 }, (_, i) => keyed(apis[i % 2]!.url, image, 'scale-idem-1')));
    const kinds = await Promise.all(
      racing.map(async (r) => {
        const body = await r.text();
        return { kind: r.status === 200 ? (r.headers.get('idempotent-replayed') === 'true' ? 'replay' : 'first') : `${r.status} ${(JSON.parse(body) as { error: { code: string } }).error.code}`, body };
      }),
    );
    expect(kinds.filter((k) => k.kind === 'first')).toHaveLength(1);
    expect(kinds.every((k) => ['first', 'replay', '409 idempotency_key_in_use'].includes(k.kind))).toBe(true);
    const firstBody = kinds.find((k) => k.kind === 'first')!.body;
    // Afterwards each instance replays the same answer.
    for (const api of apis) {
      const r = await keyed(api.url, image, 'scale-idem-1');
      expect(r.status).toBe(200);
      expect(r.headers.get('idempotent-replayed')).toBe('true');
      expect(await r.text()).toBe(firstBody);
    }
    // Another image with the key is refused on either instance.
    const other = await sharp(image).flop().jpeg().toBuffer();
    for (const api of apis) expect((await keyed(api.url, other, 'scale-idem-1')).status).toBe(422);
    expect(await ledger(tenantId)).toEqual({ committed: 1, open: 0 });
    for (const api of apis) await waitFor(async () => (await balance(api.url, key)) === before - 1, 10_000, 'one credit spent, seen by every API');
  }, 600_000);

  it('a tenant limited to N requests per minute gets exactly N through across both instances', async () => {
    const { key } = await tenant(0, { rpm: '7' }); // face detection is a standard route: 7 per minute (and 20 monthly credits)
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => detect(apis[i % 2]!.url, key)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(7);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(33);
    expect(new Set(await Promise.all(limited.map(async (r) => ((await r.json()) as { error: { code: string } }).error.code)))).toEqual(new Set(['rate_limit_exceeded']));
  }, 300_000);

  it('a webhook event is delivered exactly once although both API processes fan it out', async () => {
    const { tenantId, key } = await tenant(0);
    const created = await fetch(`${apis[0]!.url}/v1/webhooks/endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${rx.origin}/scale`, events: ['api.rate.limited'] }),
    });
    expect(created.status).toBe(201);
    await cli(['tenant', 'limits', '--tenant', tenantId, '--rpm', '1', '--concurrency', 'unlimited'], env);
    // Let both APIs see the endpoint and the new limit, so both fan-outs would deliver the event.
    await new Promise((r) => setTimeout(r, 2000));
    // light limit 2/min: further calls are limited; API 0 publishes one api.rate.limited event.
    for (let i = 0; i < 4; i++) await fetch(`${apis[0]!.url}/v1/credits/balance`, { headers: { authorization: `Bearer ${key}` } });
    await waitFor(() => rx.requests.some((r) => r.path === '/scale'), 30_000, 'the webhook delivery');
    await new Promise((r) => setTimeout(r, 3000));
    const got = rx.requests.filter((r) => r.path === '/scale');
    expect(got).toHaveLength(1);
    expect(JSON.parse(got[0]!.body.toString()).type).toBe('api.rate.limited');
  }, 120_000);

  it('a two-signer signing lifecycle completes across both APIs, with its invitation e-mails', async () => {
    const { key } = await tenant(0);
    const signers = [
      { email: 'ana.scale@example.com', name: 'Ana', order: 1 },
      { email: 'beto.scale@example.com', name: 'Beto', order: 2 },
    ];
    const form = new FormData();
    form.append('document', new Blob([new Uint8Array(await makePdf(2))], { type: 'application/pdf' }), 'contrato.pdf');
    form.append('title', 'Contrato');
    form.append('signers', JSON.stringify(signers));
    const created = await undiciFetch(`${apis[0]!.url}/v1/signing/documents`, { method: 'POST', body: form, headers: { authorization: `Bearer ${key}` } });
    expect(created.status).toBe(201);
    const docId = ((await created.json()) as { data: { document_id: string } }).data.document_id;
    const sent = await fetch(`${apis[1]!.url}/v1/signing/documents/${docId}/send-invitations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reminder_days: 1 }),
    });
    expect(sent.status).toBe(200);
    // The invitation activity runs on whichever API process's Temporal worker takes it: read every outbox.
    const mailTo = (email: string) => waitFor(() => !!outboxes().find((m) => m.to.includes(email)), 60_000, `invitation of ${email}`).then(() => outboxes().find((m) => m.to.includes(email))!);
    for (const [i, signer] of signers.entries()) {
      const link = linkOf(await mailTo(signer.email));
      const api = apis[i % 2]!;
      const t = new URL(api.url + link).searchParams.get('t')!;
      const signed = await fetch(`${api.url}/sign/${docId}/sign`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: signer.name }).toString(),
      });
      expect(signed.status).toBe(200);
    }
    await waitFor(async () => {
      const r = await fetch(`${apis[0]!.url}/v1/signing/documents/${docId}`, { headers: { authorization: `Bearer ${key}` } });
      return ((await r.json()) as { data: { status: string } }).data.status === 'signed';
    }, 60_000, 'document signed by both');
    const finalized = await fetch(`${apis[1]!.url}/v1/signing/documents/${docId}/finalize`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    expect(finalized.status).toBe(200);
    expect(((await finalized.json()) as { data: { status: string } }).data.status).toBe('completed');
    expect(outboxes().filter((m) => m.to.includes('.scale@example.com') && m.subject !== '').length).toBeGreaterThanOrEqual(2);
  }, 300_000);

  it('the Temporal server restarted while a webhook retry timer waits: the timer fires and the delivery succeeds', async () => {
    const { tenantId, key } = await tenant(0);
    rx.on('/retry', (n) => (n === 1 ? { status: 503, body: 'busy' } : { status: 200, body: 'ok' }));
    const created = await fetch(`${apis[0]!.url}/v1/webhooks/endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${rx.origin}/retry`, events: ['api.rate.limited'] }),
    });
    expect(created.status).toBe(201);
    await cli(['tenant', 'limits', '--tenant', tenantId, '--rpm', '1', '--concurrency', 'unlimited'], env);
    await new Promise((r) => setTimeout(r, 2000));
    for (let i = 0; i < 4; i++) await fetch(`${apis[0]!.url}/v1/credits/balance`, { headers: { authorization: `Bearer ${key}` } });
    await waitFor(() => rx.requests.some((r) => r.path === '/retry'), 60_000, 'the first attempt');
    // Attempt 1 got 503: the delivery workflow now waits on its 1-minute retry timer, held by Temporal.
    await temporal.stop();
    await new Promise((r) => setTimeout(r, 3000));
    await temporal.start();
    await waitFor(() => rx.requests.filter((r) => r.path === '/retry').length >= 2, 150_000, 'the retry after the restart');
    const got = rx.requests.filter((r) => r.path === '/retry');
    expect(got).toHaveLength(2);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(55_000);
  }, 300_000);

  it('a worker killed (SIGKILL) mid-job loses no job and no credit is charged twice', async () => {
    const { tenantId, key } = await tenant(0); // 20 monthly credits
    const pending = Array.from({ length: 12 }, (_, i) => detect(apis[i % 2]!.url, key));
    await new Promise((r) => setTimeout(r, 400));
    workers[0]!.kill('SIGKILL');
    const results = await Promise.all(pending);
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(await ledger(tenantId)).toEqual({ committed: 12, open: 0 });
    expect(await balance(apis[1]!.url, key)).toBe(8);
    workers[0] = await startWorker();
  }, 300_000);

  it('an API process killed mid-request loses nothing it acknowledged; the other instance keeps serving', async () => {
    const { tenantId, key } = await tenant(0);
    const victim = apis[0]!;
    const pending = Array.from({ length: 10 }, () => detect(victim.url, key).then((r) => r.status, () => 'reset' as const));
    await new Promise((r) => setTimeout(r, 300));
    victim.proc.kill('SIGKILL');
    const outcomes = await Promise.all(pending);
    const acknowledged = outcomes.filter((o) => o === 200).length;
    const { committed, open } = await ledger(tenantId);
    // Every 200 was charged exactly once; a request cut off may have been charged (its commit was logged
    // before the answer was lost) but never twice, and its open reservation is released by the sweeper.
    expect(committed).toBeGreaterThanOrEqual(acknowledged);
    expect(committed + open).toBeLessThanOrEqual(10);
    const survivor = apis[1]!;
    expect((await detect(survivor.url, key)).status).toBe(200);
    expect((await ledger(tenantId)).committed).toBe(committed + 1);
  }, 300_000);
});
