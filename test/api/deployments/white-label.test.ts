import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../contract/workflows.contract.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { registerTestRoutes } from '../../helpers/test-routes.ts';
import { makeCertificate, type TestCertificate } from '../../helpers/webhook-receiver.ts';
import { makePng, startLogoServer, type LogoServer } from '../../helpers/logo-server.ts';
import { creditStream } from '../../../domain/credits/credits.ts';

const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

type Rec = {
  id: string;
  status: string;
  plan: string;
  clientId: string;
  monthlyCreditCap: number | null;
  provisioned_tenant_id: string | null;
  api_keys: { key_id: string; test: boolean; key?: string }[];
  steps: { step: string; outcome: string }[];
  failure: { step: string; code: string } | null;
};
type ErrorBody = { success: false; error: { code: string; message: string; details: Record<string, unknown> } };
type Balance = { data: { available_credits: number | 'unlimited'; monthly_allowance: number | 'unlimited'; total_used: number; white_label_client?: { monthly_cap: number | null; used_this_month: number } } };

/**
 * Issue 31, item 3: deployments minted free money (each client tenant had its own monthly allowance, any
 * number of them, with working keys even when provisioning failed). The white-label model now: a client's
 * calls spend its owner's credits, within an optional monthly cap the owner sets; live deployments are
 * capped per plan; the keys are issued last. Item 9: `PUT` refuses immutable and unknown fields.
 */
