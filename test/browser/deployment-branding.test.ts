/**
 * The signing page of a white-label deployment's tenant, in a real browser (playwright-core driving
 * Debian's /usr/bin/chromium, headless): the deployment's company name, adjusted colour and logo are
 * on the page and in the invitation e-mail; the page answered to the deployment's Host also carries
 * them; the usage page of the deployment's tenant too. Screenshots: test/artifacts/signing-branded.png,
 * test/artifacts/usage-branded.png.
 */
import http from 'node:http';
import path from 'node:path';
import { SignJWT } from 'jose';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { makeCertificate, type TestCertificate } from '../helpers/webhook-receiver.ts';
import { startLogoServer, type LogoServer } from '../helpers/logo-server.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../helpers/signing.ts';
import { deploymentsCapability } from '../../apps/capabilities/deployments.ts';
import { ARTIFACTS, HAVE_CHROMIUM, launchBrowser, warnIfNoChromium } from '../helpers/browser.ts';

const JWT_SECRET = 'deployment-branding-test-secret-0123456789';
const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const hexToRgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

/** A small logo drawn from SVG by sharp (the page receives the stored PNG re-encoding). */
async function makeLogo(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="64"><rect width="240" height="64" rx="10" fill="#0b3d2e"/><circle cx="34" cy="32" r="20" fill="#ffd700"/><text x="64" y="42" font-family="DejaVu Sans, sans-serif" font-size="26" font-weight="bold" fill="#ffffff">Financiera</text></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
  });
}

warnIfNoChromium('the branded signing page browser test');

describe.skipIf(!HAVE_CHROMIUM)('signing page with a deployment\'s branding (browser)', () => {
  let cert: TestCertificate;
  let logos: LogoServer;
  let s: TestServer;

  beforeAll(async () => {
    cert = await makeCertificate();
    logos = await startLogoServer(cert);
    const logo = await makeLogo();
    logos.on('/logo.png', () => ({ status: 200, body: logo, type: 'image/png' }));
    s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20, JWT_SECRET }, overrides: { capabilityTestOptions: { deployments: { logoFetch: { allowCidrs: '127.0.0.0/8', caCertsPem: cert.cert } } } } });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await logos?.close();
    cert?.dispose();
  });

  it('shows the company name, the AA-adjusted colour and the logo; Host = the deployment domain brands public pages', async () => {
    const owner = await s.createTenant('pro');
    const admin = (await s.createKey(owner, ['admin'])).key;
    const created = await s.fetch('/api/deployments/create', {
      method: 'POST',
      key: admin,
      ...json({ clientId: 'financiera', clientName: 'Financiera Ejemplo', domain: 'firma.financiera-ejemplo.mx', platform: 'web', environment: 'production', config: { primaryColor: '#FFD700', logo: `${logos.origin}/logo.png`, companyName: 'Financiera Ejemplo' } }),
    });
    expect(created.status).toBe(201);
    const depId = ((await created.json()) as { data: { id: string } }).data.id;
    let liveKey = '';
    const active = await waitFor(async () => {
      const r = ((await (await s.fetch(`/api/deployments/${depId}/status`, { key: admin })).json()) as { data: { status: string; provisioned_tenant_id: string | null; api_keys: { key?: string; test: boolean }[]; branding: { primary_color: string; contrast: { adjusted: boolean } } | null } }).data;
      liveKey ||= r.api_keys.find((k) => !k.test && k.key)?.key ?? '';
      return r.status === 'active' ? r : null;
    }, 40_000, 'deployment active');
    expect(liveKey).toMatch(/^sk_live_/);
    const color = active.branding!.primary_color;
    expect(active.branding!.contrast.adjusted).toBe(true);

    // The client's tenant sends a document for signature with its own key.
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'contrato.pdf');
    form.set('title', 'Contrato de crédito');
    form.set('signers', JSON.stringify([{ email: 'ana@example.com', name: 'Ana López', role: 'cliente', order: 1 }]));
    const doc = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key: liveKey });
    expect(doc.status).toBe(201);
    const docId = ((await doc.json()) as { data: { document_id: string } }).data.document_id;
    expect((await s.fetch(`/v1/signing/documents/${docId}/send-invitations`, { method: 'POST', key: liveKey, ...json({}) })).status).toBe(200);
    const mail = await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes('ana@example.com')), 20_000, 'invitation e-mail');
    expect(mail.body).toContain('Financiera Ejemplo');
    expect(mail.body).toContain(color);
    expect(mail.body).not.toContain('#FFD700');

    const browser = await launchBrowser({ width: 1000, height: 900 });
    const context = browser.ctx;
    try {
      const page = await context.newPage();
      const res = await page.goto(s.url + linkOf(mail), { waitUntil: 'networkidle' });
      expect(res?.status()).toBe(200);
      expect(await page.title()).toContain('Financiera Ejemplo');
      const logo = page.locator('header img');
      expect(await logo.getAttribute('src')).toContain(`/api/deployments/${depId}/logo`);
      expect(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(240);
      expect(await page.locator('button.primary').evaluate((b) => getComputedStyle(b).backgroundColor)).toBe(hexToRgb(color));
      await page.screenshot({ path: path.join(ARTIFACTS, 'signing-branded.png'), fullPage: false });
      await page.locator('#sign-h').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(ARTIFACTS, 'signing-branded-form.png'), fullPage: false });

      // The usage page of the deployment's tenant (dashboard session JWT of that tenant).
      const tenantId = active.provisioned_tenant_id!;
      const now = Math.floor(Date.now() / 1000);
      const jwt = await new SignJWT({ tenant_id: tenantId }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(now).setExpirationTime(now + 600).sign(new TextEncoder().encode(JWT_SECRET));
      await page.setExtraHTTPHeaders({ authorization: `Bearer ${jwt}` });
      const usage = await page.goto(`${s.url}/dashboard/usage`, { waitUntil: 'networkidle' });
      expect(usage?.status()).toBe(200);
      expect(await page.title()).toContain('Financiera Ejemplo');
      const usageLogo = page.locator('header img');
      expect(await usageLogo.getAttribute('src')).toBe(`/api/deployments/${depId}/logo`);
      expect(await usageLogo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(240);
      expect(await page.locator('header .brand, header').first().evaluate((h) => getComputedStyle(h).borderBottomColor)).toBe(hexToRgb(color));
      await page.screenshot({ path: path.join(ARTIFACTS, 'usage-branded.png'), fullPage: false });
    } finally {
      await browser.close();
    }

    // A public page answered to the deployment's domain carries its branding; another Host does not.
    const branded = await getWithHost(`${s.url}/sign/${docId}`, 'firma.financiera-ejemplo.mx');
    expect(branded.body).toContain('Financiera Ejemplo');
    const plain = await getWithHost(`${s.url}/sign/${docId}`, 'other.example.com');
    expect(plain.body).not.toContain('Financiera Ejemplo');
  }, 120_000);
});
