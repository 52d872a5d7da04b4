import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../contract/workflows.contract.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { makeCertificate, type TestCertificate } from '../../helpers/webhook-receiver.ts';
import { makePng, startLogoServer, type LogoServer } from '../../helpers/logo-server.ts';
import { deploymentsCapability } from '../../../apps/capabilities/deployments.ts';
import { tenantStream } from '../../../domain/tenancy/tenancy.ts';

const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('deployment provisioning survives a restart of the service', () => {
  let cert: TestCertificate;
  let logos: LogoServer;
  let dataDir: string;
  let s: TestServer | null = null;

  const start = async () => {
    const server = await startTestServer({
      config: { DATA_DIR: dataDir, WORKFLOW_POLL_MS: 20 },
      overrides: { capabilityTestOptions: { deployments: { logoFetch: { allowCidrs: '127.0.0.0/8', caCertsPem: cert.cert, timeoutMs: 12_000 } } } },
    });
    return server;
  };

  beforeAll(async () => {
    cert = await makeCertificate();
    logos = await startLogoServer(cert);
    dataDir = mkdtempSync(path.join(tmpdir(), 'sello-dep-restart-'));
  });
  afterAll(async () => {
    await s?.close();
    await logos.close();
    cert.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a restart in the middle of the branding step resumes it and the deployment becomes active with one tenant and two keys', async () => {
    const png = await makePng(128, 128);
    // The first fetch never answers (the service stops meanwhile); the next one answers the logo.
    logos.on('/slow.png', (n) => (n === 1 ? 'hang' : { status: 200, body: png, type: 'image/png' }));
    s = await start();
    const tenant = await s.createTenant('pro');
    const admin = (await s.createKey(tenant, ['admin'])).key;
    const res = await s.fetch('/api/deployments/create', {
      method: 'POST',
      key: admin,
      ...json({ clientId: 'restart-co', clientName: 'Restart Co', domain: 'kyc.restart.example.mx', platform: 'web', environment: 'staging', config: { primaryColor: '#224466', logo: `${logos.origin}/slow.png`, companyName: 'Restart Co' } }),
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { data: { id: string } }).data.id;
    await eventually(() => logos.count('/slow.png') === 1, 30_000, 'logo fetch started');
    const mid = ((await (await s.fetch(`/api/deployments/${id}/status`, { key: admin })).json()) as { data: { status: string; steps: { step: string; outcome: string }[] } }).data;
    expect(mid.status).toBe('provisioning');
    expect(mid.steps.at(-1)).toMatchObject({ step: 'branding', outcome: 'running' });

    await s.close(); // the branding activity is still waiting for the logo
    s = await start();
    let last: unknown = null;
    const done = await eventually(
      async () => {
        await new Promise((r) => setTimeout(r, 100));
        const r = ((await (await s!.fetch(`/api/deployments/${id}/status`, { key: admin })).json()) as { data: { status: string; provisioned_tenant_id: string; steps: { step: string; outcome: string }[]; branding: unknown } }).data;
        last = r;
        return r.status === 'active' ? r : null;
      },
      30_000,
      'active after restart',
    ).catch((err: Error) => {
      return s!.ctx.workflows.get(`deployment-${id}-run-1`).then((wf) => {
        throw new Error(`${err.message}: ${JSON.stringify(wf)} ${JSON.stringify(last).slice(0, 200)}`);
      });
    });
    expect(logos.count('/slow.png')).toBe(2);
    expect(done.branding).not.toBeNull();
    expect(done.steps.map((h) => `${h.step}:${h.outcome}`)).toEqual(['tenant:completed', 'branding:interrupted', 'branding:completed', 'api_keys:completed']);
    const tenantId = done.provisioned_tenant_id;
    expect((await s.ctx.events.readStream(tenantStream(tenantId))).events.filter((e) => e.type === 'TenantCreated')).toHaveLength(1);
    const keys = (await s.ctx.events.readAll({ types: ['ApiKeyCreated'] })).filter((e) => (e.data as { tenant_id: string }).tenant_id === tenantId);
    expect(keys).toHaveLength(2);
  }, 120_000);
});
