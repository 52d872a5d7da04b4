import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { AA_NORMAL_TEXT, checkBrandColor, contrastRatio } from '../../domain/deployments/contrast.ts';
import { DeploymentError, StepFailure } from '../../domain/deployments/errors.ts';
import { checkLogoUrl, domainOfHost, normalizeDomain, normalizeHexColor } from '../../domain/deployments/validate.ts';
import { evolve, type DeploymentEvent, type DeploymentState } from '../../domain/deployments/deployment.ts';
import { checkLogo, createLogoFetcher, sniffImageType } from '../../workflows/deployments/logo.ts';
import { provisioningProcess, type ProvisioningState } from '../../workflows/deployments/process.ts';
import { makePng } from '../helpers/logo-server.ts';

describe('WCAG contrast and the brand-colour adjustment', () => {
  it('computes WCAG 2 ratios (reference values)', () => {
    expect(contrastRatio('#000000', '#FFFFFF')).toBeCloseTo(21, 5);
    expect(contrastRatio('#FFFFFF', '#FFFFFF')).toBeCloseTo(1, 5);
    // #767676 is the lightest grey passing AA on white (4.54:1); #777777 fails (4.48:1).
    expect(contrastRatio('#767676', '#FFFFFF')).toBeCloseTo(4.54, 2);
    expect(contrastRatio('#777777', '#FFFFFF')).toBeCloseTo(4.48, 2);
  });

  it('keeps a passing colour and darkens a failing one just enough, same hue', () => {
    const ok = checkBrandColor('#1E40AF');
    expect(ok).toMatchObject({ adjusted: false, effective: '#1E40AF', method: null });
    for (const c of ['#FFD700', '#00FF00', '#777777', '#FF6B6B', '#FFFFFF']) {
      const r = checkBrandColor(c);
      expect(r.adjusted, c).toBe(true);
      expect(contrastRatio(r.effective, '#FFFFFF'), c).toBeGreaterThanOrEqual(AA_NORMAL_TEXT);
      expect(r.effective_ratio).toBeGreaterThanOrEqual(4.5);
      expect(r.effective_ratio, c).toBeLessThan(4.8); // minimal change: not pushed to black
      expect(r.method).toMatch(/darkened/);
    }
    // Same hue: the channel ratios are kept (up to rounding).
    const g = checkBrandColor('#FFD700').effective;
    const [r, gg] = [parseInt(g.slice(1, 3), 16), parseInt(g.slice(3, 5), 16)];
    expect(gg / r).toBeCloseTo(0xd7 / 0xff, 1);
  });
});

describe('deployment field validation', () => {
  it('normalises hex colours and refuses others', () => {
    expect(normalizeHexColor('#abc')).toBe('#AABBCC');
    expect(normalizeHexColor(' #0a7c66 ')).toBe('#0A7C66');
    for (const bad of ['abc', '#abcd', '#GGGGGG', 'red', '#1234567', '']) expect(() => normalizeHexColor(bad), bad).toThrow(DeploymentError);
  });

  it('applies IDNA (UTS #46) and the host-name rules', () => {
    expect(normalizeDomain('Münchën.Example.MX')).toEqual({ ascii: 'xn--mnchn-qsa9i.example.mx', unicode: 'münchën.example.mx' });
    expect(normalizeDomain('kyc.ejemplo.mx').ascii).toBe('kyc.ejemplo.mx');
    for (const bad of ['localhost', 'ejemplo', '1.2.3.4', '[::1]', 'a_b.mx', '-a.mx', 'a-.mx', 'a..mx', 'kyc.ejemplo.mx.', 'kyc.ejemplo.123', 'http://a.mx', 'a.mx:443', 'a b.mx', `${'a'.repeat(64)}.mx`, `${'abcdefghi.'.repeat(26)}mx`]) {
      expect(() => normalizeDomain(bad), bad).toThrow(DeploymentError);
    }
    expect(domainOfHost('KYC.Ejemplo.MX:8443')).toBe('kyc.ejemplo.mx');
    expect(domainOfHost('127.0.0.1:3000')).toBeNull();
    expect(domainOfHost('[::1]:3000')).toBeNull();
    expect(domainOfHost(undefined)).toBeNull();
  });

  it('accepts only https logo URLs without credentials', () => {
    expect(checkLogoUrl('https://cdn.example.mx/a.png')).toBe('https://cdn.example.mx/a.png');
    for (const bad of ['http://cdn.example.mx/a.png', 'ftp://x/a.png', 'https://u:p@x.mx/a.png', '/a.png', `https://x.mx/${'a'.repeat(2100)}`]) {
      expect(() => checkLogoUrl(bad), bad).toThrow(DeploymentError);
    }
  });
});

