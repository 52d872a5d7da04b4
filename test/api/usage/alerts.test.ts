import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, eventually } from '../../contract/workflows.contract.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { registerTestRoutes } from '../../helpers/test-routes.ts';
import { makeCertificate, startReceiver, type TestCertificate, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { readModelVariants, postgresReachable } from './harness.ts';

const variants = await readModelVariants('usage alerts');
const pgOk = await postgresReachable('usage alerts');
const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Receiver-side check with node:crypto only (independent of the project's signing code). */
function signatureValid(secret: string, body: Buffer, header: string | undefined): boolean {
  const want = Buffer.from('sha256=' + createHmac('sha256', secret).update(body).digest('hex'));
  const got = Buffer.from(header ?? '');
  return got.length === want.length && timingSafeEqual(got, want);
}

for (const v of variants) {
  const d = v.name === 'postgres' && !pgOk ? describe.skip : describe;
  d(`/v1/usage/alerts over HTTP (${v.name} read models)`, () => {
    let s: TestServer;
    let cert: TestCertificate;
    let rx: WebhookReceiver;
    const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));

    beforeAll(async () => {
      cert = await makeCertificate();
      rx = await startReceiver(cert);
      const rm = v.readModels();
      s = await startTestServer({
        config: { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8,::1/128', WEBHOOK_CA_CERTS: cert.certFile, WEBHOOK_TIMEOUT_MS: 5_000, WORKFLOW_POLL_MS: 20 },
        overrides: { clock, ...(rm ? { readModels: rm } : {}) },
        extend: (app) => registerTestRoutes(app),
      });
    });
    afterAll(async () => {
      await s?.close();
      await v.cleanup();
      await rx?.close();
      cert?.dispose();
    });
    const settle = async () => {
      await s.ctx.usage.flush();
      await s.ctx.projections.catchUp();
    };
    const call = async (method: string, p: string, key: string, body?: unknown) => {
      const res = await s.fetch(p, { method, key, ...(body === undefined ? {} : json(body)) });
      const out = { status: res.status, body: (await res.json()) as any };
      await settle();
      return out;
    };

    it('CRUD, validation, plan caps (0, 1, 5) and tenant isolation', async () => {
      const free = await s.tenantWithKey('free');
      const basic = await s.tenantWithKey('basic');
      const pro = await s.tenantWithKey('pro');
      const body = { name: 'Low credits', type: 'threshold', condition: { metric: 'credits_remaining', operator: 'lt', value: 100 }, notification: { email: 'ops@example.com' }, enabled: true };
      const f = await call('POST', '/v1/usage/alerts', free.key, body);
      expect(f.status).toBe(403);
      expect(f.body.error.code).toBe('alert_limit_reached');
      expect(f.body.error.details).toEqual({ limit: 0, plan: 'free' });
      const b1 = await call('POST', '/v1/usage/alerts', basic.key, body);
      expect(b1.status).toBe(201);
      expect(b1.body.data.secret).toMatch(/^whsec_/);
      expect(b1.body.data.state).toBe('armed');
      expect(b1.body.data.condition).toEqual({ metric: 'credits_remaining', operator: 'lt', value: 100 });
      expect((await call('POST', '/v1/usage/alerts', basic.key, body)).body.error.code).toBe('alert_limit_reached');
      for (let i = 0; i < 5; i++) {
        clock.advance(1_000); // listed oldest first
        expect((await call('POST', '/v1/usage/alerts', pro.key, { ...body, name: `a${i}` })).status).toBe(201);
      }
      expect((await call('POST', '/v1/usage/alerts', pro.key, body)).status).toBe(403);

      const list = await call('GET', '/v1/usage/alerts', pro.key);
      expect(list.body.data.map((a: any) => a.name)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
      expect(list.body.data[0].secret).toBeUndefined();
      const id = list.body.data[0].id;
      const up = await call('PUT', `/v1/usage/alerts/${id}`, pro.key, { condition: { metric: 'error_rate', operator: '>', value: 50 }, enabled: false });
      expect(up.status).toBe(200);
      expect(up.body.data.condition).toEqual({ metric: 'error_rate', operator: 'gt', value: 50, window: '1h' });
      expect(up.body.data.enabled).toBe(false);
      expect(up.body.data.notification).toEqual({ webhook_url: null, email: 'ops@example.com' });
      // Another tenant cannot read, change or delete it.
      expect((await call('GET', `/v1/usage/alerts/${id}`, basic.key)).status).toBe(404);
      expect((await call('PUT', `/v1/usage/alerts/${id}`, basic.key, { name: 'x' })).status).toBe(404);
      expect((await call('DELETE', `/v1/usage/alerts/${id}`, basic.key)).status).toBe(404);
      const del = await call('DELETE', `/v1/usage/alerts/${id}`, pro.key);
      expect(del.body).toEqual({ success: true, data: { alert_id: id, deleted: true } });
      expect((await call('GET', `/v1/usage/alerts/${id}`, pro.key)).status).toBe(404);
      expect((await call('POST', '/v1/usage/alerts', pro.key, body)).status).toBe(201); // a slot again

      const invalid = [
        { ...body, condition: { metric: 'cpu', operator: 'lt', value: 1 } },
        { ...body, condition: { metric: 'credits_remaining', operator: 'about', value: 1 } },
        { ...body, condition: { metric: 'credits_remaining', operator: 'lt', value: 'x' } },
        { ...body, notification: {} },
        { ...body, notification: { webhook_url: 'http://example.com/hook' } },
        { ...body, notification: { email: 'not-an-address' } },
        { ...body, name: '' },
        { ...body, name: 'x\r\nBcc: victim@example.com' },
        { ...body, type: 'anomaly' },
      ];
      for (const b of invalid) {
        const r = await call('POST', '/v1/usage/alerts', basic.key, b);
        expect(r.status, JSON.stringify(b)).toBe(400);
      }
      const ssrf = await call('POST', '/v1/usage/alerts', (await s.tenantWithKey('pro')).key, { ...body, notification: { webhook_url: 'https://169.254.169.254/latest' } });
      expect(ssrf.status).toBe(400);
      expect(ssrf.body.error.details.reason).toBe('url_not_allowed');
    });

    it('fires once per crossing: cross, clear, cross again = exactly two signed notifications and two e-mails', async () => {
      const t = await s.tenantWithKey('basic');
      const created = await call('POST', '/v1/usage/alerts', t.key, {
        name: 'Credits below 3997',
        type: 'threshold',
        condition: { metric: 'credits_remaining', operator: 'lt', value: 3997 },
        notification: { webhook_url: `${rx.origin}/alerts/${t.tenantId}`, email: 'billing@example.com' },
        enabled: true,
      });
      expect(created.status).toBe(201);
      const secret = created.body.data.secret as string;
      const id = created.body.data.id as string;
      const received = () => rx.requests.filter((r) => r.path === `/alerts/${t.tenantId}`);

      for (let i = 0; i < 3; i++) await call('POST', '/v1/test/priced', t.key); // 3997 left: not below
      expect((await call('GET', `/v1/usage/alerts/${id}`, t.key)).body.data.state).toBe('armed');
      // A failed call reserves a credit (3996 for a moment) and releases it: a transient dip does not fire.
      expect((await call('POST', '/v1/test/fails', t.key)).status).toBe(400);
      expect((await call('GET', `/v1/usage/alerts/${id}`, t.key)).body.data.triggered_count).toBe(0);
      await call('POST', '/v1/test/priced', t.key); // 3996: fires
      await call('POST', '/v1/test/priced', t.key); // 3995: still below, no second firing
      await eventually(() => received().length >= 1, 10_000, 'first alert webhook');
      await s.grant(t.tenantId, 10); // 4005: clears, re-armed
      await settle();
      const cleared = await call('GET', `/v1/usage/alerts/${id}`, t.key);
      expect(cleared.body.data.state).toBe('armed');
      expect(cleared.body.data.history[0].cleared_at).not.toBeNull();
      for (let i = 0; i < 9; i++) await call('POST', '/v1/test/priced', t.key); // 3996: fires again
      await eventually(() => received().length >= 2, 10_000, 'second alert webhook');
      const rec = await eventually(async () => {
        const r = await call('GET', `/v1/usage/alerts/${id}`, t.key);
        return r.body.data.history.every((h: any) => h.notifications !== null) ? r : null;
      }, 10_000, 'notification outcomes in the history');
      await new Promise((r) => setTimeout(r, 300));
      expect(received()).toHaveLength(2);
      for (const r of received()) {
        expect(signatureValid(secret, r.body, r.headers['x-sello-signature'])).toBe(true);
        expect(signatureValid('whsec_wrong', r.body, r.headers['x-sello-signature'])).toBe(false);
        expect(r.headers['x-sello-event']).toBe('user.credits.low');
        const payload = JSON.parse(r.body.toString('utf8'));
        expect(payload.type).toBe('user.credits.low');
        expect(payload.data).toMatchObject({ alert_id: id, metric: 'credits_remaining', operator: 'lt', threshold: 3997, value: 3996 });
      }
      expect(rec.body.data.triggered_count).toBe(2);
      expect(rec.body.data.state).toBe('triggered');
      expect(rec.body.data.history).toHaveLength(2);
      for (const h of rec.body.data.history) {
        expect(h.notifications.webhook).toMatchObject({ status: 'success', attempts: 1, response_status: 200 });
        expect(h.notifications.email.status).toBe('sent');
      }
      const outbox = path.join(s.dataDir, 'outbox');
      const mails = existsSync(outbox) ? readdirSync(outbox).map((f) => readFileSync(path.join(outbox, f), 'utf8')).filter((m) => m.includes('billing@example.com')) : [];
      expect(mails).toHaveLength(2);
      expect(mails[0]).toContain('Credits below 3997');
    });
  });
}
