import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { registerTestRoutes } from '../../helpers/test-routes.ts';
import { dropSchemas, postgresReachable, testDatabaseUrl, uniqueSchema } from '../../helpers/postgres.ts';
import { redisReachable, testRedisUrl } from '../../helpers/redis.ts';

/**
 * Two API instances (in this process) on one PostgreSQL event store and one Redis: the per-minute and
 * concurrency limits hold across both (RATE_LIMITER=redis). The multi-process version of this is
 * test/integration/scaled-out.test.ts.
 */
const ready = (await postgresReachable('shared-limit edge tests')) && (await redisReachable('shared-limit edge tests'));
const schema = uniqueSchema('sello_edge');
const prefix = `sello-edge-${process.pid}-${Math.random().toString(36).slice(2)}:`;

describe.runIf(ready)('limits shared by two API instances (Redis)', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    // One PRIVACY_MASTER_KEY for both (a shared event store; docs/operations.md), as a deployment must.
    const config = { EVENT_STORE: 'postgres', DATABASE_URL: testDatabaseUrl(), DATABASE_SCHEMA: schema, READ_MODELS: 'sqlite', RATE_LIMITER: 'redis', REDIS_URL: testRedisUrl(), REDIS_PREFIX: prefix, PRIVACY_MASTER_KEY: randomBytes(32).toString('hex') };
    a = await startTestServer({ extend: (app) => registerTestRoutes(app), config });
    b = await startTestServer({ extend: (app) => registerTestRoutes(app), config });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await dropSchemas([schema]);
  });

  it('a tenant limited to N requests per minute gets exactly N through across both instances', async () => {
    const { tenantId, key } = await a.tenantWithKey('pro');
    await a.setLimits(tenantId, 13, null);
    await b.ctx.tenancy.catchUp();
    const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).fetch('/v1/test/heavy', { method: 'POST', key })));
    // heavy = half of the per-minute limit, rounded down (domain/plans): 6
    const codes = statuses.map((r) => r.status);
    expect(codes.filter((c) => c === 200)).toHaveLength(6);
    expect(codes.filter((c) => c === 429)).toHaveLength(34);
    const light = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).fetch('/v1/test/write', { method: 'POST', key })));
    expect(light.filter((r) => r.status === 200)).toHaveLength(13);
    const limited = light.find((r) => r.status === 429)!;
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await limited.json()).error.code).toBe('rate_limit_exceeded');
  });

  it('the concurrency limit holds across both instances and frees its slots', async () => {
    const { tenantId, key } = await a.tenantWithKey('pro');
    await a.grant(tenantId, 100);
    await a.setLimits(tenantId, null, 2);
    await b.ctx.tenancy.catchUp();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).fetch('/v1/test/slow', { method: 'POST', key })));
    const codes = results.map((r) => r.status).sort();
    expect(codes).toEqual([200, 200, 429, 429, 429, 429]);
    expect(await a.ctx.rateLimiter.current(tenantId)).toBe(0);
    expect((await b.fetch('/v1/test/slow', { method: 'POST', key })).status).toBe(200);
  });
});

describe.runIf(ready)('when Redis is unreachable', () => {
  let s: TestServer;
  beforeAll(async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    s = await startTestServer({ extend: (app) => registerTestRoutes(app), config: { RATE_LIMITER: 'redis', REDIS_URL: `redis://127.0.0.1:${port}` } });
  });
  afterAll(async () => s?.close());

  it('the edge fails closed: 503 service_unavailable with Retry-After, nothing charged', async () => {
    const { tenantId, key } = await s.tenantWithKey('pro');
    const before = await s.ctx.credits.available(tenantId, 1000);
    const r = await s.fetch('/v1/test/priced', { method: 'POST', key });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('5');
    const body = await r.json();
    expect(body).toMatchObject({ success: false, error: { code: 'service_unavailable', details: { service: 'rate_limiter' } } });
    expect(await s.ctx.credits.available(tenantId, 1000)).toBe(before);
    // Unauthenticated requests are still answered 401 (authentication comes before the limiter).
    expect((await s.fetch('/v1/test/priced', { method: 'POST' })).status).toBe(401);
  });
});