describe('logo checks (type by content, size, pixels)', () => {
  it('sniffs types by signature, not by name', async () => {
    expect(sniffImageType(await makePng(4, 4))).toBe('image/png');
    expect(sniffImageType(await sharp({ create: { width: 4, height: 4, channels: 3, background: '#123456' } }).jpeg().toBuffer())).toBe('image/jpeg');
    expect(sniffImageType(await sharp({ create: { width: 4, height: 4, channels: 3, background: '#123456' } }).webp().toBuffer())).toBe('image/webp');
    expect(sniffImageType(await sharp({ create: { width: 4, height: 4, channels: 3, background: '#123456' } }).gif().toBuffer())).toBe('image/gif');
    expect(sniffImageType(Buffer.from('\uFEFF  <?xml version="1.0"?><svg/>'))).toBe('image/svg+xml');
    expect(sniffImageType(Buffer.from('<html><body>hi</body></html>'))).toBeNull();
  });

  it('refuses SVG, oversized and too-large images, and re-encodes the rest as PNG without trailing bytes', async () => {
    await expect(checkLogo(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'))).rejects.toMatchObject({ code: 'logo_unsupported_type' });
    await expect(checkLogo(Buffer.alloc(1024 * 1024 + 1))).rejects.toMatchObject({ code: 'logo_too_large' });
    await expect(checkLogo(await makePng(1025, 10))).rejects.toMatchObject({ code: 'logo_too_big' });
    await expect(checkLogo(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(50)]))).rejects.toBeInstanceOf(StepFailure);
    const jpeg = await sharp({ create: { width: 300, height: 100, channels: 3, background: '#0A7C66' } }).jpeg().toBuffer();
    const polyglot = Buffer.concat([jpeg, Buffer.from('<script>alert(1)</script>')]);
    const out = await checkLogo(polyglot);
    expect(out).toMatchObject({ sourceType: 'image/jpeg', width: 300, height: 100 });
    expect(sniffImageType(out.png)).toBe('image/png');
    expect(out.png.includes(Buffer.from('<script>'))).toBe(false);
    const max = await checkLogo(await makePng(1024, 1024));
    expect([max.width, max.height]).toEqual([1024, 1024]);
  });

  it('the production fetcher refuses loopback and private addresses (SSRF guard) and plain http', async () => {
    const f = createLogoFetcher({ timeoutMs: 2_000 });
    try {
      for (const url of ['https://127.0.0.1:9/logo.png', 'https://[::1]:9/logo.png', 'https://169.254.169.254/latest/meta-data', 'https://10.0.0.1/logo.png']) {
        await expect(f.fetch(url), url).rejects.toMatchObject({ code: 'logo_unreachable', message: expect.stringMatching(/not allowed/) });
      }
      // A name resolving to loopback is refused inside the DNS lookup (no rebinding window).
      await expect(f.fetch('https://localhost:9/logo.png')).rejects.toMatchObject({ code: 'logo_unreachable', message: expect.stringMatching(/not allowed/) });
      await expect(f.fetch('http://example.com/logo.png')).rejects.toMatchObject({ code: 'logo_unreachable' });
    } finally {
      await f.close();
    }
  });
});

