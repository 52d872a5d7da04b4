import { SignJWT, generateKeyPair, exportSPKI } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDIT_COSTS } from '../../../domain/plans/plans.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { registerTestRoutes } from '../../helpers/test-routes.ts';
import { usageEventsCollection } from '../../../projections/usage-events/usage-events.ts';

const BILLING_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-tier',
  'x-ratelimit-billing-method',
  'x-credit-balance',
  'x-credit-cost',
  'x-request-id',
];

let s: TestServer;
let edKeys: Awaited<ReturnType<typeof generateKeyPair>>;
beforeAll(async () => {
  edKeys = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  s = await startTestServer({
    extend: (app) => registerTestRoutes(app),
    config: { JWT_SECRET: 'test-dashboard-secret-0123456789abcdef', JWT_PUBLIC_KEY: await exportSPKI(edKeys.publicKey) },
  });
});
afterAll(async () => s?.close());

describe('authentication', () => {
  it('401 without credentials, in the structured shape, with every billing header', async () => {
    const r = await s.fetch('/v1/api-keys');
    expect(r.status).toBe(401);
    expect(await r.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    for (const h of BILLING_HEADERS) expect(r.headers.get(h), h).not.toBeNull();
  });

  it('401 for a malformed, unknown or non-bearer key; flat shape on flat routes', async () => {
    for (const auth of ['Bearer nope', 'Bearer sk_live_' + 'a'.repeat(43), 'Basic abc', 'Bearer']) {
      const r = await s.fetch('/v1/credits/balance', { headers: { authorization: auth } });
      expect(r.status, auth).toBe(401);
      const body = await r.json();
      expect(body.success).toBe(false);
      expect(body.error).toBe('unauthorized');
      expect(typeof body.message).toBe('string');
    }
  });

  it('accepts a valid key and identifies its tenant', async () => {
    const { tenantId, key } = await s.tenantWithKey('basic');
    const r = await s.fetch('/v1/credits/balance', { key });
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body.data.plan).toBe('basic');
    expect(body.data.available_credits).toBe(4000);
    expect(r.headers.get('x-ratelimit-tier')).toBe('basic');
    expect(r.headers.get('x-ratelimit-limit')).toBe('4000');
    const keys = await (await s.fetch('/v1/api-keys', { key })).json();
    expect(keys.data).toHaveLength(1);
    expect(JSON.stringify(keys)).not.toContain(key);
    expect(tenantId).toMatch(/^ten_/);
  });

  it('403 when the key lacks the permission', async () => {
    const { key } = await s.tenantWithKey('pro', ['read']);
    const r = await s.fetch('/v1/test/write', { method: 'POST', key });
    expect(r.status).toBe(403);
    expect((await r.json()).error.code).toBe('insufficient_permissions');
    const r2 = await s.fetch('/v1/api-keys', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ permissions: ['read'] }) });
    expect(r2.status).toBe(403);
    // the key is known: its tenant's billing headers, not the anonymous ones (tier none, balance 0)
    for (const res of [r, r2]) {
      expect(res.headers.get('x-ratelimit-tier')).toBe('pro');
      expect(res.headers.get('x-credit-balance')).toBe('20000');
      expect(res.headers.get('x-credit-cost')).toBe('0');
    }
  });

  it('revocation takes effect on the very next request', async () => {
    const tenantId = await s.createTenant('pro');
    const admin = await s.createKey(tenantId, ['read', 'write', 'admin']);
    const victim = await s.createKey(tenantId, ['read']);
    expect((await s.fetch('/v1/credits/balance', { key: victim.key })).status).toBe(200);
    const del = await s.fetch(`/v1/api-keys/${victim.keyId}`, { method: 'DELETE', key: admin.key });
    expect(del.status).toBe(200);
    expect((await s.fetch('/v1/credits/balance', { key: victim.key })).status).toBe(401);
    const again = await s.fetch(`/v1/api-keys/${victim.keyId}`, { method: 'DELETE', key: admin.key });
    expect(again.status).toBe(409);
  });

  it('admin keys create keys; the secret is returned once', async () => {
    const tenantId = await s.createTenant('pro');
    const admin = await s.createKey(tenantId, ['read', 'admin']);
    const r = await s.fetch('/v1/api-keys', { method: 'POST', key: admin.key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ permissions: ['read'], mode: 'test' }) });
    expect(r.status).toBe(201);
    const created = await r.json();
    expect(created.data.key).toMatch(/^sk_test_[0-9A-Za-z]{43,}$/);
    expect((await s.fetch('/v1/credits/balance', { key: created.data.key })).status).toBe(200);
    const list = await (await s.fetch('/v1/api-keys', { key: admin.key })).json();
    expect(list.data.map((k: { id: string }) => k.id)).toContain(created.data.id);
    expect(JSON.stringify(list)).not.toContain(created.data.key);
  });

  it('accepts dashboard JWTs (HS256 and EdDSA) only where the route allows them', async () => {
    const { tenantId } = await s.tenantWithKey('pro');
    const hs = await new SignJWT({ tenant_id: tenantId }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode('test-dashboard-secret-0123456789abcdef'));
    const ed = await new SignJWT({ sub: tenantId }).setProtectedHeader({ alg: 'EdDSA' }).setExpirationTime('5m').sign(edKeys.privateKey);
    for (const token of [hs, ed]) {
      const r = await s.fetch('/v1/test/flat', { headers: { authorization: `Bearer ${token}` } });
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ tenant: tenantId, via: 'jwt' });
    }
    expect((await s.fetch('/v1/credits/balance', { headers: { authorization: `Bearer ${hs}` } })).status).toBe(401);
    const expired = await new SignJWT({ tenant_id: tenantId }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(Math.floor(Date.now() / 1000) - 10).sign(new TextEncoder().encode('test-dashboard-secret-0123456789abcdef'));
    expect((await s.fetch('/v1/test/flat', { headers: { authorization: `Bearer ${expired}` } })).status).toBe(401);
    const forged = await new SignJWT({ tenant_id: tenantId }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode('wrong-secret-wrong-secret-wrong-secret'));
    expect((await s.fetch('/v1/test/flat', { headers: { authorization: `Bearer ${forged}` } })).status).toBe(401);
  });
});