describe('white-label deployments: owner-funded clients, caps, and no free money (over HTTP)', () => {
  let cert: TestCertificate;
  let logos: LogoServer;
  let s: TestServer;

  beforeAll(async () => {
    cert = await makeCertificate();
    logos = await startLogoServer(cert);
    const png = await makePng(120, 40);
    logos.on('/logo.png', () => ({ status: 200, body: png, type: 'image/png' }));
    logos.on('/broken.png', () => ({ status: 500, body: Buffer.from('down') }));
    s = await startTestServer({
      config: { WORKFLOW_POLL_MS: 20 },
      overrides: { capabilityTestOptions: { deployments: { logoFetch: { allowCidrs: '127.0.0.0/8,::1/128', caCertsPem: cert.cert, timeoutMs: 5_000 } } } },
      extend: (app) => registerTestRoutes(app),
    });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await logos?.close();
    cert?.dispose();
  });

  const rnd = () => Math.random().toString(36).slice(2, 10);
  const body = (over: Record<string, unknown> = {}, logo = '/logo.png') => ({
    clientId: `c-${rnd()}`,
    clientName: 'Cliente Ejemplo',
    domain: `kyc-${rnd()}.ejemplo.mx`,
    platform: 'web',
    environment: 'production',
    ...over,
    config: { primaryColor: '#0A7C66', logo: `${logos.origin}${logo}`, companyName: 'Cliente Ejemplo' },
  });
  const create = async (key: string, b: unknown) => {
    const res = await s.fetch('/api/deployments/create', { method: 'POST', key, ...json(b) });
    return { status: res.status, body: (await res.json()) as { data: Rec } & ErrorBody };
  };
  const owner = async (plan: 'free' | 'basic' | 'pro') => {
    const tenantId = await s.createTenant(plan);
    return { tenantId, admin: (await s.createKey(tenantId, ['read', 'write', 'admin'])).key, rw: (await s.createKey(tenantId, ['read', 'write'])).key };
  };
  /** Waits for `active` and returns the record with the live key, revealed once on the way. */
  const activeWithKey = async (admin: string, id: string) => {
    let key = '';
    const rec = await eventually(
      async () => {
        const r = ((await (await s.fetch(`/api/deployments/${id}/status`, { key: admin })).json()) as { data: Rec }).data;
        key ||= r.api_keys.find((k) => !k.test && k.key)?.key ?? '';
        return r.status === 'active' ? r : null;
      },
      30_000,
      'active',
    );
    expect(key).toMatch(/^sk_live_/);
    await s.ctx.tenancy.catchUp();
    return { rec, key };
  };
  const balance = async (key: string) => {
    const res = await s.fetch('/v1/credits/balance', { key });
    expect(res.status).toBe(200);
    return { body: ((await res.json()) as Balance).data, limit: res.headers.get('x-ratelimit-limit'), remaining: res.headers.get('x-ratelimit-remaining') };
  };
  const call = async (key: string, path: string) => {
    const res = await s.fetch(path, { method: 'POST', key });
    return { status: res.status, cost: res.headers.get('x-credit-cost'), balance: res.headers.get('x-credit-balance'), body: (await res.json()) as Record<string, unknown> };
  };

  it('caps live deployments per plan: a Free tenant gets one, the next is 403 deployment_limit_reached; deactivating frees the slot', async () => {
    const free = await owner('free');
    const first = await create(free.admin, body());
    expect(first.status).toBe(201);
    const second = await create(free.admin, body());
    expect(second.status).toBe(403);
    expect(second.body).toMatchObject({ success: false, error: { code: 'deployment_limit_reached', details: { limit: 1, live: 1, plan: 'free' } } });
    expect(second.body.error.message).toContain('free');
    // Nothing of the refused one exists: still one deployment listed.
    const list = (await (await s.fetch('/api/deployments', { key: free.admin })).json()) as { pagination: { total: number } };
    expect(list.pagination.total).toBe(1);

    expect((await s.fetch(`/api/deployments/${first.body.data.id}/deactivate`, { method: 'POST', key: free.admin })).status).toBe(200);
    expect((await create(free.admin, body())).status).toBe(201);
    expect((await create(free.admin, body())).status).toBe(403);
  });

  it('holds the cap under concurrent creates: 8 at once on Basic (5) give exactly 5 deployments', async () => {
    const basic = await owner('basic');
    const results = await Promise.all(Array.from({ length: 8 }, () => create(basic.admin, body())));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 201, 403, 403, 403]);
    for (const r of results.filter((x) => x.status === 403)) expect(r.body.error.code).toBe('deployment_limit_reached');
    const list = (await (await s.fetch('/api/deployments?per_page=100', { key: basic.admin })).json()) as { pagination: { total: number } };
    expect(list.pagination.total).toBe(5);
  }, 60_000);

  it("charges a client's calls to its owner, enforces the owner's monthly cap exactly (also under concurrency), and never gives a client credits of its own", async () => {
    const o = await owner('basic'); // 4,000 credits a month
    const created = await create(o.admin, body({ monthlyCreditCap: 12 }));
    expect(created.status).toBe(201);
    expect(created.body.data.monthlyCreditCap).toBe(12);
    const { rec, key: client } = await activeWithKey(o.admin, created.body.data.id);
    const clientTenant = rec.provisioned_tenant_id!;

    // The client sees what it may spend: its cap, not a plan allowance of its own.
    const b0 = await balance(client);
    expect(b0.body).toMatchObject({ available_credits: 12, monthly_allowance: 12, white_label_client: { monthly_cap: 12, used_this_month: 0 } });
    expect([b0.limit, b0.remaining]).toEqual(['12', '12']);

    // 5 + 5 credits, a failed call (not charged), then a 5-credit call past the cap: refused (registry shape, 402).
    expect((await call(client, '/v1/test/registry')).status).toBe(200);
    const second = await call(client, '/v1/test/registry');
    expect([second.status, second.cost, second.balance]).toEqual([200, '5', '2']);
    expect((await call(client, '/v1/test/fails')).status).toBe(400);
    const over = await call(client, '/v1/test/registry');
    expect(over.status).toBe(402);
    expect(over.body).toMatchObject({ success: false, error: 'Insufficient credits', credits_required: 5, credits_available: 2 });
    // The last 2 credits, then the general 429 answer.
    expect((await call(client, '/v1/test/priced')).status).toBe(200);
    expect((await call(client, '/v1/test/priced')).status).toBe(200);
    const capped = await call(client, '/v1/test/priced');
    expect(capped.status).toBe(429);
    expect(capped.body).toMatchObject({ error: 'insufficient_credits', error_code: 'INSUFFICIENT_CREDITS', details: { credit_cost: 1, credit_balance: 0 } });
    expect(String(capped.body.message)).toContain('cap');

    // Exact: the owner paid 12, the client's own stream holds no reservation (only its link).
    const ob = await balance(o.rw);
    expect(ob.body).toMatchObject({ available_credits: 4000 - 12, total_used: 12 });
    const own = await s.ctx.events.readStream(creditStream(clientTenant));
    expect(own.events.map((e) => e.type)).toEqual(['CreditAccountLinked']);
    expect((await balance(client)).body).toMatchObject({ available_credits: 0, white_label_client: { monthly_cap: 12, used_this_month: 12 } });
    // The usage read models say the same (the cap is its limit; its spending is on the owner's account).
    await s.ctx.projections.catchUp();
    const summary = (await (await s.fetch('/v1/usage/summary', { key: client })).json()) as { summary: { limit: number; remaining_calls: number; percent_used: string } };
    expect(summary.summary).toMatchObject({ limit: 12, remaining_calls: 0, percent_used: '100.0%' });
    const usageCredits = (await (await s.fetch('/v1/usage/credits', { key: client })).json()) as { data: { remaining: number; total_used: number } };
    expect(usageCredits.data).toMatchObject({ remaining: 0, total_used: 12 });
    const ownerCredits = (await (await s.fetch('/v1/usage/credits', { key: o.rw })).json()) as { data: { remaining: number; total_used: number } };
    expect(ownerCredits.data).toMatchObject({ remaining: 4000 - 12, total_used: 12 });

    // The owner raises the cap to 30 (18 more): 40 concurrent calls, exactly 18 succeed.
    const up = await s.fetch(`/api/deployments/${rec.id}`, { method: 'PUT', key: o.admin, ...json({ monthlyCreditCap: 30 }) });
    expect(up.status).toBe(200);
    expect(((await up.json()) as { data: Rec }).data.monthlyCreditCap).toBe(30);
    await eventually(async () => (await balance(client)).body.available_credits === 18, 5_000, 'new cap');
    await s.setLimits(clientTenant, null, null);
    const burst = await Promise.all(Array.from({ length: 40 }, () => call(client, '/v1/test/priced')));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(18);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(22);
    expect((await balance(o.rw)).body).toMatchObject({ available_credits: 4000 - 30, total_used: 30 });

    // No cap: the client spends what the owner has (the owner's balance is the limit).
    expect((await s.fetch(`/api/deployments/${rec.id}`, { method: 'PUT', key: o.admin, ...json({ monthlyCreditCap: null }) })).status).toBe(200);
    await eventually(async () => (await balance(client)).body.available_credits === 3970, 5_000, 'cap removed');
    expect((await balance(client)).limit).toBe('4000');

    // A client tenant cannot resell: even with an admin key it creates no deployment.
    const clientAdmin = (await s.createKey(clientTenant, ['read', 'write', 'admin'])).key;
    const resale = await create(clientAdmin, body());
    expect(resale.status).toBe(403);
    expect(resale.body.error).toMatchObject({ code: 'deployment_limit_reached', details: { limit: 0 } });
  }, 90_000);

  it("a Free owner's client spends the owner's 20 credits, not 20 of its own: the issue's free-money case", async () => {
    const o = await owner('free');
    const created = await create(o.admin, body());
    expect(created.status).toBe(201);
    expect(created.body.data.plan).toBe('free');
    const { key: client, rec } = await activeWithKey(o.admin, created.body.data.id);
    // Free allows 10 calls a minute: lifted, so credits are what runs out.
    await s.setLimits(o.tenantId, null, null);
    await s.setLimits(rec.provisioned_tenant_id!, null, null);
    for (let i = 0; i < 15; i++) expect((await call(client, '/v1/test/priced')).status).toBe(200);
    // The owner spends 5 itself; then both are out of credits.
    for (let i = 0; i < 5; i++) expect((await call(o.rw, '/v1/test/priced')).status).toBe(200);
    for (const key of [client, o.rw]) {
      const r = await call(key, '/v1/test/priced');
      expect(r.status).toBe(429);
      expect(r.body).toMatchObject({ error: 'insufficient_credits' });
    }
    expect((await balance(o.rw)).body).toMatchObject({ available_credits: 0, total_used: 20 });
    expect((await balance(client)).body.available_credits).toBe(0);
  }, 60_000);

  it('a failed provisioning leaves no key: branding fails, no key was issued, none was shown, the tenant has none', async () => {
    const o = await owner('pro');
    const created = await create(o.admin, body({}, '/broken.png'));
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const seen: string[] = [];
    const failed = await eventually(
      async () => {
        const r = ((await (await s.fetch(`/api/deployments/${id}/status`, { key: o.admin })).json()) as { data: Rec }).data;
        for (const k of r.api_keys) if (k.key) seen.push(k.key);
        return r.status === 'failed' ? r : null;
      },
      30_000,
      'failed',
    );
    expect(failed.failure).toMatchObject({ step: 'branding', code: 'logo_unreachable' });
    expect(failed.api_keys).toEqual([]);
    expect(seen).toEqual([]);
    await s.ctx.tenancy.catchUp();
    const keys = [...s.ctx.tenancy.state.keys.values()].filter((k) => k.tenantId === failed.provisioned_tenant_id);
    expect(keys).toEqual([]);
    // Still failed a moment later (nothing runs on): no key appears.
    await new Promise((r) => setTimeout(r, 300));
    const later = ((await (await s.fetch(`/api/deployments/${id}/status`, { key: o.admin })).json()) as { data: Rec }).data;
    expect([later.status, later.api_keys.length]).toEqual(['failed', 0]);
  }, 60_000);

  it('PUT refuses immutable and unknown fields with 400 validation_error naming them, and changes nothing', async () => {
    const o = await owner('pro');
    const created = await create(o.admin, body({ plan: 'basic' }));
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const cases: [Record<string, unknown>, string][] = [
      [{ plan: 'enterprise' }, '`plan` cannot be changed'],
      [{ clientId: 'other-client' }, '`clientId` cannot be changed'],
      [{ status: 'active' }, '`status` cannot be changed'],
      [{ clientName: 'Nuevo', plan: 'pro', colour: 'red' }, 'unknown field `colour`'],
      [{ config: { primaryColour: '#000000' } }, 'config: unknown field `primaryColour`'],
      [{ monthlyCreditCap: -1 }, 'monthlyCreditCap'],
      [{ monthlyCreditCap: 2.5 }, 'monthlyCreditCap'],
    ];
    for (const [b, text] of cases) {
      const res = await s.fetch(`/api/deployments/${id}`, { method: 'PUT', key: o.admin, ...json(b) });
      const out = (await res.json()) as ErrorBody;
      expect(res.status, JSON.stringify(b)).toBe(400);
      expect(out).toMatchObject({ success: false, error: { code: 'validation_error' } });
      expect(out.error.message, JSON.stringify(b)).toContain(text);
    }
    const rec = ((await (await s.fetch(`/api/deployments/${id}/status`, { key: o.admin })).json()) as { data: Rec & { clientName: string } }).data;
    expect([rec.plan, rec.clientId, rec.clientName]).toEqual(['basic', created.body.data.clientId, 'Cliente Ejemplo']);
    // Allowed fields still work.
    expect((await s.fetch(`/api/deployments/${id}`, { method: 'PUT', key: o.admin, ...json({ clientName: 'Nuevo nombre', monthlyCreditCap: 100 }) })).status).toBe(200);
  }, 60_000);
});