describe('provisioning process manager', () => {
  const ctx = { now: 1_000, workflowId: 'w' };
  const start = { deploymentId: 'dep_x', ownerTenantId: 'ten_o', run: 1, steps: ['tenant', 'api_keys', 'branding'] as ('tenant' | 'api_keys' | 'branding')[] };

  it('runs the steps in order, then activates', () => {
    let t = provisioningProcess.handle(undefined, { type: 'started', input: start }, ctx);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const eff = t.effects[0] as { id: string; name: string };
      ids.push(`${eff.name}:${eff.id}`);
      t = provisioningProcess.handle(t.state, { type: 'activity.completed', id: eff.id, result: { outcome: 'completed' } }, ctx);
    }
    expect(ids).toEqual(['deployments.step:tenant-1', 'deployments.step:api_keys-1', 'deployments.step:branding-1', 'deployments.activate:activate-1']);
    expect(t.done).toBe(true);
    expect(t.state.outcome).toBe('active');
  });

  it('ends on a failed step, and tries an interrupted step again under a new id', () => {
    let t = provisioningProcess.handle(undefined, { type: 'started', input: { ...start, steps: ['branding'] } }, ctx);
    t = provisioningProcess.handle(t.state, { type: 'activity.failed', id: 'branding-1', error: 'interrupted', interrupted: true }, ctx);
    expect(t.effects).toEqual([{ type: 'timer', id: 'retry-branding-2', at: 1_000 }]);
    t = provisioningProcess.handle(t.state, { type: 'timer.fired', id: 'retry-branding-2' }, ctx);
    expect(t.effects[0]).toMatchObject({ type: 'activity', id: 'branding-2', name: 'deployments.step' });
    // A late outcome of the first try is ignored.
    const stale = provisioningProcess.handle(t.state, { type: 'activity.completed', id: 'branding-1', result: { outcome: 'completed' } }, ctx);
    expect(stale.effects).toEqual([]);
    t = provisioningProcess.handle(t.state, { type: 'activity.completed', id: 'branding-2', result: { outcome: 'failed' } }, ctx);
    expect(t.done).toBe(true);
    expect((t.state as ProvisioningState).outcome).toBe('failed');
  });
});

describe('deployment aggregate', () => {
  it('goes pending -> provisioning -> failed -> (retry) -> active and keeps the step history', () => {
    const base = { deployment_id: 'dep_1', tenant_id: 'ten_o' };
    const events: DeploymentEvent[] = [
      { type: 'deployment.created', data: { ...base, client_id: 'c', client_name: 'C', domain: 'a.mx', domain_unicode: 'a.mx', platform: 'web', environment: 'production', plan: 'basic', config: { primaryColor: '#000000', logo: 'https://a.mx/l.png', companyName: 'C' }, created_at: 't0' } },
      { type: 'deployment.provisioning.requested', data: { ...base, run: 1, reason: 'created', from_step: 'tenant', at: 't0' } },
      { type: 'deployment.step.started', data: { ...base, run: 1, step: 'tenant', at: 't1' } },
      { type: 'deployment.step.completed', data: { ...base, run: 1, step: 'tenant', at: 't2', result: { step: 'tenant', provisioned_tenant_id: 'ten_c', plan: 'basic' } } },
      { type: 'deployment.step.started', data: { ...base, run: 1, step: 'api_keys', at: 't3' } },
      { type: 'deployment.step.failed', data: { ...base, run: 1, step: 'api_keys', at: 't4', code: 'internal', reason: 'boom' } },
    ];
    let s: DeploymentState | undefined;
    const statuses: string[] = [];
    events.forEach((e, i) => {
      s = evolve(s, e, i);
      statuses.push(s!.status);
    });
    expect(statuses).toEqual(['pending', 'pending', 'provisioning', 'provisioning', 'provisioning', 'failed']);
    expect(s!.failure).toMatchObject({ step: 'api_keys', reason: 'boom' });
    s = evolve(s, { type: 'deployment.provisioning.requested', data: { ...base, run: 2, reason: 'retry', from_step: 'api_keys', at: 't5' } }, 6);
    expect(s!.status).toBe('pending');
    expect(s!.completed.tenant).toBeDefined();
    s = evolve(s, { type: 'deployment.activated', data: { ...base, run: 2, at: 't6' } }, 7);
    expect(s!.status).toBe('active');
    expect(s!.history.map((h) => `${h.run}:${h.step}:${h.outcome}`)).toEqual(['1:tenant:completed', '1:api_keys:failed']);
  });
});