describe('tenant isolation', () => {
  it("a key of tenant B can neither list nor revoke tenant A's keys", async () => {
    const a = await s.tenantWithKey('pro', ['read', 'admin']);
    const b = await s.tenantWithKey('pro', ['read', 'admin']);
    const listB = await (await s.fetch('/v1/api-keys', { key: b.key })).json();
    expect(listB.data.map((k: { id: string }) => k.id)).not.toContain(a.keyId);
    const del = await s.fetch(`/v1/api-keys/${a.keyId}`, { method: 'DELETE', key: b.key });
    expect(del.status).toBe(404);
    expect((await s.fetch('/v1/api-keys', { key: a.key })).status).toBe(200);
    const balB = await (await s.fetch('/v1/credits/balance', { key: b.key })).json();
    await s.grant(a.tenantId, 500);
    const balB2 = await (await s.fetch('/v1/credits/balance', { key: b.key })).json();
    expect(balB2.data.available_credits).toBe(balB.data.available_credits);
  });
});

describe('credits and billing headers', () => {
  it('charges only 2xx answers and shows the charge in the headers', async () => {
    const { tenantId, key } = await s.tenantWithKey('free');
    const ok = await s.fetch('/v1/test/priced', { method: 'POST', key });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-credit-cost')).toBe('1');
    expect(ok.headers.get('x-credit-balance')).toBe('19');
    expect(ok.headers.get('x-ratelimit-remaining')).toBe('19');
    const failed = await s.fetch('/v1/test/fails', { method: 'POST', key });
    expect(failed.status).toBe(400);
    expect(failed.headers.get('x-credit-cost')).toBe('0');
    expect(failed.headers.get('x-credit-balance')).toBe('19');
    const crashed = await s.fetch('/v1/test/crashes', { method: 'POST', key });
    expect(crashed.status).toBe(500);
    const body = await crashed.json();
    expect(JSON.stringify(body)).not.toContain('secret internal detail');
    expect(crashed.headers.get('x-credit-balance')).toBe('19');
    const state = await s.ctx.credits.state(tenantId);
    expect(state.totalUsed).toBe(1);
    expect(state.open.size).toBe(0);
  });

  it('every priced route of CREDIT_COSTS is a registered route template, parameter names included (a mistyped key leaves the route free)', () => {
    // printRoutes draws the routes as registered, as a tree: a line's segment follows its parent's, e.g.
    // `├── /v1/ocr/extract (POST)` then `│   ├── /id (POST)`. The edge prices by `METHOD template`, so a
    // key `verify/:id` would not match a route `verify/:subjectId`.
    const registered = new Set<string>();
    const stack: string[] = [];
    for (const line of s.app.printRoutes({ commonPrefix: false }).split('\n')) {
      const at = line.indexOf('── ');
      if (at < 0) continue;
      const depth = Math.round((at - 1) / 4);
      const m = /^(\S*)(?: \(([A-Z, ]+)\))?/.exec(line.slice(at + 3))!;
      stack.length = depth;
      stack.push(m[1]!);
      if (m[2]) for (const method of m[2].split(', ')) registered.add(`${method} ${stack.join('')}`);
    }
    expect(registered.size).toBeGreaterThan(50);
    expect(Object.keys(CREDIT_COSTS).filter((k) => !registered.has(k))).toEqual([]);
  });

  it('answers 429 insufficient_credits with the spec body, and 402 on registry-shaped routes', async () => {
    const { key } = await s.tenantWithKey('free');
    let last: Response | null = null;
    for (let i = 0; i < 4; i++) last = await s.fetch('/v1/test/registry', { method: 'POST', key });
    expect(last!.status).toBe(200);
    const over = await s.fetch('/v1/test/registry', { method: 'POST', key });
    expect(over.status).toBe(402);
    expect(await over.json()).toEqual({ success: false, error: 'Insufficient credits', credits_required: 5, credits_available: 0 });
    const general = await s.fetch('/v1/test/priced', { method: 'POST', key });
    expect(general.status).toBe(429);
    const body = await general.json();
    expect(body).toMatchObject({
      success: false,
      error: 'insufficient_credits',
      error_code: 'INSUFFICIENT_CREDITS',
      details: { credit_cost: 1, credit_balance: 0, needs_credits: 1 },
    });
    expect(typeof body.message).toBe('string');
    expect(typeof body.retry_after).toBe('number');
    expect(typeof body.details.upgrade_message).toBe('string');
    expect(body.details.reset_date).toMatch(/^\d{4}-\d{2}-01T00:00:00/);
    expect(general.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(general.headers.get('x-credit-cost')).toBe('1');
    expect(Number(general.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('spends purchased credits after the monthly allowance', async () => {
    const { tenantId, key } = await s.tenantWithKey('free');
    await s.grant(tenantId, 3);
    await s.setLimits(tenantId, null, null);
    for (let i = 0; i < 21; i++) expect((await s.fetch('/v1/test/priced', { method: 'POST', key })).status).toBe(200);
    expect((await s.fetch('/v1/test/priced', { method: 'POST', key })).status).toBe(200);
    const bal = await (await s.fetch('/v1/credits/balance', { key })).json();
    expect(bal.data).toMatchObject({ available_credits: 1, monthly_remaining: 0, purchased_credits: 1, total_used: 22 });
  }, 30_000);

  it('reports unlimited with admin_unlimited billing on Enterprise', async () => {
    const { key } = await s.tenantWithKey('enterprise');
    const r = await s.fetch('/v1/test/priced', { method: 'POST', key });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-billing-method')).toBe('admin_unlimited');
    expect(r.headers.get('x-credit-balance')).toBe('unlimited');
    expect(r.headers.get('x-ratelimit-limit')).toBe('unlimited');
  });
});

describe('rate and concurrency limits', () => {
  it('429 with Retry-After past the per-minute limit; heavy routes get half', async () => {
    const { key } = await s.tenantWithKey('free'); // 10 rpm standard, 5 heavy, 20 light
    const heavy: number[] = [];
    for (let i = 0; i < 6; i++) heavy.push((await s.fetch('/v1/test/heavy', { method: 'POST', key })).status);
    expect(heavy).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await s.fetch('/v1/test/heavy', { method: 'POST', key });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await limited.json()).error.code).toBe('rate_limit_exceeded');
    const light: number[] = [];
    for (let i = 0; i < 21; i++) light.push((await s.fetch('/v1/credits/balance', { key })).status);
    expect(light.filter((x) => x === 200)).toHaveLength(20);
    expect(light[20]).toBe(429);
  });

  it('429 past the concurrency limit', async () => {
    const { key } = await s.tenantWithKey('free'); // 1 concurrent
    const results = await Promise.all([0, 1, 2].map(() => s.fetch('/v1/test/slow', { method: 'POST', key })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 429, 429]);
    const limited = results.find((r) => r.status === 429)!;
    expect((await limited.json()).error.code).toBe('concurrency_limit_exceeded');
  });

  it('a client that closes its connection mid-call frees its slot, is not charged, and the call is recorded as 499', async () => {
    const { tenantId, key } = await s.tenantWithKey('free'); // 1 concurrent call, 20 credits
    const before = (await (await s.fetch('/v1/credits/balance', { key })).json()).data.available_credits;
    for (let i = 0; i < 2; i++) {
      const gone = new AbortController();
      const call = s.fetch('/v1/test/slow', { method: 'POST', key, signal: gone.signal }).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 100));
      gone.abort();
      expect(await call).toBeInstanceOf(Error);
      await new Promise((r) => setTimeout(r, 450)); // the handler (400 ms) has finished
      // the slot is free again: the next call is admitted (before, every later call got 429 until a restart)
      const next = await s.fetch('/v1/credits/balance', { key });
      expect(next.status).toBe(200);
      expect((await next.json()).data.available_credits).toBe(before);
    }
    await s.ctx.usage.flush();
    await s.ctx.projections.catchUp();
    const rows = await (await usageEventsCollection(s.ctx.readModels)).find({ tenant_id: tenantId, endpoint: '/v1/test/slow' });
    expect(rows.map((r) => [r.status_code, r.credits_charged])).toEqual([[499, 0], [499, 0]]);
    // a streamed download abandoned mid-way frees its slot too (Fastify never runs onResponse for it)
    for (let i = 0; i < 2; i++) {
      const gone = new AbortController();
      const res = await s.fetch('/v1/test/stream', { key, signal: gone.signal });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      await reader.read();
      gone.abort();
      await reader.cancel().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
      expect((await s.fetch('/v1/credits/balance', { key })).status).toBe(200);
    }
    await s.ctx.usage.flush();
    await s.ctx.projections.catchUp();
    const streamed = await (await usageEventsCollection(s.ctx.readModels)).find({ tenant_id: tenantId, endpoint: '/v1/test/stream' });
    expect(streamed.map((r) => r.status_code)).toEqual([499, 499]);
    const state = await s.ctx.credits.snapshot(tenantId);
    expect(state.open.size).toBe(0);
    expect(state.totalUsed).toBe(0);
  });
});

describe('usage events', () => {
  it('records every call, successful or not, into the usage read model', async () => {
    const { tenantId, key } = await s.tenantWithKey('pro');
    await s.fetch('/v1/test/priced', { method: 'POST', key, headers: { 'user-agent': 'usage-test/1.0', 'content-type': 'application/json' }, body: '{"a":1}' });
    await s.fetch('/v1/test/fails', { method: 'POST', key });
    await s.ctx.usage.flush();
    await s.ctx.projections.catchUp();
    const usage = await usageEventsCollection(s.ctx.readModels);
    const rows = await usage.find({ tenant_id: tenantId }, { sort: [{ field: 'created_at', order: 'asc' }] });
    expect(rows.map((r) => [r.endpoint, r.status_code, r.credits_charged])).toEqual([
      ['/v1/test/priced', 200, 1],
      ['/v1/test/fails', 400, 0],
    ]);
    expect(rows[0]).toMatchObject({ method: 'POST', request_size: 7, user_agent: 'usage-test/1.0', ip_address: '127.0.0.1' });
    expect(rows[0]!.response_time).toBeGreaterThan(0);
    expect(rows[0]!.response_time).toBeLessThan(5);
    expect(rows[0]!.response_size).toBeGreaterThan(0);
  });
});

describe('shapes, docs and errors', () => {
  it('JSON 404 for unknown routes and 400 validation errors in the route shape', async () => {
    const { key } = await s.tenantWithKey('pro', ['read', 'admin']);
    const nf = await s.fetch('/v1/nothing/here', { key });
    expect(nf.status).toBe(404);
    expect((await nf.json()).error.code).toBe('not_found');
    const bad = await s.fetch('/v1/api-keys', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ permissions: ['root'] }) });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('validation_error');
    const broken = await s.fetch('/v1/api-keys', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{"permissions":' });
    expect(broken.status).toBe(400);
    // nested past 64 levels: refused before any route stores it (SQLite's JSON functions stop at 1,000)
    const nest = (n: number) => `{"permissions":["read"],"x":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`;
    const deep = await s.fetch('/v1/api-keys', { method: 'POST', key, headers: { 'content-type': 'application/json; charset=utf-8' }, body: nest(64) });
    expect(deep.status).toBe(400);
    expect((await deep.json()).error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('64 levels') });
    expect((await s.fetch('/v1/api-keys', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: nest(62) })).status).toBe(201);
    const poisoned = await s.fetch('/v1/api-keys', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{"permissions":["read"],"__proto__":{"admin":true}}' });
    expect(poisoned.status).toBe(400);
  });

  it("requests Node's parser or Fastify's router refuses answer in the structured shape with every billing header; ids up to 1,024 characters reach their route", async () => {
    const { key } = await s.tenantWithKey('pro', ['read', 'write', 'admin']);
    const cases: Array<[string, string, number, string]> = [
      ['GET', '/v1/webhooks/endpoints/%ff', 400, 'invalid_request'],
      ['DELETE', `/v1/api-keys/${'k'.repeat(1025)}`, 414, 'uri_too_long'],
      // a key id of 101 characters (over Fastify's default limit of 100) reaches the route, whose schema refuses it
      ['DELETE', `/v1/api-keys/${'k'.repeat(101)}`, 400, 'validation_error'],
    ];
    for (const [method, path, status, code] of cases) {
      const r = await s.fetch(path, { method, key });
      expect(r.status, path.slice(0, 40)).toBe(status);
      const body = await r.json();
      expect(body).toMatchObject({ success: false, error: { code } });
      for (const h of BILLING_HEADERS) expect(r.headers.get(h), h).not.toBeNull();
    }
    // refused by Node's HTTP parser (request line and headers over 16 KiB): still the structured shape
    const huge = await s.fetch(`/v1/credits/balance?q=${'x'.repeat(20_000)}`, { key });
    expect(huge.status).toBe(431);
    expect(await huge.json()).toMatchObject({ success: false, error: { code: 'headers_too_large' } });
    for (const h of BILLING_HEADERS) expect(huge.headers.get(h), h).not.toBeNull();
    // a subject id of 200 characters (enrolment accepts up to 256) is answered by the verify route itself
    const long = await s.fetch(`/v1/face-matching/verify/${'s'.repeat(200)}`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(long.status).not.toBe(414);
    expect((await long.json()).error.code).not.toBe('uri_too_long');
  });

  it('serves an OpenAPI 3.1 document and a rendered reference', async () => {
    const doc = await (await s.fetch('/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    for (const p of ['/v1/credits/balance', '/v1/api-keys', '/v1/status']) expect(doc.paths[p], p).toBeDefined();
    // The edge's answers and the billing headers are documented on every authenticated route, in its group's shape.
    const stats = doc.paths['/v1/usage/stats'].get.responses;
    expect(Object.keys(stats)).toEqual(expect.arrayContaining(['200', '401', '403', '429']));
    expect(stats['401'].content['application/json'].schema.properties.error.properties.code.enum).toEqual(['unauthorized']);
    expect(Object.keys(stats['200'].headers)).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-Credit-Balance', 'X-Credit-Cost', 'X-Request-Id']));
    const email = doc.paths['/v1/email/verify'].get.responses;
    expect(email['401'].content['application/json'].schema.properties.error.enum).toEqual(['unauthorized']); // flat shape
    expect(JSON.stringify(email['429'])).toContain('INSUFFICIENT_CREDITS'); // a priced route
    // route-level codes of the usage and webhook groups (bodies serialized whole: details kept)
    expect(JSON.stringify(stats['400'])).toContain('invalid_date_range');
    expect(JSON.stringify(doc.paths['/v1/webhooks/endpoints'].post.responses['400'])).toContain('url_not_allowed');
    expect(Object.keys(doc.paths['/v1/webhooks/endpoints/{endpoint_id}'].put.responses)).toEqual(expect.arrayContaining(['400', '404']));
    expect(doc.paths['/v1/mex/renapo/get-curp'].post.responses['401'].content['application/json'].schema.properties.type.enum).toEqual(['UNAUTHORIZED']);
    const docs = await s.fetch('/docs', { redirect: 'follow' });
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('<html');
  });

  it('reports service and dependency health', async () => {
    const { key } = await s.tenantWithKey('pro');
    // The health job needs a started inference worker: on a slow or busy machine the workers may still be
    // loading their models (the route then answers `degraded` with the job's timeout as `detail`), so
    // ask again until the job queue answers, within a minute.
    let body = await (await s.fetch('/v1/status', { key })).json();
    for (let i = 0; i < 12 && body.data.dependencies.job_queue.status !== 'ok'; i++) {
      expect(body.data.status).toBe('degraded');
      expect(body.data.dependencies.job_queue.detail).toMatch(/within|timed out|timeout/i);
      body = await (await s.fetch('/v1/status', { key })).json();
    }
    expect(body.data.status).toBe('ok');
    expect(body.data.dependencies.job_queue.status).toBe('ok');
    expect(body.data.dependencies.event_store.status).toBe('ok');
  }, 90_000);

  it('keeps an incoming X-Request-Id and makes one otherwise', async () => {
    const r = await s.fetch('/v1/status', { headers: { 'x-request-id': 'abc-123' } });
    expect(r.headers.get('x-request-id')).toBe('abc-123');
    const r2 = await s.fetch('/v1/status', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(r2.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
