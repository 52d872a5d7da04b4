import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../contract/workflows.contract.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { makeCertificate, type TestCertificate } from '../../helpers/webhook-receiver.ts';
import { makePng, startLogoServer, type LogoServer } from '../../helpers/logo-server.ts';
import { deploymentsCapability } from '../../../apps/capabilities/deployments.ts';
import { contrastRatio } from '../../../domain/deployments/contrast.ts';
import { tenantStream } from '../../../domain/tenancy/tenancy.ts';
import { dropSchemas, postgresReachable, testDatabaseUrl, uniqueSchema } from '../../helpers/postgres.ts';

const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

type Rec = {
  id: string;
  status: string;
  domain: string;
  domain_unicode: string;
  provisioned_tenant_id: string | null;
  api_keys: { key_id: string; hint: string; test: boolean; key?: string }[];
  api_keys_revealed_at: string | null;
  run: number;
  steps: { run: number; step: string; outcome: string; code: string | null; reason: string | null }[];
  failure: { step: string; code: string; reason: string } | null;
  branding: null | { company_name: string; primary_color: string; logo_url: string; contrast: { adjusted: boolean; requested_ratio: number; effective_ratio: number; effective: string } };
  config: { primaryColor: string };
};

/** The read models on SQLite (embedded default) and, when a server answers, on PostgreSQL. */
const variants: { name: string; config: () => Record<string, unknown> }[] = [{ name: 'SQLite read models', config: () => ({}) }];
const schemas: string[] = [];
if (await postgresReachable('/api/deployments on PostgreSQL read models')) {
  variants.push({
    name: 'PostgreSQL read models',
    config: () => {
      const schema = uniqueSchema('deployments');
      schemas.push(schema);
      return { DATABASE_URL: testDatabaseUrl(), DATABASE_SCHEMA: schema, READ_MODELS: 'postgres' };
    },
  });
}
afterAll(async () => {
  await dropSchemas(schemas);
});

