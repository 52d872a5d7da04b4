/**
 * Scaled-out figures (issue 17), each pair measured in the same run on this machine:
 * - face detection throughput (POST /v1/face/detect, billed, through Kafka, or BullMQ with
 *   `--queue bullmq`) with one worker process vs two (each with WORKER_THREADS threads);
 * - edge requests per second (GET /v1/credits/balance, authenticated, limited, billed headers) with
 *   one API process vs two (autocannon against each, in child processes).
 * Processes are started here on loopback against the servers of `npm run engines -- up` (PostgreSQL,
 * Redis, Kafka, MinIO, Temporal; DATABASE_URL, REDIS_URL, KAFKA_BROKERS, S3_*, TEMPORAL_ADDRESS). The
 * machine may be shared: the load average is printed, and only the ratios of one run compare.
 *
 *   npm run bench:scaled-out [-- --jobs 60 --seconds 5 --threads 1 --queue kafka|bullmq]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import sharp from 'sharp';
import { faceCrop } from '../test/api/face/fixtures.ts';
import { cli, freePort, scaledOutEnv, startProcess, waitFor, type Proc } from '../test/helpers/processes.ts';
import { testDatabaseUrl } from '../test/helpers/postgres.ts';
import { testRedisUrl } from '../test/helpers/redis.ts';
import { s3BlobConfig, TestBuckets } from '../test/helpers/minio.ts';
import { testKafkaBrokers } from '../test/helpers/kafka.ts';

const { values } = parseArgs({ options: { jobs: { type: 'string', default: '60' }, seconds: { type: 'string', default: '5' }, threads: { type: 'string', default: '1' }, queue: { type: 'string', default: 'kafka' } } });
const jobs = Number(values.jobs);
const seconds = Number(values.seconds);
const databaseUrl = testDatabaseUrl();
const schema = `sello_bench_${process.pid}`;
const tag = `bench-${process.pid}`;
const buckets = new TestBuckets('sello-bench');
// The design card's profile (docs/operations.md): jobs on Kafka (`--queue bullmq` for the Redis stand-in),
// workflows on the Temporal of `npm run engines`, blobs and claim checks on its MinIO.
const env: Record<string, string> = {
  ...scaledOutEnv({
    databaseUrl,
    schema,
    redisUrl: testRedisUrl(),
    prefix: `sello-${tag}`,
    temporalAddress: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    blobs: s3BlobConfig(buckets.name()),
    jobQueue: values.queue === 'bullmq' ? 'bullmq' : 'kafka',
    kafkaBrokers: testKafkaBrokers(),
  }),
  WORKER_THREADS: values.threads!,
  FACE_DETECTOR: 'tiny',
  JOB_TIMEOUT_MS: '600000',
  WEBHOOK_SECRET_KEY: 'a'.repeat(64),
};
const procs: Proc[] = [];
const dirs: string[] = [];
const withDir = (): Record<string, string> => {
  const d = mkdtempSync(path.join(tmpdir(), 'sello-bench-'));
  dirs.push(d);
  return { ...env, DATA_DIR: d };
};
async function api(): Promise<string> {
  const port = await freePort();
  const p = startProcess('apps/api/server.ts', { ...withDir(), PORT: String(port) });
  procs.push(p);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/ready`)).ok, 120_000, `API\n${p.output()}`);
  return url;
}
async function worker(): Promise<Proc> {
  const p = startProcess('apps/worker/main.ts', withDir());
  procs.push(p);
  await waitFor(() => p.output().includes('"ready":true'), 120_000, `worker\n${p.output()}`);
  return p;
}

const image = await sharp(await faceCrop('a')).resize(320, 240).jpeg().toBuffer();
async function detectThroughput(url: string, key: string): Promise<number> {
  const one = async (): Promise<void> => {
    const fd = new FormData();
    fd.append('image', new Blob([new Uint8Array(image)], { type: 'image/jpeg' }), 'face.jpg');
    const r = await fetch(`${url}/v1/face/detect`, { method: 'POST', body: fd, headers: { authorization: `Bearer ${key}` } });
    if (r.status !== 200) throw new Error(`detect answered ${r.status}: ${await r.text()}`);
  };
  await Promise.all(Array.from({ length: 4 }, one)); // warm-up: every worker thread loads its model
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next++ < jobs) await one();
  }));
  return jobs / ((performance.now() - t0) / 1000);
}

const autocannon = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const run = promisify(execFile);
async function edgeRps(urls: string[], key: string): Promise<number> {
  const results = await Promise.all(
    urls.map((u) =>
      run(process.execPath, [autocannon, '-j', '-c', '20', '-d', String(seconds), '-H', `authorization=Bearer ${key}`, `${u}/v1/credits/balance`], { maxBuffer: 64 * 1024 * 1024 }),
    ),
  );
  return results.map((r) => (JSON.parse(r.stdout) as { requests: { average: number } }).requests.average).reduce((a, b) => a + b, 0);
}

try {
  console.log(`load average before: ${loadavg().map((x) => x.toFixed(2)).join(' ')} | jobs ${jobs}, edge ${seconds}s x 20 connections per API, ${values.threads} thread(s) per worker`);
  await cli(['migrate'], env);
  const { tenant_id: tenantId } = (await cli(['tenant', 'create', '--name', 'bench', '--plan', 'enterprise'], env)) as { tenant_id: string };
  const { key } = (await cli(['key', 'create', '--tenant', tenantId, '--permissions', 'read,write'], env)) as { key: string };
  await cli(['tenant', 'limits', '--tenant', tenantId, '--rpm', 'unlimited', '--concurrency', 'unlimited'], env);
  await worker();
  const a = await api();
  await waitFor(async () => (await fetch(`${a}/v1/credits/balance`, { headers: { authorization: `Bearer ${key}` } })).ok, 30_000, 'key');
  const oneWorker = await detectThroughput(a, key);
  await worker();
  const twoWorkers = await detectThroughput(a, key);
  console.log(`face detect through ${env.JOB_QUEUE}: 1 worker process ${oneWorker.toFixed(2)}/s, 2 worker processes ${twoWorkers.toFixed(2)}/s, ratio ${(twoWorkers / oneWorker).toFixed(2)}`);
  const oneApi = await edgeRps([a], key);
  const b = await api();
  await waitFor(async () => (await fetch(`${b}/v1/credits/balance`, { headers: { authorization: `Bearer ${key}` } })).ok, 30_000, 'key');
  const twoApis = await edgeRps([a, b], key);
  console.log(`edge GET /v1/credits/balance: 1 API process ${oneApi.toFixed(0)} req/s, 2 API processes ${twoApis.toFixed(0)} req/s, ratio ${(twoApis / oneApi).toFixed(2)}`);
  console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
} finally {
  for (const p of procs) p.kill('SIGTERM');
  await Promise.race([Promise.all(procs.map((p) => p.exited)), new Promise((r) => setTimeout(r, 10_000))]);
  for (const p of procs) p.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
  await buckets.removeAll();
}
process.exit(0);
