import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, eventually } from '../../contract/workflows.contract.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { makeCertificate, startReceiver, type ReceivedRequest, type TestCertificate, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';

/** Receiver-side checks with node:crypto only (independent of the project's signing code). */
function verifySignatures(secret: string, r: ReceivedRequest): void {
  const want = Buffer.from('sha256=' + createHmac('sha256', secret).update(r.body).digest('hex'));
  const got = Buffer.from(r.headers['x-sello-signature'] ?? '');
  expect(got.length === want.length && timingSafeEqual(got, want)).toBe(true);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = Buffer.concat([Buffer.from(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.`), r.body]);
  expect(r.headers['webhook-signature']).toBe('v1,' + createHmac('sha256', key).update(signed).digest('base64'));
}

const MIN = 60_000;
const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('/v1/webhooks over real HTTP (real HTTPS receiver on loopback)', () => {
  let cert: TestCertificate;
  let rx: WebhookReceiver;
  let s: TestServer;
  let clock: ManualClock;
  let dataDir: string;
  let key: string;
  let tenantId: string;
  let other: { key: string; tenantId: string };
  let readOnly: string;

  const serverConfig = () => ({
    DATA_DIR: dataDir,
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8,::1/128',
    WEBHOOK_CA_CERTS: cert.certFile,
    WEBHOOK_TIMEOUT_MS: 5_000,
    WORKFLOW_POLL_MS: 20,
  });

  beforeAll(async () => {
    cert = await makeCertificate();
    rx = await startReceiver(cert);
    dataDir = mkdtempSync(path.join(tmpdir(), 'sello-wh-api-'));
    clock = new ManualClock(Date.UTC(2026, 6, 1, 9));
    s = await startTestServer({ config: serverConfig(), overrides: { clock } });
    ({ key, tenantId } = await s.tenantWithKey('pro'));
    other = await s.tenantWithKey('pro');
    readOnly = (await s.createKey(tenantId, ['read'])).key;
  });
  afterAll(async () => {
    await s.close();
    await rx.close();
    cert.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function create(body: Record<string, unknown>, k = key) {
    const res = await s.fetch('/v1/webhooks/endpoints', { method: 'POST', key: k, ...json(body) });
    return { status: res.status, body: (await res.json()) as any };
  }
  const byPath = (p: string) => rx.requests.filter((r) => r.path === p);

  it('GET /v1/webhooks/events lists the catalog', async () => {
    const res = await s.fetch('/v1/webhooks/events', { key });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.success).toBe(true);
    expect(body.data.events).toHaveLength(10); // the spec's nine + document.declined (issue 13)
    expect(body.data.events).toContainEqual({ name: 'face.verified', description: 'Face verification completed.', category: 'face' });
  });

  it('documents every webhook route in the OpenAPI document', async () => {
    const res = await s.fetch('/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths['/v1/webhooks/endpoints'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v1/webhooks/endpoints/{endpoint_id}'] ?? {}).sort()).toEqual(['delete', 'put']);
    expect(doc.paths['/v1/webhooks/endpoints/{endpoint_id}/test']?.post).toBeDefined();
    expect(doc.paths['/v1/webhooks/endpoints/{endpoint_id}/deliveries']?.get).toBeDefined();
    expect(doc.paths['/v1/webhooks/events']?.get).toBeDefined();
  });

  it('creates an endpoint, returns the secret once and keeps it only encrypted', async () => {
    const r = await create({ url: `${rx.origin}/create`, events: ['face.verified'], description: 'main' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ url: `${rx.origin}/create`, events: ['face.verified'], description: 'main', active: true });
    expect(r.body.data.secret).toMatch(/^whsec_/);
    expect(Object.keys(r.body.data).sort()).toEqual(['active', 'created_at', 'description', 'events', 'id', 'secret', 'url']);
    const list = (await (await s.fetch('/v1/webhooks/endpoints', { key })).json()) as any;
    const item = list.data.find((e: any) => e.id === r.body.data.id);
    expect(item).toMatchObject({ last_delivery: null, success_rate: null, active: true });
    expect(item.secret).toBeUndefined();
    // At rest: no file in DATA_DIR holds the secret in clear.
    const secretPart = r.body.data.secret.slice('whsec_'.length);
    for (const f of readdirSync(dataDir).filter((n) => n.endsWith('.sqlite') || n.endsWith('-wal'))) {
      const bytes = readFileSync(path.join(dataDir, f));
      expect(bytes.includes(Buffer.from(secretPart)), f).toBe(false);
    }
  });

  it('refuses bad input with structured errors', async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ url: 'http://example.com/hook', events: ['face.verified'] }, 400, 'invalid_url'],
      [{ url: `${rx.origin}/x`, events: ['face.verified', 'nope.event'] }, 400, 'invalid_event_type'],
      [{ url: `${rx.origin}/x`, events: [] }, 400, 'validation_error'],
      [{ events: ['face.verified'] }, 400, 'validation_error'],
      [{ url: 42, events: 'face.verified' }, 400, 'validation_error'],
      [{ url: 'https://10.1.2.3/hook', events: ['face.verified'] }, 400, 'url_not_allowed'],
      [{ url: 'https://169.254.169.254/latest', events: ['face.verified'] }, 400, 'url_not_allowed'],
      [{ url: 'https://[fd00::1]/hook', events: ['face.verified'] }, 400, 'url_not_allowed'],
      [{ url: 'https://[::169.254.169.254]/latest', events: ['face.verified'] }, 400, 'url_not_allowed'],
      [{ url: 'https://[::127.0.0.1]/hook', events: ['face.verified'] }, 400, 'url_not_allowed'],
      [{ url: 'https://user:pw@localhost/hook', events: ['face.verified'] }, 400, 'invalid_url'],
    ];
    for (const [body, status, code] of cases) {
      const r = await create(body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.success).toBe(false);
      expect(r.body.error.code, JSON.stringify(body)).toBe(code);
      expect(typeof r.body.error.message).toBe('string');
    }
    const unknown = await create({ url: `${rx.origin}/x`, events: ['nope'] });
    expect(unknown.body.error.details.invalid_events).toEqual(['nope']);
    const notJson = await s.fetch('/v1/webhooks/endpoints', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{"url":' });
    expect(notJson.status).toBe(400);
    const huge = await s.fetch('/v1/webhooks/endpoints', { method: 'POST', key, ...json({ url: `${rx.origin}/x`, events: ['face.verified'], description: 'x'.repeat(2_000_000) }) });
    expect(huge.status).toBe(413);
    expect((await s.fetch('/v1/webhooks/endpoints?per_page=1000', { key })).status).toBe(400);
    expect((await s.fetch('/v1/webhooks/endpoints?active=maybe', { key })).status).toBe(400);
  });

  it('needs write permission to change endpoints, and a key at all', async () => {
    const r = await create({ url: `${rx.origin}/x`, events: ['face.verified'] }, readOnly);
    expect(r.status).toBe(403);
    expect((await s.fetch('/v1/webhooks/endpoints')).status).toBe(401);
    expect((await s.fetch('/v1/webhooks/endpoints', { key: readOnly })).status).toBe(200);
  });

  it('lists with the active filter and pagination; updates; deletes; other tenants see 404', async () => {
    const t = await s.tenantWithKey('pro');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      ids.push((await create({ url: `${rx.origin}/list-${i}`, events: ['ocr.completed'], active: i % 2 === 0 }, t.key)).body.data.id);
    }
    const page = (await (await s.fetch('/v1/webhooks/endpoints?page=2&per_page=2', { key: t.key })).json()) as any;
    expect(page.pagination).toEqual({ page: 2, per_page: 2, total: 5 });
    expect(page.data.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    const active = (await (await s.fetch('/v1/webhooks/endpoints?active=true', { key: t.key })).json()) as any;
    expect(active.pagination.total).toBe(3);
    expect(active.data.every((e: any) => e.active)).toBe(true);

    const put = await s.fetch(`/v1/webhooks/endpoints/${ids[1]}`, { method: 'PUT', key: t.key, ...json({ active: true, events: ['ocr.completed', 'face.verified'] }) });
    expect(put.status).toBe(200);
    const upd = (await put.json()) as any;
    expect(upd.data).toMatchObject({ id: ids[1], active: true, events: ['ocr.completed', 'face.verified'], url: `${rx.origin}/list-1` });
    expect(Object.keys(upd.data).sort()).toEqual(['active', 'events', 'id', 'updated_at', 'url']);
    const badPut = await s.fetch(`/v1/webhooks/endpoints/${ids[1]}`, { method: 'PUT', key: t.key, ...json({ url: 'http://plain.example' }) });
    expect(((await badPut.json()) as any).error.code).toBe('invalid_url');
    // a field the endpoint cannot change is refused, not ignored (a `secret` was answered 200 and kept the old one)
    const secretPut = await s.fetch(`/v1/webhooks/endpoints/${ids[1]}`, { method: 'PUT', key: t.key, ...json({ secret: 'whsec_mine' }) });
    expect(secretPut.status).toBe(400);
    expect(((await secretPut.json()) as any).error.code).toBe('validation_error');

    // Another tenant's id behaves like an unknown one on every route.
    for (const [method, p, body] of [
      ['PUT', `/v1/webhooks/endpoints/${ids[1]}`, { active: false }],
      ['DELETE', `/v1/webhooks/endpoints/${ids[1]}`, undefined],
      ['POST', `/v1/webhooks/endpoints/${ids[1]}/test`, {}],
      ['GET', `/v1/webhooks/endpoints/${ids[1]}/deliveries`, undefined],
      ['GET', `/v1/webhooks/endpoints/whe_doesnotexist/deliveries`, undefined],
    ] as const) {
      const res = await s.fetch(p, { method, key: other.key, ...(body ? json(body) : {}) });
      expect(res.status, `${method} ${p}`).toBe(404);
      expect(((await res.json()) as any).error.code).toBe('endpoint_not_found');
    }

    const del = await s.fetch(`/v1/webhooks/endpoints/${ids[0]}`, { method: 'DELETE', key: t.key });
    expect(((await del.json()) as any).data).toEqual({ message: 'Webhook endpoint deleted', endpoint_id: ids[0] });
    expect((await s.fetch(`/v1/webhooks/endpoints/${ids[0]}`, { method: 'DELETE', key: t.key })).status).toBe(404);
    expect(((await (await s.fetch('/v1/webhooks/endpoints', { key: t.key })).json()) as any).pagination.total).toBe(4);
  });

  it('test delivery: signed, synchronous, response_body truncated; failures reported', async () => {
    const ep = (await create({ url: `${rx.origin}/test-ok`, events: ['face.verified'] })).body.data;
    rx.on('/test-ok', { status: 200, body: 'y'.repeat(5000) });
    const res = await s.fetch(`/v1/webhooks/endpoints/${ep.id}/test`, { method: 'POST', key });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.data).toMatchObject({ test_sent: true, response_status: 200, response_body_truncated: true, error_message: null });
    expect(body.data.response_body).toBe('y'.repeat(1024));
    expect(typeof body.data.response_time).toBe('number');
    const req = byPath('/test-ok').at(-1)!;
    verifySignatures(ep.secret, req);
    expect(req.headers['x-sello-event']).toBe('test');
    expect(JSON.parse(req.body.toString()).type).toBe('test');

    const typed = (await (await s.fetch(`/v1/webhooks/endpoints/${ep.id}/test`, { method: 'POST', key, ...json({ event_type: 'face.verified' }) })).json()) as any;
    expect(typed.data.test_sent).toBe(true);
    expect(byPath('/test-ok').at(-1)!.headers['x-sello-event']).toBe('face.verified');

    rx.on('/test-500', { status: 500, body: 'nope' });
    const failing = (await create({ url: `${rx.origin}/test-500`, events: ['face.verified'] })).body.data;
    const f = (await (await s.fetch(`/v1/webhooks/endpoints/${failing.id}/test`, { method: 'POST', key, ...json({}) })).json()) as any;
    expect(f.data).toMatchObject({ test_sent: true, response_status: 500, response_body: 'nope' });
    const badType = await s.fetch(`/v1/webhooks/endpoints/${ep.id}/test`, { method: 'POST', key, ...json({ event_type: 'x'.repeat(500) }) });
    expect(badType.status).toBe(400);
  });

  it('delivers published events, retries on the schedule, and reports deliveries with filters and pagination', async () => {
    rx.on('/flow', (n) => (n === 1 ? { status: 500, body: 'warming up' } : { status: 200 }));
    const ep = (await create({ url: `${rx.origin}/flow`, events: ['face.verified', 'ocr.id.extracted'] })).body.data;
    await s.ctx.publishWebhookEvent(tenantId, 'face.verified', { verified: true, confidence: 0.91 });
    await s.ctx.publishWebhookEvent(tenantId, 'ocr.id.extracted', { document_type: 'ine' });
    await s.ctx.publishWebhookEvent(other.tenantId, 'face.verified', { verified: false });
    await eventually(() => byPath('/flow').length === 2, 10_000, 'first attempts');
    const deliveries = async (q = '') => {
      await s.ctx.projections.catchUp();
      return (await (await s.fetch(`/v1/webhooks/endpoints/${ep.id}/deliveries${q}`, { key })).json()) as any;
    };
    await eventually(async () => (await deliveries()).pagination.total === 2, 10_000, 'deliveries listed');
    const pending = await eventually(async () => {
      const d = await deliveries('?status=pending');
      return d.pagination.total === 1 ? d : null;
    });
    expect(pending.data[0]).toMatchObject({ attempts: 1, response_status: 500, error_message: 'receiver answered HTTP 500' });
    clock.advance(MIN);
    await eventually(() => byPath('/flow').length === 3, 10_000, 'second attempt');
    await eventually(async () => (await deliveries('?status=success')).pagination.total === 2, 10_000, 'both succeeded');
    const all = await deliveries('?per_page=1&page=2');
    expect(all.pagination).toEqual({ page: 2, per_page: 1, total: 2 });
    expect(all.data).toHaveLength(1);
    const ocr = await deliveries('?event_type=ocr.id.extracted');
    expect(ocr.data).toHaveLength(1);
    expect(Object.keys(ocr.data[0]).sort()).toEqual(
      ['attempts', 'created_at', 'error_message', 'event_id', 'event_type', 'id', 'last_attempt', 'next_attempt_at', 'response_status', 'response_time', 'status'].sort(),
    );
    for (const r of byPath('/flow')) verifySignatures(ep.secret, r);
    const list = (await (await s.fetch('/v1/webhooks/endpoints', { key })).json()) as any;
    const item = list.data.find((e: any) => e.id === ep.id);
    expect(item.success_rate).toBe(1);
    expect(item.last_delivery).toBe(new Date(clock.now()).toISOString());
    expect((await deliveries('?status=bogus')).success).toBe(false);
  });

  it('a real emitter: the edge\'s api.rate.limited reaches a subscribed endpoint', async () => {
    const t = await s.tenantWithKey('pro');
    const ep = (await create({ url: `${rx.origin}/ratelimited`, events: ['api.rate.limited'] }, t.key)).body.data;
    await s.setLimits(t.tenantId, 1, null);
    let limited = 0;
    for (let i = 0; i < 5; i++) if ((await s.fetch('/v1/webhooks/events', { key: t.key })).status === 429) limited++;
    expect(limited).toBeGreaterThan(0);
    await eventually(() => byPath('/ratelimited').length === 1, 10_000, 'api.rate.limited delivery');
    const r = byPath('/ratelimited')[0]!;
    verifySignatures(ep.secret, r);
    const body = JSON.parse(r.body.toString());
    expect(body.type).toBe('api.rate.limited');
    expect(body.data).toMatchObject({ rate_class: 'light', endpoint: '/v1/webhooks/events' });
    await s.setLimits(t.tenantId, null, null);
  });

  it('restart: stopping the server while deliveries wait for a retry loses none and sends none twice', async () => {
    rx.on('/restart', (n) => (n <= 3 ? { status: 503 } : { status: 200 }));
    const ep = (await create({ url: `${rx.origin}/restart`, events: ['document.signed'] })).body.data;
    for (let i = 0; i < 3; i++) await s.ctx.publishWebhookEvent(tenantId, 'document.signed', { document_id: `doc_${i}` });
    await eventually(() => byPath('/restart').length === 3, 10_000, 'first attempts');
    await s.ctx.projections.catchUp();
    await new Promise((r) => setTimeout(r, 100));
    await s.close(); // DATA_DIR is ours: it survives
    s = await startTestServer({ config: serverConfig(), overrides: { clock } });
    await new Promise((r) => setTimeout(r, 200));
    expect(byPath('/restart')).toHaveLength(3);
    clock.advance(MIN);
    await eventually(() => byPath('/restart').length === 6, 10_000, 'retries after restart');
    await new Promise((r) => setTimeout(r, 300));
    expect(byPath('/restart')).toHaveLength(6);
    const ids = byPath('/restart').map((r) => r.headers['x-sello-delivery']);
    expect(new Set(ids).size).toBe(3);
    await eventually(async () => {
      await s.ctx.projections.catchUp();
      const d = (await (await s.fetch(`/v1/webhooks/endpoints/${ep.id}/deliveries?status=success`, { key })).json()) as any;
      return d.pagination.total === 3 && d.data.every((x: any) => x.attempts === 2);
    }, 10_000, 'all delivered');
  });
});