for (const variant of variants)
describe(`/api/deployments over real HTTP (loopback HTTPS logo server, self-signed), ${variant.name}`, () => {
  let cert: TestCertificate;
  let logos: LogoServer;
  let s: TestServer;
  let admin: string;
  let ownerTenant: string;
  let readWrite: string;
  let otherAdmin: string;
  let png: Buffer;

  beforeAll(async () => {
    cert = await makeCertificate();
    logos = await startLogoServer(cert);
    png = await makePng(240, 80);
    logos.on('/logo.png', () => ({ status: 200, body: png, type: 'image/png' }));
    // Test-only allowance: loopback and the test CA. Production config has no way to set these.
    s = await startTestServer({
      config: { WORKFLOW_POLL_MS: 20, ...variant.config() },
      overrides: { capabilityTestOptions: { deployments: { logoFetch: { allowCidrs: '127.0.0.0/8,::1/128', caCertsPem: cert.cert, timeoutMs: 5_000 } } } },
    });
    ownerTenant = await s.createTenant('pro');
    admin = (await s.createKey(ownerTenant, ['read', 'write', 'admin'])).key;
    readWrite = (await s.createKey(ownerTenant, ['read', 'write'])).key;
    const other = await s.createTenant('pro');
    otherAdmin = (await s.createKey(other, ['read', 'write', 'admin'])).key;
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await logos?.close();
    cert?.dispose();
  });

  const body = (over: Record<string, unknown> = {}, config: Record<string, unknown> = {}) => ({
    clientId: `client-${Math.random().toString(36).slice(2, 10)}`,
    clientName: 'Financiera Ejemplo',
    domain: `kyc-${Math.random().toString(36).slice(2, 10)}.ejemplo.mx`,
    platform: 'web',
    environment: 'production',
    ...over,
    config: { primaryColor: '#0A7C66', logo: `${logos.origin}/logo.png`, companyName: 'Financiera Ejemplo', ...config },
  });
  const create = (b: unknown, key = admin) => s.fetch('/api/deployments/create', { method: 'POST', key, ...json(b) });
  const status = async (id: string, key = admin) => (await (await s.fetch(`/api/deployments/${id}/status`, { key })).json()) as { data: Rec };

  it('needs credentials (401) and the admin permission (403) on every management route', async () => {
    const routes: [string, string][] = [
      ['GET', '/api/deployments'],
      ['POST', '/api/deployments/create'],
      ['GET', '/api/deployments/dep_00000000000000000000000000000000/status'],
      ['PUT', '/api/deployments/dep_00000000000000000000000000000000'],
      ['POST', '/api/deployments/dep_00000000000000000000000000000000/retry'],
      ['POST', '/api/deployments/dep_00000000000000000000000000000000/deactivate'],
    ];
    for (const [method, path] of routes) {
      const init = method === 'GET' ? { method } : { method, ...json(body()) };
      const anon = await s.fetch(path, init);
      expect(anon.status, `${method} ${path}`).toBe(401);
      const res = await s.fetch(path, { ...init, key: readWrite });
      expect(res.status, `${method} ${path}`).toBe(403);
      const b = (await res.json()) as { success: boolean; error: { code: string } };
      expect(b).toMatchObject({ success: false, error: { code: 'insufficient_permissions' } });
    }
  });

  it('validates fields in the structured error shape', async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [{}, { primaryColor: 'teal' }, 'invalid_color'],
      [{}, { primaryColor: '#12345' }, 'invalid_color'],
      [{}, { logo: 'http://cdn.example.mx/logo.png' }, 'invalid_logo_url'],
      [{}, { logo: 'https://user:pw@cdn.example.mx/logo.png' }, 'invalid_logo_url'],
      [{}, { logo: 'not a url' }, 'invalid_logo_url'],
      [{ domain: 'localhost' }, {}, 'invalid_domain'],
      [{ domain: '-bad-.ejemplo.mx' }, {}, 'invalid_domain'],
      [{ domain: '10.0.0.1' }, {}, 'invalid_domain'],
      [{ domain: 'https://kyc.ejemplo.mx/' }, {}, 'invalid_domain'],
      [{ domain: 'a..ejemplo.mx' }, {}, 'invalid_domain'],
      [{ domain: `${'a'.repeat(64)}.mx` }, {}, 'invalid_domain'],
      [{ platform: 'windows-phone' }, {}, 'validation_error'],
      [{ environment: 'qa' }, {}, 'validation_error'],
      [{ clientId: 'has space' }, {}, 'validation_error'],
      [{ clientName: '   ' }, {}, 'validation_error'],
      [{}, { companyName: '' }, 'validation_error'],
    ];
    for (const [over, config, code] of cases) {
      const res = await create(body(over, config));
      const b = (await res.json()) as { success: boolean; error: { code: string; message: string } };
      expect(res.status, JSON.stringify({ over, config, b })).toBe(400);
      expect(b.success).toBe(false);
      expect(b.error.code, JSON.stringify({ over, config })).toBe(code);
      expect(b.error.message.length).toBeGreaterThan(5);
    }
    const missing = await s.fetch('/api/deployments/create', { method: 'POST', key: admin, ...json({ clientId: 'x' }) });
    expect(missing.status).toBe(400);
    const mb = (await missing.json()) as { error: { code: string; details: { issues: unknown[] } } };
    expect(mb.error.code).toBe('validation_error');
    expect(mb.error.details.issues.length).toBeGreaterThan(0);
  });

  it("never gives a client a plan above its owner's (403 plan_not_allowed); the default is basic, or the owner's plan when lower", async () => {
    const code = async (r: Response) => ((await r.json()) as { error: { code: string; details: Record<string, unknown> } }).error;
    // pro owner: enterprise (unlimited credits) refused, pro and the default (basic) accepted
    const ent = await create(body({ plan: 'enterprise' }));
    expect(ent.status).toBe(403);
    expect(await code(ent)).toMatchObject({ code: 'plan_not_allowed', details: { plan: 'enterprise', your_plan: 'pro' } });
    const pro = await create(body({ plan: 'pro' }));
    expect(pro.status).toBe(201);
    expect(((await pro.json()) as { data: { plan: string } }).data.plan).toBe('pro');
    // free owner: anything above free refused; without a plan the client gets free
    const free = await s.createTenant('free');
    const freeAdmin = (await s.createKey(free, ['read', 'write', 'admin'])).key;
    for (const plan of ['basic', 'pro', 'enterprise']) {
      const r = await create(body({ plan }), freeAdmin);
      expect(r.status, plan).toBe(403);
      expect((await code(r)).code).toBe('plan_not_allowed');
    }
    const dflt = await create(body(), freeAdmin);
    expect(dflt.status).toBe(201);
    expect(((await dflt.json()) as { data: { plan: string } }).data.plan).toBe('free');
    // a refused create claimed nothing: the same clientId and domain are free for the next try
    const b = body({ plan: 'enterprise' });
    expect((await create(b)).status).toBe(403);
    expect((await create({ ...b, plan: 'basic' })).status).toBe(201);
  });

  it('normalises IDNA domains and colours, and keeps clientId unique per owning tenant and domains unique overall', async () => {
    const b = body({ domain: 'Café-Test.Ejemplo.MX' }, { primaryColor: '#0a7' });
    const res = await create(b);
    expect(res.status).toBe(201);
    const rec = ((await res.json()) as { data: Rec }).data;
    expect(rec.domain).toBe('xn--caf-test-d1a.ejemplo.mx');
    expect(rec.domain_unicode).toBe('café-test.ejemplo.mx');
    expect(rec.config.primaryColor).toBe('#00AA77');
    expect(['pending', 'provisioning', 'active']).toContain(rec.status);

    const dupClient = await create({ ...body(), clientId: b.clientId });
    expect(dupClient.status).toBe(409);
    expect(((await dupClient.json()) as { error: { code: string } }).error.code).toBe('client_id_taken');
    // Another tenant may use the same clientId, but not the same domain (a domain selects one branding).
    expect((await create({ ...body(), clientId: b.clientId }, otherAdmin)).status).toBe(201);
    const dupDomain = await create({ ...body(), domain: 'xn--caf-test-d1a.ejemplo.mx' }, otherAdmin);
    expect(dupDomain.status).toBe(409);
    const dd = (await dupDomain.json()) as { error: { code: string; details: Record<string, unknown> } };
    expect(dd.error.code).toBe('domain_taken');
    expect(dd.error.details).toMatchObject({ field: 'domain', domain: 'xn--caf-test-d1a.ejemplo.mx' });
    expect(JSON.stringify(dd)).not.toContain(rec.id); // another tenant's deployment id is not disclosed
    await eventually(async () => (await status(rec.id)).data.status === 'active', 30_000, 'active');
  });

  it('keeps clientId unique under concurrent creates (exactly one wins)', async () => {
    const clientId = `race-${Math.random().toString(36).slice(2, 8)}`;
    const results = await Promise.all(Array.from({ length: 6 }, () => create({ ...body(), clientId })));
    const codes = results.map((r) => r.status).sort();
    expect(codes).toEqual([201, 409, 409, 409, 409, 409]);
    const domain = `race-${Math.random().toString(36).slice(2, 8)}.ejemplo.mx`;
    const byDomain = await Promise.all(Array.from({ length: 4 }, (_, i) => create({ ...body(), domain }, i % 2 ? otherAdmin : admin)));
    expect(byDomain.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });

  it('provisions: the logo step fails on a 500 and no key exists; retry resumes without a second tenant, then the keys are shown once', async () => {
    let calls = 0;
    logos.on('/flaky.png', () => (++calls === 1 ? { status: 500, body: Buffer.from('oops') } : { status: 200, body: png, type: 'image/png' }));
    const res = await create(body({}, { logo: `${logos.origin}/flaky.png`, primaryColor: '#FFD700' }));
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { data: Rec }).data.id;

    let shown: Rec['api_keys'] = [];
    const failed = await eventually(
      async () => {
        const r = (await status(id)).data;
        if (r.api_keys.some((k) => k.key)) shown = r.api_keys;
        return r.status === 'failed' ? r : null;
      },
      15_000,
      'failed',
    );
    expect(failed.failure).toMatchObject({ step: 'branding', code: 'logo_unreachable' });
    expect(failed.failure!.reason).toContain('HTTP 500');
    // The keys come last (issue 31): a failed provisioning issued none, so none was ever shown.
    expect(failed.steps.map((h) => `${h.step}:${h.outcome}`)).toEqual(['tenant:completed', 'branding:failed']);
    expect(failed.api_keys).toEqual([]);
    expect(shown).toEqual([]);
    const tenantId = failed.provisioned_tenant_id!;
    expect((await s.ctx.events.readAll({ types: ['ApiKeyCreated'] })).filter((e) => (e.data as { tenant_id: string }).tenant_id === tenantId)).toHaveLength(0);

    const retry = await s.fetch(`/api/deployments/${id}/retry`, { method: 'POST', key: admin });
    expect(retry.status).toBe(202);
    const active = await eventually(
      async () => {
        const r = (await status(id)).data;
        if (r.api_keys.some((k) => k.key)) shown = r.api_keys;
        return r.status === 'active' ? r : null;
      },
      30_000,
      'active',
    );
    expect(calls).toBe(2);
    expect(active.provisioned_tenant_id).toBe(tenantId);
    expect(active.steps.filter((h) => h.run === 2).map((h) => `${h.step}:${h.outcome}`)).toEqual(['branding:completed', 'api_keys:completed']);
    // The secrets were in one answer (a live and a test key); a later read has none.
    expect(shown.map((k) => [k.test, k.key!.slice(0, 8)])).toEqual([[false, 'sk_live_'], [true, 'sk_test_']]);
    const after = (await status(id)).data;
    expect(after.api_keys.every((k) => k.key === undefined)).toBe(true);
    expect(after.api_keys_revealed_at).not.toBeNull();
    const keyIds = after.api_keys.map((k) => k.key_id);
    expect(keyIds).toHaveLength(2);
    // The revealed live key works for the client's tenant.
    const bal = await s.fetch('/v1/credits/balance', { key: shown[0]!.key });
    expect(bal.status).toBe(200);
    // One tenant, two keys in the log: nothing was created twice.
    expect((await s.ctx.events.readStream(tenantStream(tenantId))).events.filter((e) => e.type === 'TenantCreated')).toHaveLength(1);
    const keysOfTenant = (await s.ctx.events.readAll({ types: ['ApiKeyCreated'] })).filter((e) => (e.data as { tenant_id: string }).tenant_id === tenantId);
    expect(keysOfTenant).toHaveLength(2);

    // #FFD700 on white text is 1.4:1: darkened to reach AA, and the record says so.
    const b = active.branding!;
    expect(b.contrast.adjusted).toBe(true);
    expect(b.contrast.requested_ratio).toBeLessThan(4.5);
    expect(contrastRatio(b.primary_color, '#FFFFFF')).toBeGreaterThanOrEqual(4.5);
    expect(b.primary_color).not.toBe('#FFD700');

    // The stored logo is served publicly as PNG; branding lookups by tenant and by Host.
    const logo = await fetch(`${s.url}${b.logo_url}`);
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await logo.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
    const branding = s.ctx.use(deploymentsCapability).branding;
    expect((await branding.brandingForTenant(tenantId)).primaryColor).toBe(b.primary_color);
    expect((await branding.brandingForHost(`${active.domain.toUpperCase()}:443`)).companyName).toBe('Financiera Ejemplo');
    expect((await branding.brandingForHost('unknown.example.com')).deploymentId).toBeNull();
    expect((await branding.brandingForPage({ tenantId: ownerTenant, host: active.domain })).deploymentId).toBe(id);
    expect((await branding.brandingForPage({ tenantId: tenantId, host: 'other.example.com' })).deploymentId).toBe(id);
    expect((await branding.brandingForPage({ tenantId: ownerTenant, host: '127.0.0.1:3000' })).companyName).toBe('Sello');

    // Update the colour: a new run of the branding step only.
    const upd = await s.fetch(`/api/deployments/${id}`, { method: 'PUT', key: admin, ...json({ config: { primaryColor: '#112233' } }) });
    expect(upd.status).toBe(200);
    const rebranded = await eventually(async () => {
      const r = (await status(id)).data;
      return r.branding?.primary_color === '#112233' && r.status === 'active' ? r : null;
    }, 30_000, 'rebranded');
    expect(rebranded.branding!.contrast.adjusted).toBe(false);
    expect(rebranded.run).toBe(3);

    // Deactivate: keys revoked, branding gone, logo 404, further changes refused.
    const de = await s.fetch(`/api/deployments/${id}/deactivate`, { method: 'POST', key: admin });
    expect(de.status).toBe(200);
    expect(((await de.json()) as { data: Rec }).data.status).toBe('deactivated');
    await eventually(async () => {
      await s.ctx.tenancy.catchUp();
      return (await s.fetch('/v1/credits/balance', { key: shown[0]!.key })).status === 401;
    }, 30_000, 'key revoked');
    await s.ctx.projections.catchUp();
    expect((await branding.brandingForTenant(tenantId)).deploymentId).toBeNull();
    expect((await fetch(`${s.url}${b.logo_url}`)).status).toBe(404);
    const again = await s.fetch(`/api/deployments/${id}`, { method: 'PUT', key: admin, ...json({ clientName: 'x' }) });
    expect(again.status).toBe(409);
    expect((await s.fetch(`/api/deployments/${id}/retry`, { method: 'POST', key: admin })).status).toBe(409);
  }, 120_000);

  it('fails the branding step cleanly for an SVG, a logo over 1 MB and one over 1024 px', async () => {
    logos.on('/logo.svg', () => ({ status: 200, body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), type: 'image/png' }));
    logos.on('/huge.png', () => ({ status: 200, body: Buffer.alloc(1024 * 1024 + 10, 1), type: 'image/png' }));
    const big = await makePng(1500, 200);
    logos.on('/wide.png', () => ({ status: 200, body: big, type: 'image/png' }));
    const expectFail = async (path: string, code: string) => {
      const id = ((await (await create(body({}, { logo: `${logos.origin}${path}` }))).json()) as { data: Rec }).data.id;
      const r = await eventually(async () => ((await status(id)).data.status === 'failed' ? (await status(id)).data : null), 30_000, `failed ${path}`);
      expect(r.failure, path).toMatchObject({ step: 'branding', code });
    };
    await expectFail('/logo.svg', 'logo_unsupported_type');
    await expectFail('/huge.png', 'logo_too_large');
    await expectFail('/wide.png', 'logo_too_big');
  }, 120_000);

  it('moves a deployment to another domain: the old one is free again, the new one brands', async () => {
    const b = body();
    const rec = ((await (await create(b)).json()) as { data: Rec }).data;
    await eventually(async () => (await status(rec.id)).data.status === 'active', 30_000, 'active');
    const taken = `taken-${Math.random().toString(36).slice(2, 8)}.ejemplo.mx`;
    expect((await create({ ...body(), domain: taken }, otherAdmin)).status).toBe(201);
    const clash = await s.fetch(`/api/deployments/${rec.id}`, { method: 'PUT', key: admin, ...json({ domain: taken }) });
    expect(clash.status).toBe(409);
    expect(((await clash.json()) as { error: { code: string } }).error.code).toBe('domain_taken');
    const bad = await s.fetch(`/api/deployments/${rec.id}`, { method: 'PUT', key: admin, ...json({ config: { primaryColor: 'blue' } }) });
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_color');
    const moved = `moved-${Math.random().toString(36).slice(2, 8)}.ejemplo.mx`;
    const res = await s.fetch(`/api/deployments/${rec.id}`, { method: 'PUT', key: admin, ...json({ domain: moved, clientName: 'Renamed', environment: 'staging' }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Rec & { clientName: string; environment: string } }).data).toMatchObject({ domain: moved, clientName: 'Renamed', environment: 'staging', status: 'active', run: 1 });
    // The old domain can be taken by another tenant now.
    expect((await create({ ...body(), domain: b.domain }, otherAdmin)).status).toBe(201);
    await s.ctx.projections.catchUp();
    const branding = s.ctx.use(deploymentsCapability).branding;
    expect((await branding.brandingForHost(moved)).deploymentId).toBe(rec.id);
    expect((await branding.brandingForHost(b.domain)).deploymentId).not.toBe(rec.id);
  }, 120_000);

  it('isolates tenants: another tenant cannot see or change a deployment', async () => {
    const rec = ((await (await create(body())).json()) as { data: Rec }).data;
    for (const [method, path] of [
      ['GET', `/api/deployments/${rec.id}/status`],
      ['PUT', `/api/deployments/${rec.id}`],
      ['POST', `/api/deployments/${rec.id}/retry`],
      ['POST', `/api/deployments/${rec.id}/deactivate`],
    ] as const) {
      const res = await s.fetch(path, { method, key: otherAdmin, ...(method === 'GET' ? {} : json({ clientName: 'Hijack' })) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('deployment_not_found');
    }
    const list = (await (await s.fetch('/api/deployments?per_page=100', { key: otherAdmin })).json()) as { data: Rec[] };
    expect(list.data.map((d) => d.id)).not.toContain(rec.id);
    expect((await status(rec.id)).data.status).not.toBe('deactivated');
  });

  it('lists the owner\'s deployments paginated, newest first, without secrets', async () => {
    const all = (await (await s.fetch('/api/deployments?per_page=100', { key: admin })).json()) as { data: Rec[]; pagination: { total: number; total_pages: number } };
    expect(all.pagination.total).toBe(all.data.length);
    expect(all.data.length).toBeGreaterThanOrEqual(5);
    const p1 = (await (await s.fetch('/api/deployments?per_page=2&page=1', { key: admin })).json()) as { data: Rec[]; pagination: { page: number; per_page: number; total: number; total_pages: number } };
    const p2 = (await (await s.fetch('/api/deployments?per_page=2&page=2', { key: admin })).json()) as { data: Rec[] };
    expect(p1.pagination).toMatchObject({ page: 1, per_page: 2, total: all.pagination.total, total_pages: Math.ceil(all.pagination.total / 2) });
    expect([...p1.data, ...p2.data].map((d) => d.id)).toEqual(all.data.slice(0, 4).map((d) => d.id));
    expect(JSON.stringify(all)).not.toMatch(/sk_(live|test)_[0-9A-Za-z]{20}/);
    expect((await s.fetch('/api/deployments?per_page=1000', { key: admin })).status).toBe(400);
    const docs = (await (await s.fetch('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(docs.paths)).toEqual(expect.arrayContaining(['/api/deployments', '/api/deployments/create', '/api/deployments/{deployment_id}/status', '/api/deployments/{deployment_id}/retry']));
  });
});
