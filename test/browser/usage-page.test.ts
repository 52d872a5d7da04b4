import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { SignJWT } from 'jose';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { ARTIFACTS, HAVE_CHROMIUM, launchBrowser, warnIfNoChromium, type Browser } from '../helpers/browser.ts';
import { usageStream, type ApiCallRecorded } from '../../domain/usage/usage.ts';
import { creditStream } from '../../domain/credits/credits.ts';
import { createTenant } from '../../domain/tenancy/operations.ts';

const run = promisify(execFile);
const JWT_SECRET = 'usage-page-test-secret-0123456789abcdef';

const d = HAVE_CHROMIUM ? describe : describe.skip;
warnIfNoChromium('usage page browser test');

d('the usage page in a real browser (Playwright + Debian chromium)', () => {
  let s: TestServer;
  let ctx: BrowserContext;
  let browser: Browser;
  let tenantId: string;
  let key: string;

  beforeAll(async () => {
    s = await startTestServer({ config: { JWT_SECRET } });
    ({ tenantId } = await createTenant({ store: s.ctx.events, name: 'Acme Fintech', plan: 'pro' }));
    await s.ctx.tenancy.catchUp();
    ({ key } = await s.createKey(tenantId, ['read', 'write']));
    // 30 days of calls over eleven services (a few errors), and this month's credit spending.
    const now = Date.now();
    const calls: ApiCallRecorded['data'][] = [];
    const endpoints = [
      '/v1/face/verify', '/v1/ocr/extract/id', '/v1/email/verify', '/v1/face-matching/search', '/v1/signing/documents', '/v1/mex/curp/validate',
      '/v1/usage/summary', '/v1/webhooks/endpoints', '/api/deployments', '/v1/fingerprint-matching/verify', '/v1/credits/balance',
    ];
    for (let day = 29; day >= 0; day--) {
      const n = 20 + ((day * 37) % 45);
      for (let i = 0; i < n; i++) {
        const status = i % 11 === 0 ? 500 : i % 7 === 0 ? 400 : 200;
        calls.push({
          request_id: `r${day}-${i}`, tenant_id: tenantId, key_id: null, endpoint: endpoints[(i + day) % endpoints.length]!, method: 'POST', status_code: status, response_time: 0.05 + (i % 9) / 20,
          request_size: 1000, response_size: 500, ip_address: '203.0.113.9', user_agent: 'seed', credits_charged: status === 200 ? 2 : 0, created_at: new Date(now - day * 86_400_000 - i * 60_000).toISOString(),
        });
      }
    }
    calls.sort((a, b) => a.created_at.localeCompare(b.created_at));
    await s.ctx.events.append(usageStream(tenantId), calls.map((data) => ({ type: 'ApiCallRecorded', data, metadata: { tenant_id: tenantId } })));
    const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
    const credit = [];
    // At least 1,200 credits this month whatever the day (on the 1st there is one day to spend them on):
    // 'Credits below 19,000' of the Pro plan's 20,000 must trigger, 'Credits below 100' must not.
    const daysThisMonth = Math.floor((now - monthStart) / 86_400_000) + 1;
    for (let t = monthStart, i = 0; t <= now; t += 86_400_000, i++) {
      const at = new Date(Math.min(t + 3_600_000, now - 1000)).toISOString();
      const amount = Math.ceil(1200 / daysThisMonth) + (i * 53) % 200;
      credit.push({ type: 'CreditsReserved', data: { tenant_id: tenantId, reservation_id: `seed${i}`, amount, from_monthly: amount, from_purchased: 0, period: at.slice(0, 7), endpoint: endpoints[i % 4]!, reserved_at: at } });
      credit.push({ type: 'CreditsCommitted', data: { tenant_id: tenantId, reservation_id: `seed${i}`, amount, endpoint: endpoints[i % 4]!, committed_at: at } });
    }
    await s.ctx.events.append(creditStream(tenantId), credit.map((e) => ({ ...e, metadata: { tenant_id: tenantId } })));
    const alert = (name: string, value: number) =>
      s.fetch('/v1/usage/alerts', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, condition: { metric: 'credits_remaining', operator: 'lt', value }, notification: { email: 'ops@acme.example' } }) });
    expect((await alert('Credits below 19,000', 19_000)).status).toBe(201);
    expect((await alert('Credits below 100', 100)).status).toBe(201);
    await s.ctx.projections.catchUp();
    browser = await launchBrowser({ width: 1280, height: 900 });
    ctx = browser.ctx;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('signs in with a one-time CLI link and shows the charts and alerts, with nothing loaded from elsewhere', async () => {
    const { stdout } = await run(process.execPath, ['--no-warnings', '--import', 'tsx', 'apps/cli/cli.ts', 'dashboard', 'link', '--tenant', tenantId], {
      env: { ...process.env, DATA_DIR: s.dataDir, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: s.url },
    });
    const { url, expires_at } = JSON.parse(stdout.trim());
    expect(url).toMatch(new RegExp(`^${s.url}/dashboard/login\\?token=dl_`));
    expect(Date.parse(expires_at)).toBeGreaterThan(Date.now());

    const page = await ctx.newPage();
    const origins = new Set<string>();
    const problems: string[] = [];
    page.on('request', (r) => origins.add(new URL(r.url()).origin));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    const res = await page.goto(url);
    expect(res!.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/dashboard/usage');
    await page.waitForFunction(() => (window as unknown as { __usageCharts?: number }).__usageCharts === 3, undefined, { timeout: 15_000 });
    // Every chart drew something: non-blank pixels on each canvas.
    const inked = await page.evaluate(() =>
      ['chart-calls', 'chart-services', 'chart-burn'].map((id) => {
        const c = document.getElementById(id) as HTMLCanvasElement;
        const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < px.length; i += 4) if (px[i]! > 0) n++;
        return n;
      }),
    );
    for (const n of inked) expect(n).toBeGreaterThan(1000);
    const summary = (await (await s.fetch('/v1/usage/summary', { key })).json()) as { summary: { current_month_calls: number } };
    const shown = Number((await page.textContent('#calls-month'))!.replace(/,/g, ''));
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThanOrEqual(summary.summary.current_month_calls);
    const body = (await page.textContent('body'))!;
    expect(body).toContain('Acme Fintech');
    expect(body).toContain('Credits below 19,000');
    const states = await page.$$eval('#alerts tbody tr', (rows) => rows.map((r) => (r as HTMLElement).innerText));
    // Spanish by default (the tenant set no language): states, headings and the page's language.
    expect(states.find((r) => r.includes('Credits below 19,000'))).toContain('disparada');
    expect(states.find((r) => r.includes('Credits below 100'))).toContain('armada');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('es-MX');
    expect(body).toContain('Llamadas por servicio, este mes');
    expect(body).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    // Eleven services, eleven distinct colours, each named in the legend with its count.
    const legend = await page.$$eval('#services-legend li', (items) => items.map((li) => ({ name: li.querySelector('.svc')!.textContent, colour: (li.querySelector('.swatch') as HTMLElement).dataset.colour })));
    expect(legend.map((l) => l.name).sort()).toEqual(['credits', 'deployments', 'email', 'face', 'face-matching', 'fingerprint-matching', 'mex', 'ocr', 'signing', 'usage', 'webhooks']);
    expect(new Set(legend.map((l) => l.colour)).size).toBe(11);
    expect([...origins]).toEqual([s.url]);
    expect(problems, problems.join('\n')).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'usage-page.png'), fullPage: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'usage-page-es-1280.png'), fullPage: true });

    // On a 390 px phone: nothing wider than the screen, every legend entry inside it.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.waitForFunction(() => (window as unknown as { __usageCharts?: number }).__usageCharts === 3, undefined, { timeout: 15_000 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const canvases = await page.$$eval('canvas', (cs) => cs.map((c) => c.getBoundingClientRect().right));
    for (const right of canvases) expect(right).toBeLessThanOrEqual(390);
    const entries = await page.$$eval('#services-legend li', (items) => items.map((li) => { const r = li.getBoundingClientRect(); return { left: r.left, right: r.right, h: r.height, text: (li as HTMLElement).innerText }; }));
    expect(entries).toHaveLength(11);
    for (const e of entries) {
      expect(e.left).toBeGreaterThanOrEqual(0);
      expect(e.right).toBeLessThanOrEqual(390);
      expect(e.h).toBeGreaterThan(0);
    }
    expect(entries.map((e) => e.text).join(' ')).toContain('fingerprint-matching');
    await page.screenshot({ path: path.join(ARTIFACTS, 'usage-page-es-390.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });

    // The link works once.
    const again = await ctx.newPage();
    const second = await again.goto(url.replace('/dashboard/login', '/dashboard/login'), { waitUntil: 'load' });
    // The browser already holds a session cookie; the link itself is refused.
    expect(second!.status()).toBe(401);
    await again.close();
    await page.close();
  }, 180_000);

  it('refuses without a session, accepts the dashboard JWT, and renders white-label branding parameters', async () => {
    expect((await fetch(`${s.url}/dashboard/usage`)).status).toBe(401);
    expect((await fetch(`${s.url}/dashboard/usage`, { headers: { cookie: 'sello_dashboard=forged.jwt.value' } })).status).toBe(401);
    expect((await fetch(`${s.url}/dashboard/usage`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401); // API keys are not sessions
    const now = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT({ tenant_id: tenantId }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(now).setExpirationTime(now + 600).sign(new TextEncoder().encode(JWT_SECRET));
    const ok = await fetch(`${s.url}/dashboard/usage`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await ok.text();
    expect(html).toContain('Acme Fintech');
    expect(html).toContain('/dashboard/assets/chart.umd.min.js');
    const chart = await fetch(`${s.url}/dashboard/assets/chart.umd.min.js`);
    expect(chart.status).toBe(200);
    expect(await chart.text()).toContain('Chart');
    const { renderUsagePage } = await import('../../apps/api/routes/usage/page.ts');
    const { usagePageView } = await import('../../apps/api/routes/usage/dashboard.ts');
    const view = await usagePageView(s.ctx, tenantId);
    const branded = renderUsagePage(view, { companyName: 'Banco <Norte>', primaryColor: '#0a7d33', logoUrl: 'https://cdn.example.com/logo.png' });
    expect(branded).toContain('Banco &lt;Norte&gt;');
    expect(branded).toContain('--brand: #0a7d33');
    expect(branded).toContain('src="https://cdn.example.com/logo.png"');
    expect(renderUsagePage(view, { logoUrl: '/api/deployments/dep_1/logo' })).toContain('src="/api/deployments/dep_1/logo"');
    const hostile = renderUsagePage(view, { primaryColor: 'red; } body { display:none', logoUrl: 'javascript:alert(1)' });
    expect(hostile).toContain('--brand: #1f6feb');
    expect(hostile).not.toContain('javascript:');
    expect(renderUsagePage(view, { logoUrl: '//evil.example/x.png' })).not.toContain('evil.example');
    // A tenant that chose English (cli tenant locale) reads the page in English, times in its zone.
    const english = renderUsagePage(view, {}, { language: 'en', timeZone: 'America/Tijuana' });
    expect(english).toContain('<html lang="en-US">');
    expect(english).toContain('Calls by service, this month');
    expect(english).toMatch(/Generated [A-Z][a-z]{2} \d{1,2}, \d{4}, .* GMT-[78]/);
    expect(renderUsagePage(view)).toContain('<html lang="es-MX">');
  });
});
