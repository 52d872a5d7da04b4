/**
 * "An erased face is no longer found by search in any API process of a scaled-out deployment" (issue 28,
 * item 3), with real processes: API processes A and B share the PostgreSQL event store (each with its own
 * DATA_DIR: SQLite read models and an embedded vector-index replica built from the log, one
 * PRIVACY_MASTER_KEY for all). A face enrolled through A is found by a search through B; erased through
 * A (`POST /v1/privacy/erasures`), a search through B no longer finds it, and an API process C started
 * after the erasure, which builds its replica from the log (the enrolment's template now reads as erased),
 * does not find it either. Another subject of the tenant stays findable everywhere (so a replica that
 * found nothing at all would fail).
 *
 * Needs PostgreSQL (DATABASE_URL): skipped with a printed reason without it, a failure under
 * SELLO_REQUIRE_SERVERS=1 (test/helpers/servers.ts). Everything else is embedded in each process.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faceCrop } from '../api/face/fixtures.ts';
import { dropSchemas, postgresReachable, testDatabaseUrl, uniqueSchema } from '../helpers/postgres.ts';
import { cli, freePort, startProcess, waitFor, type Proc } from '../helpers/processes.ts';

const ready = await postgresReachable('erasure across API processes (vector-index replicas)');

describe.runIf(ready)('erasure reaches the vector-index replica of every API process (PostgreSQL event store)', () => {
  const schema = uniqueSchema('sello_erase_rep');
  const dirs: string[] = [];
  const procs: Proc[] = [];
  let env: Record<string, string>;
  let key: string;
  let faceA: Buffer;
  let faceB: Buffer;

  const newDir = (): string => {
    const d = mkdtempSync(path.join(tmpdir(), 'sello-erase-rep-'));
    dirs.push(d);
    return d;
  };
  const startApi = async (): Promise<string> => {
    const port = await freePort();
    const proc = startProcess('apps/api/server.ts', { ...env, DATA_DIR: newDir(), PORT: String(port) });
    procs.push(proc);
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitFor(async () => (await fetch(`${url}/openapi.json`)).ok, 180_000, `API on ${port}`);
      // Following the log: the tenant's key is known once the api_keys projection caught up.
      await waitFor(async () => (await fetch(`${url}/v1/credits/balance`, { headers: { authorization: `Bearer ${key}` } })).status === 200, 60_000, `key known on ${port}`);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${proc.output()}`);
    }
    return url;
  };
  /** A multipart call; a 503 (inference queue busy on a loaded machine) is retried. */
  const post = async (url: string, route: string, fields: Record<string, string | Buffer>): Promise<{ status: number; body: any }> => {
    for (let attempt = 1; ; attempt++) {
      const fd = new FormData();
      for (const [k, v] of Object.entries(fields)) {
        if (typeof v === 'string') fd.append(k, v);
        else fd.append(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), 'face.jpg');
      }
      const r = await fetch(`${url}${route}`, { method: 'POST', body: fd, headers: { authorization: `Bearer ${key}` } });
      const body = await r.json().catch(() => null);
      if (r.status !== 503 || attempt === 5) return { status: r.status, body };
    }
  };
  /** Subject ids a search with `image` (threshold 0: every enrolled face) finds through `url`. */
  const found = async (url: string, image: Buffer): Promise<string[]> => {
    const r = await post(url, '/v1/face-matching/search', { image, threshold: '0' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return [...new Set((r.body.matches as Array<{ subject_id: string }>).map((m) => m.subject_id))].sort();
  };

  beforeAll(async () => {
    [faceA, faceB] = await Promise.all([faceCrop('a'), faceCrop('b')]);
    env = {
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      BOOTSTRAP: 'false',
      EVENT_STORE: 'postgres',
      READ_MODELS: 'sqlite',
      DATABASE_URL: testDatabaseUrl(),
      DATABASE_SCHEMA: schema,
      // One master key for every process (a shared event store refuses to start without it).
      PRIVACY_MASTER_KEY: createHash('sha256').update(`sello-test-master:${schema}`).digest('hex'),
      // Everything else embedded in each process, whatever servers the environment names.
      WORKFLOWS: 'sqlite',
      JOB_QUEUE: 'worker-threads',
      BLOB_STORE: 'local',
      MAIL: 'outbox',
      RATE_LIMITER: 'memory',
      IDEMPOTENCY_STORE: 'sqlite',
      WORKER_THREADS: '1',
      FACE_DETECTOR: 'tiny',
      JOB_TIMEOUT_MS: '240000',
      SELLO_PRIVACY_STRICT: '1',
    };
    const cliEnv = { ...env, DATA_DIR: newDir() };
    expect(await cli(['migrate'], cliEnv)).toMatchObject({ event_store: 'migrated', schema });
    const { tenant_id: tenantId } = (await cli(['tenant', 'create', '--name', 'erase-replicas', '--plan', 'enterprise'], cliEnv)) as { tenant_id: string };
    ({ key } = (await cli(['key', 'create', '--tenant', tenantId, '--permissions', 'read,write,admin'], cliEnv)) as { key: string });
  }, 300_000);

  afterAll(async () => {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.race([Promise.all(procs.map((p) => p.exited)), new Promise((r) => setTimeout(r, 15_000))]);
    for (const p of procs) p.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await dropSchemas([schema]);
  }, 60_000);

  it('enrol via A, found via B; erased via A: not found via B, nor via C started after the erasure; another subject still found', async () => {
    const [a, b] = await Promise.all([startApi(), startApi()]);
    for (const [subject, image] of [['subj-erased', faceA], ['subj-kept', faceB]] as const) {
      const e = await post(a, '/v1/face-matching/enroll', { image, subject_id: subject, liveness_score: '0.9' });
      expect(e.status, JSON.stringify(e.body)).toBe(200);
    }
    // B's replica follows the log.
    await waitFor(async () => (await found(b, faceA)).join() === 'subj-erased,subj-kept', 60_000, 'both subjects found via B');

    const r = await fetch(`${a}/v1/privacy/erasures`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ subject_id: 'subj-erased' }) });
    const erasure = (await r.json()) as { erasure_id: string; status: string };
    expect(r.status, JSON.stringify(erasure)).toBe(202);
    await waitFor(async () => {
      const g = await fetch(`${a}/v1/privacy/erasures/${erasure.erasure_id}`, { headers: { authorization: `Bearer ${key}` } });
      return ((await g.json()) as { data: { status: string } }).data.status === 'completed';
    }, 60_000, 'erasure completed');

    // A's own replica at once; B's once it has followed the log's erasure events (bounded wait).
    expect(await found(a, faceA)).toEqual(['subj-kept']);
    await waitFor(async () => (await found(b, faceA)).join() === 'subj-kept', 30_000, 'subj-erased gone from B');
    expect(await found(b, faceB)).toEqual(['subj-kept']);

    // C builds its replica from the log after the erasure: the enrolment reads erased, nothing to index.
    const c = await startApi();
    await waitFor(async () => (await found(c, faceB)).length > 0, 60_000, 'C caught up');
    expect(await found(c, faceA)).toEqual(['subj-kept']);
    // Verify against the erased subject answers as for a subject without templates, on every process.
    for (const url of [a, b, c]) {
      const v = await post(url, '/v1/face-matching/verify/subj-erased', { image: faceA });
      expect(v.status, JSON.stringify(v.body)).toBe(404);
    }
  }, 900_000);
});