describe('branding handed to the signing and usage renderers', async () => {
  const { forEmail, forPage, DEFAULT_BRANDING } = await import('../../workflows/deployments/branding.ts');
  const { renderMessagePage } = await import('../../apps/api/routes/signing/page-render.ts');
  const { safeBranding } = await import('../../apps/api/routes/usage/page.ts');
  const deployment = { ...DEFAULT_BRANDING, deploymentId: 'dep_1', companyName: 'Acme <b>', primaryColor: '#8B7500', logoPath: '/api/deployments/dep_1/logo', logoUrl: null, colorAdjusted: true };
  const fallback = { companyName: 'Sello', primaryColor: '#1f4fd1', logoUrl: null };

  it('pages get the same-origin logo path, e-mails only an absolute URL, no deployment keeps the fallback', () => {
    expect(forPage(deployment, fallback)).toEqual({ companyName: 'Acme <b>', primaryColor: '#8B7500', logoUrl: '/api/deployments/dep_1/logo' });
    expect(forEmail(deployment, fallback).logoUrl).toBeNull();
    expect(forEmail({ ...deployment, logoUrl: 'https://api.example/api/deployments/dep_1/logo' }, fallback).logoUrl).toBe('https://api.example/api/deployments/dep_1/logo');
    expect(forPage(DEFAULT_BRANDING, fallback)).toBe(fallback);
  });

  it('renderers show a same-origin logo and escape the name, but refuse protocol-relative URLs', () => {
    const html = renderMessagePage({ title: 't', nonce: 'n', heading: 'h', text: 'x', branding: forPage(deployment, fallback) });
    expect(html).toContain('<img src="/api/deployments/dep_1/logo" alt="Acme &lt;b&gt;"');
    expect(html).not.toContain('<b>');
    const evil = renderMessagePage({ title: 't', nonce: 'n', heading: 'h', text: 'x', branding: { ...fallback, logoUrl: '//evil.example/x.png' } });
    expect(evil).not.toContain('evil.example');
    expect(safeBranding({ logoUrl: '/api/deployments/dep_1/logo' }).logoUrl).toBe('/api/deployments/dep_1/logo');
    expect(safeBranding({ logoUrl: '//evil.example/x.png' }).logoUrl).toBeNull();
  });
});

