/**
 * `Idempotency-Key` on charged calls over HTTP (issue 30, item 3): a retry of the same request within
 * 24 hours gets the first answer, marked `Idempotent-Replayed: true`, and is not charged again; another
 * request with the key is 422 `idempotency_key_reused`; a retry racing the first call is 409
 * `idempotency_key_in_use`; keys are per tenant; the answers survive a restart (embedded SQLite store).
 * The same across two API processes: test/integration/scaled-out.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { registerTestRoutes } from '../../helpers/test-routes.ts';
import { faceCrop, noFace, overFiveMb } from '../face/fixtures.ts';
import { CREDIT_COSTS } from '../../../domain/plans/plans.ts';
import { redisReachable, testRedisUrl } from '../../helpers/redis.ts';

let s: TestServer;
const dataDir = mkdtempSync(join(tmpdir(), 'sello-idem-api-'));
beforeAll(async () => {
  s = await startTestServer({ extend: (app) => registerTestRoutes(app), config: { DATA_DIR: dataDir } });
});
afterAll(async () => {
  await s?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const balance = async (key: string): Promise<number> => {
  const r = await s.fetch('/v1/credits/balance', { key });
  return ((await r.json()) as { data: { available_credits: number } }).data.available_credits;
};
const postJson = (key: string, path: string, body: unknown, idem?: string) =>
  s.fetch(path, { method: 'POST', key, headers: { 'content-type': 'application/json', ...(idem === undefined ? {} : { 'idempotency-key': idem }) }, body: JSON.stringify(body) });

describe('Idempotency-Key on a charged JSON call', () => {
  it('the same request again returns the first answer, replayed and not charged; another body is 422; another tenant has its own keys', async () => {
    const { key } = await s.tenantWithKey('pro');
    const before = await balance(key);
    const first = await postJson(key, '/v1/test/priced', { a: 1, b: [1, 2] }, 'order-7781');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-credit-cost')).toBe('1');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = await first.text();
    expect(await balance(key)).toBe(before - 1);

    // Same request (keys in another order: the same JSON value) twice more.
    for (let i = 0; i < 2; i++) {
      const again = await postJson(key, '/v1/test/priced', { b: [1, 2], a: 1 }, 'order-7781');
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('x-credit-cost')).toBe('0');
      expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
      expect(await again.text()).toBe(firstBody);
    }
    expect(await balance(key)).toBe(before - 1);

    // Another body, or another path, with the same key.
    for (const [path, body] of [['/v1/test/priced', { a: 2, b: [1, 2] }], ['/v1/test/slow', { a: 1, b: [1, 2] }]] as const) {
      const reused = await postJson(key, path, body, 'order-7781');
      expect(reused.status).toBe(422);
      expect(await reused.json()).toEqual({
        success: false,
        error: { code: 'idempotency_key_reused', message: expect.stringContaining('different request'), details: { header: 'Idempotency-Key' } },
      });
      expect(reused.headers.get('x-credit-cost')).toBe('0');
    }
    expect(await balance(key)).toBe(before - 1);

    // Another tenant using the same key runs (and pays for) its own call.
    const other = await s.tenantWithKey('pro');
    const otherBefore = await balance(other.key);
    const theirs = await postJson(other.key, '/v1/test/priced', { a: 2 }, 'order-7781');
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(await balance(other.key)).toBe(otherBefore - 1);
    // Without the header every call is a new one.
    expect((await postJson(key, '/v1/test/priced', { a: 1, b: [1, 2] })).headers.get('x-credit-cost')).toBe('1');
    expect(await balance(key)).toBe(before - 2);
  });

  it('a retry racing the first call gets 409 idempotency_key_in_use; once it finished the retry is replayed; one charge', async () => {
    const { key } = await s.tenantWithKey('pro');
    const before = await balance(key);
    const [a, b] = await Promise.all([postJson(key, '/v1/test/slow', { n: 1 }, 'race-1'), postJson(key, '/v1/test/slow', { n: 1 }, 'race-1')]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const conflict = a.status === 409 ? a : b;
    expect(conflict.headers.get('retry-after')).toBe('1');
    expect(await conflict.json()).toMatchObject({ success: false, error: { code: 'idempotency_key_in_use' }, retry_after: 1 });
    const again = await postJson(key, '/v1/test/slow', { n: 1 }, 'race-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await balance(key)).toBe(before - 1);
    // Ten more at once, all replays.
    const many = await Promise.all(Array.from({ length: 10 }, () => postJson(key, '/v1/test/slow', { n: 1 }, 'race-1')));
    expect(many.map((r) => `${r.status} ${r.headers.get('idempotent-replayed')}`)).toEqual(Array(10).fill('200 true'));
    expect(await balance(key)).toBe(before - 1);
  });

  it('a failed call (not charged) is not stored: its key can be retried at once', async () => {
    const { key } = await s.tenantWithKey('pro');
    const before = await balance(key);
    for (let i = 0; i < 2; i++) {
      const r = await postJson(key, '/v1/test/fails', {}, 'fails-1');
      expect(r.status).toBe(400);
      expect(r.headers.get('idempotent-replayed')).toBeNull();
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('bad_thing');
    }
    expect(await balance(key)).toBe(before);
  });

  it('a key over 255 characters, empty or with non-ASCII characters is 400 invalid_idempotency_key; 255 and a quoted key are fine', async () => {
    const { key } = await s.tenantWithKey('pro');
    for (const bad of ['k'.repeat(256), '""']) {
      const r = await postJson(key, '/v1/test/priced', {}, bad);
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ success: false, error: { code: 'invalid_idempotency_key', details: { max_length: 255 } } });
    }
    // Raw non-ASCII bytes in the header (fetch refuses to send them; a raw request does).
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${s.url}/v1/test/priced`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.setHeader('idempotency-key', Buffer.from('clé', 'utf8').toString('latin1'));
      req.end('{}');
    });
    expect(status).toBe(400);
    expect((await postJson(key, '/v1/test/priced', {}, 'k'.repeat(255))).status).toBe(200);
    // The IETF draft's Structured Field string form names the same key as the bare one.
    expect((await postJson(key, '/v1/test/priced', {}, '"sf-key"')).status).toBe(200);
    const bare = await postJson(key, '/v1/test/priced', {}, 'sf-key');
    expect(bare.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('Idempotency-Key on a charged multipart upload (POST /v1/face/detect)', () => {
  const detect = (key: string, image: Buffer, idem: string, filename = 'face.jpg') => {
    const fd = new FormData();
    fd.set('image', new Blob([new Uint8Array(image)], { type: 'image/jpeg' }), filename);
    return s.fetch('/v1/face/detect', { method: 'POST', key, headers: { 'idempotency-key': idem }, body: fd });
  };

  it('the same file (a new multipart boundary) is replayed and not charged; another file is 422; the answer survives a restart', async () => {
    const { key } = await s.tenantWithKey('pro');
    const face = await faceCrop('a');
    const before = await balance(key);
    const first = await detect(key, face, 'upload-1');
    expect(first.status).toBe(200);
    const body = (await first.json()) as { success: boolean };
    expect(body.success).toBe(true);
    expect(await balance(key)).toBe(before - 1);

    const again = await detect(key, face, 'upload-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(body);
    expect(await balance(key)).toBe(before - 1);

    const other = await detect(key, await noFace(), 'upload-1');
    expect(other.status).toBe(422);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('idempotency_key_reused');
    // The same bytes under another file name are another request too.
    expect((await detect(key, face, 'upload-1', 'other.jpg')).status).toBe(422);

    // A new process on the same DATA_DIR (embedded SQLite store) replays the stored answer.
    await s.close();
    s = await startTestServer({ extend: (app) => registerTestRoutes(app), config: { DATA_DIR: dataDir } });
    const afterRestart = await detect(key, face, 'upload-1');
    expect(afterRestart.status).toBe(200);
    expect(afterRestart.headers.get('idempotent-replayed')).toBe('true');
    expect(await afterRestart.json()).toEqual(body);
    expect(await balance(key)).toBe(before - 1);
  }, 120_000);
});

describe('Idempotency-Key on an upload the route refuses', () => {
  it('a file over the route\'s limit read ahead for the fingerprint still gets the route\'s own 413, and the key stays free', async () => {
    const { key } = await s.tenantWithKey('pro');
    const before = await balance(key);
    for (let i = 0; i < 2; i++) {
      const fd = new FormData();
      fd.set('image', new Blob([new Uint8Array(await overFiveMb())], { type: 'image/jpeg' }), 'big.jpg');
      const r = await s.fetch('/v1/face/detect', { method: 'POST', key, headers: { 'idempotency-key': 'big-1' }, body: fd });
      expect(r.status).toBe(413);
      expect(r.headers.get('idempotent-replayed')).toBeNull();
      expect(await r.json()).toMatchObject({ success: false, error: { code: 'image_too_large', details: { field: 'image', max_bytes: 5 * 1024 * 1024 } } });
    }
    // A file over every route's limit (11 MiB read ahead): the same answer.
    const fd = new FormData();
    fd.set('image', new Blob([new Uint8Array(12 * 1024 * 1024)], { type: 'image/jpeg' }), 'huge.jpg');
    const huge = await s.fetch('/v1/face/detect', { method: 'POST', key, headers: { 'idempotency-key': 'big-1' }, body: fd });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { error: { code: string } }).error.code).toBe('image_too_large');
    expect(await balance(key)).toBe(before);
  });
});

describe('OpenAPI document', () => {
  it('every charged POST documents the Idempotency-Key header (one definition), its 409 and 422 answers and Idempotent-Replayed; free routes do not', async () => {
    type Param = { in: string; name: string; required?: boolean; schema: { maxLength?: number }; description?: string };
    const doc = (await (await s.fetch('/openapi.json')).json()) as {
      components: { parameters: Record<string, Param> };
      paths: Record<string, Record<string, { parameters?: (Param | { $ref: string })[]; responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }> }>>;
    };
    const shared = doc.components.parameters.IdempotencyKey!;
    expect(shared).toMatchObject({ in: 'header', name: 'Idempotency-Key', schema: { maxLength: 255 } });
    expect(shared.required ?? false).toBe(false);
    expect(shared.description).toMatch(/24 hours.*422 `idempotency_key_reused`.*409 `idempotency_key_in_use`/s);
    const charged = Object.keys(CREDIT_COSTS)
      .filter((k) => k.startsWith('POST '))
      .map((k) => k.slice(5).replace(/:([A-Za-z]+)/g, '{$1}'));
    expect(charged.length).toBeGreaterThanOrEqual(17);
    for (const path of charged) {
      const op = doc.paths[path]?.post;
      expect(op, path).toBeDefined();
      expect(op!.parameters, path).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
      expect(JSON.stringify(op!.parameters)).not.toContain('"name":"Idempotency-Key"');
      expect(JSON.stringify(op!.responses['409']), path).toContain('idempotency_key_in_use');
      expect(JSON.stringify(op!.responses['422']).toLowerCase(), path).toContain('idempotency_key_reused');
      const ok = Object.entries(op!.responses).find(([code]) => code.startsWith('2'))!;
      expect(Object.keys(ok[1].headers ?? {}), path).toContain('Idempotent-Replayed');
    }
    // A free POST and a charged GET take no key.
    expect(JSON.stringify(doc.paths['/v1/webhooks/endpoints']?.post ?? {})).not.toContain('Idempotency-Key');
    expect(JSON.stringify(doc.paths['/v1/email/verify']?.get ?? {})).not.toContain('Idempotency-Key');
  });
});

// The scaled-out store over HTTP (REDIS_URL; CI runs it, a clone without Redis skips): the same rules,
// and a second server on the same Redis (another API process) replays what the first answered.
const redisOk = await redisReachable('Idempotency-Key over HTTP on the Redis store');
describe.runIf(redisOk)('Idempotency-Key with IDEMPOTENCY_STORE=redis', () => {
  const servers: TestServer[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'sello-idem-redis-'));
  const config = { DATA_DIR: dir, IDEMPOTENCY_STORE: 'redis', REDIS_URL: testRedisUrl(), REDIS_PREFIX: `sello-idem-${process.pid}-${Date.now()}:`, RATE_LIMITER: 'memory' };
  afterAll(async () => {
    for (const x of servers) await x.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  const post = (x: TestServer, key: string, body: unknown, idem: string) =>
    x.fetch('/v1/test/slow', { method: 'POST', key, headers: { 'content-type': 'application/json', 'idempotency-key': idem }, body: JSON.stringify(body) });

  it('race 409, replay, 422 for another body, per tenant; another server on the same Redis replays', async () => {
    const a = await startTestServer({ extend: (app) => registerTestRoutes(app), config });
    servers.push(a);
    const { tenantId, key } = await a.tenantWithKey('pro');
    const [r1, r2] = await Promise.all([post(a, key, { n: 1 }, 'r-1'), post(a, key, { n: 1 }, 'r-1')]);
    expect([r1.status, r2.status].sort()).toEqual([200, 409]);
    const first = r1.status === 200 ? r1 : r2;
    const firstBody = await first.text();
    const again = await post(a, key, { n: 1 }, 'r-1');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstBody);
    expect((await post(a, key, { n: 2 }, 'r-1')).status).toBe(422);
    const other = await a.tenantWithKey('pro');
    expect((await post(a, other.key, { n: 2 }, 'r-1')).headers.get('idempotent-replayed')).toBeNull();
    const used = (await a.ctx.credits.state(tenantId)).totalUsed;
    expect(used).toBe(1);
    await a.close();
    servers.length = 0;

    // Another server process on the same DATA_DIR and Redis: the key's answer is replayed there.
    const b = await startTestServer({ extend: (app) => registerTestRoutes(app), config });
    servers.push(b);
    const there = await post(b, key, { n: 1 }, 'r-1');
    expect(there.status).toBe(200);
    expect(there.headers.get('idempotent-replayed')).toBe('true');
    expect(await there.text()).toBe(firstBody);
    expect((await b.ctx.credits.state(tenantId)).totalUsed).toBe(1);
  }, 120_000);
});
