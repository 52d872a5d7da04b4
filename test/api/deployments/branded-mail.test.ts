/**
 * Branding in the signing e-mails of a deployment's tenant (invitation, then a reminder one day later,
 * driven by the platform's clock) and on public pages answered to the deployment's Host; a tenant
 * without a deployment keeps Sello's look.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { makeCertificate, type TestCertificate } from '../../helpers/webhook-receiver.ts';
import { makePng, startLogoServer, type LogoServer } from '../../helpers/logo-server.ts';
import { makePdf, readOutbox, waitFor } from '../../helpers/signing.ts';
import { deploymentsCapability } from '../../../apps/capabilities/deployments.ts';

const DAY = 86_400_000;
const PUBLIC = 'https://api.sello.example';
const clock = { offset: 0, now: () => Date.now() + clock.offset };
const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

function getWithHost(url: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { host } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      })
      .on('error', reject);
  });
}

describe('branded signing e-mails and Host-branded public pages', () => {
  let cert: TestCertificate;
  let logos: LogoServer;
  let s: TestServer;

  beforeAll(async () => {
    cert = await makeCertificate();
    logos = await startLogoServer(cert);
    const png = await makePng(200, 60, { r: 200, g: 30, b: 90 });
    logos.on('/logo.png', () => ({ status: 200, body: png, type: 'image/png' }));
    s = await startTestServer({
      config: { WORKFLOW_POLL_MS: 20, PUBLIC_BASE_URL: PUBLIC },
      overrides: { clock, capabilityTestOptions: { deployments: { logoFetch: { allowCidrs: '127.0.0.0/8', caCertsPem: cert.cert } } } },
    });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await logos?.close();
    cert?.dispose();
  });

  async function sendDoc(key: string, email: string): Promise<string> {
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'a.pdf');
    form.set('title', 'Contrato');
    form.set('signers', JSON.stringify([{ email, name: 'Firmante' }]));
    const res = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { data: { document_id: string } }).data.document_id;
    expect((await s.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key, ...json({ reminder_days: 1 }) })).status).toBe(200);
    return id;
  }

  it('invitation and reminder carry the company name, the AA-adjusted colour and the absolute logo URL', async () => {
    const owner = await s.createTenant('pro');
    const admin = (await s.createKey(owner, ['admin'])).key;
    const res = await s.fetch('/api/deployments/create', {
      method: 'POST',
      key: admin,
      ...json({ clientId: 'mail-co', clientName: 'Aseguradora Mail', domain: 'firma.aseguradora-mail.mx', platform: 'web', environment: 'production', config: { primaryColor: '#FF6B6B', logo: `${logos.origin}/logo.png`, companyName: 'Aseguradora Mail' } }),
    });
    const depId = ((await res.json()) as { data: { id: string } }).data.id;
    let key = '';
    const rec = await waitFor(async () => {
      const r = ((await (await s.fetch(`/api/deployments/${depId}/status`, { key: admin })).json()) as { data: { status: string; api_keys: { key?: string; test: boolean }[]; branding: { primary_color: string; contrast: { adjusted: boolean } } | null } }).data;
      key ||= r.api_keys.find((k) => !k.test && k.key)?.key ?? '';
      return r.status === 'active' ? r : null;
    }, 30_000, 'active');
    const color = rec.branding!.primary_color;
    expect(rec.branding!.contrast.adjusted).toBe(true);

    const docId = await sendDoc(key, 'cliente@example.com');
    const mails = () => readOutbox(s.dataDir).filter((m) => m.to.includes('cliente@example.com'));
    await waitFor(() => mails().length === 1, 30_000, 'invitation');
    clock.offset += DAY + 60_000;
    await waitFor(() => mails().length === 2, 30_000, 'reminder');
    const [invitation, reminder] = mails();
    expect(reminder!.subject).toMatch(/Recordatorio/);
    for (const m of [invitation!, reminder!]) {
      expect(m.body).toContain('Aseguradora Mail');
      expect(m.body).toContain(color);
      expect(m.body).not.toContain('#FF6B6B');
      expect(m.body).toContain(`${PUBLIC}/api/deployments/${depId}/logo`);
    }

    // A public page answered to the deployment's domain is branded (logo from the same origin).
    const page = await getWithHost(`${s.url}/sign/${docId}`, 'firma.aseguradora-mail.mx:443');
    expect(page).toContain('Aseguradora Mail');
    expect(page).toContain(`/api/deployments/${depId}/logo`);
    expect(await getWithHost(`${s.url}/sign/${docId}`, 'example.org')).not.toContain('Aseguradora Mail');
    // The usage page's public sign-in page too.
    const signIn = await getWithHost(`${s.url}/dashboard/usage`, 'firma.aseguradora-mail.mx');
    expect(signIn).toContain('Inicia sesión para ver tu uso');
    expect(signIn).toContain('Aseguradora Mail');
    expect(signIn).toContain(`/api/deployments/${depId}/logo`);
    expect(await getWithHost(`${s.url}/dashboard/usage`, 'example.org')).not.toContain('Aseguradora Mail');
  }, 120_000);

  it('a tenant without a deployment keeps Sello\'s branding', async () => {
    const { key } = await s.tenantWithKey('pro');
    await sendDoc(key, 'plain@example.com');
    const mail = await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes('plain@example.com')), 30_000, 'invitation');
    expect(mail.body).toContain('Sello');
    expect(mail.body).not.toContain('Aseguradora Mail');
    expect(mail.body).not.toContain('/api/deployments/');
  }, 60_000);
});