describe('provisioning activities are idempotent (in-memory event store, local blob store)', async () => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { randomBytes } = await import('node:crypto');
  const { MemoryEventStore } = await import('../../infra/event-store/memory/memory-event-store.ts');
  const { LocalDirBlobStore } = await import('../../infra/blob-store/local-dir/local-dir-blob-store.ts');
  const { createSecretBox } = await import('../../domain/webhooks/secret-box.ts');
  const { formatApiKey, hashApiKey } = await import('../../domain/tenancy/api-key.ts');
  const { provisionedIds, deploymentStream } = await import('../../domain/deployments/deployment.ts');
  const { createDeploymentActivities, sealedKeyBlob } = await import('../../workflows/deployments/activities.ts');
  const { CreditLedger } = await import('../../domain/credits/credit-ledger.ts');

  it('re-registers a key sealed before a crash, and never creates a second tenant or key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sello-dep-act-'));
    try {
      const store = new MemoryEventStore();
      const blobs = new LocalDirBlobStore(dir);
      const secrets = createSecretBox(randomBytes(32));
      const noFetch = { fetch: async () => { throw new StepFailure('logo_unreachable', 'offline'); }, close: async () => undefined };
      const acts = createDeploymentActivities({ eventStore: store, blobs, secrets, logoFetcher: () => noFetch, clock: { now: () => Date.UTC(2026, 0, 1) }, credits: new CreditLedger(store) });
      const id = 'dep_0123456789abcdef0123456789abcdef';
      const base = { deployment_id: id, tenant_id: 'ten_owner' };
      await store.append(deploymentStream(id), [
        { type: 'deployment.created', data: { ...base, client_id: 'c', client_name: 'Client', domain: 'a.mx', domain_unicode: 'a.mx', platform: 'web', environment: 'production', plan: 'basic', config: { primaryColor: '#000000', logo: 'https://a.mx/l.png', companyName: 'C' }, created_at: 't' } },
        { type: 'deployment.provisioning.requested', data: { ...base, run: 1, reason: 'created', from_step: 'tenant', at: 't' } },
      ]);
      const ctx = { workflowId: 'w', activityId: 'a' };
      const step = (run: number, s: string) => acts['deployments.step']!({ deploymentId: id, run, step: s }, ctx) as Promise<{ outcome: string }>;
      expect(await step(1, 'tenant')).toEqual({ outcome: 'completed' });
      // A crash after the key was sealed, before its hash was registered: the sealed copy is there.
      const ids = provisionedIds(id);
      const known = formatApiKey(randomBytes(32), false);
      await blobs.put(sealedKeyBlob(id, ids.liveKeyId), Buffer.from(secrets.seal(known, ids.liveKeyId)));
      expect(await step(1, 'api_keys')).toEqual({ outcome: 'completed' });
      expect(await step(1, 'api_keys')).toEqual({ outcome: 'completed' }); // already done: no new events
      expect(await step(1, 'branding')).toEqual({ outcome: 'failed' });
      // Run 2 from the tenant step (as if everything were repeated): still one tenant, two keys.
      await store.append(deploymentStream(id), [{ type: 'deployment.provisioning.requested', data: { ...base, run: 2, reason: 'retry', from_step: 'tenant', at: 't' } }]);
      expect(await step(2, 'tenant')).toEqual({ outcome: 'completed' });
      expect(await step(2, 'api_keys')).toEqual({ outcome: 'completed' });
      expect(await step(1, 'branding')).toEqual({ outcome: 'superseded' }); // an old run's late step does nothing
      const all = await store.readAll();
      expect(all.filter((e) => e.type === 'TenantCreated')).toHaveLength(1);
      // The client tenant is linked once to its owner's credits, before the tenant was created.
      const linked = all.filter((e) => e.type === 'CreditAccountLinked');
      expect(linked.map((e) => e.data)).toEqual([expect.objectContaining({ tenant_id: ids.tenantId, billed_to: 'ten_owner', monthly_cap: null, deployment_id: id })]);
      expect(all.findIndex((e) => e.type === 'CreditAccountLinked')).toBeLessThan(all.findIndex((e) => e.type === 'TenantCreated'));
      const keys = all.filter((e) => e.type === 'ApiKeyCreated');
      expect(keys).toHaveLength(2);
      expect(keys.find((e) => (e.data as { key_id: string }).key_id === ids.liveKeyId)!.data).toMatchObject({ key_hash: hashApiKey(known), tenant_id: ids.tenantId });
      const failed = all.filter((e) => e.type === 'deployment.step.failed').map((e) => e.data as { step: string; code: string });
      expect(failed).toEqual([expect.objectContaining({ step: 'branding', code: 'logo_unreachable' })]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
