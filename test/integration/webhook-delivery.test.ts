import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../contract/workflows.contract.ts';
import { makeCertificate, startReceiver, type ReceivedRequest, type TestCertificate, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { openWebhookStack, type WebhookStack } from '../helpers/webhook-stack.ts';

/** Receiver-side verification with node:crypto only, independent of the project's code. */
function verifyBoth(secret: string, r: ReceivedRequest): void {
  const hex = createHmac('sha256', secret).update(r.body).digest('hex');
  const got = Buffer.from(r.headers['x-sello-signature'] ?? '');
  const want = Buffer.from(`sha256=${hex}`);
  expect(got.length === want.length && timingSafeEqual(got, want)).toBe(true);
  const id = r.headers['webhook-id']!;
  const ts = r.headers['webhook-timestamp']!;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const std = createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${id}.${ts}.`), r.body])).digest('base64');
  expect(r.headers['webhook-signature']!.split(' ')).toContain(`v1,${std}`);
  expect(id).toBe(r.headers['x-sello-delivery']);
}

const MIN = 60_000;

describe('webhook deliveries end to end (embedded engine, SQLite, real HTTPS receiver)', () => {
  let cert: TestCertificate;
  let rx: WebhookReceiver;
  let dir: string;
  let clock: ManualClock;
  let stack: WebhookStack;
  const config = () => ({ allowCidrs: '127.0.0.0/8,::1/128', caCertsPath: cert.certFile, timeoutMs: 5_000 });

  beforeAll(async () => {
    cert = await makeCertificate();
    rx = await startReceiver(cert);
  });
  afterAll(async () => {
    await rx.close();
    cert.dispose();
  });
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sello-wh-'));
    clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
    stack = await openWebhookStack(dir, clock, config());
    rx.requests.length = 0;
  });
  afterEach(async () => {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const byPath = (p: string) => rx.requests.filter((r) => r.path === p);

  it('fans out each catalog event to every active subscribed endpoint of the tenant, signed twice over the exact bytes', async () => {
    const svc = stack.runtime.service;
    const a = await svc.create('t1', { url: `${rx.origin}/fan-a`, events: ['face.verified'] });
    const b = await svc.create('t1', { url: `${rx.origin}/fan-b`, events: ['face.verified', 'ocr.completed'], description: 'b' });
    await svc.create('t1', { url: `${rx.origin}/fan-c`, events: ['face.verified'], active: false });
    await svc.create('t2', { url: `${rx.origin}/fan-d`, events: ['face.verified'] });
    expect(a.secret).toMatch(/^whsec_/);
    await stack.publish('t1', 'face.verified', { verified: true, confidence: 0.93 });
    await stack.publish('t1', 'ocr.completed', { document_type: 'ine' });
    await stack.publish('t1', 'document.signed', { document_id: 'doc_1' });
    await stack.settle();

    expect(byPath('/fan-a')).toHaveLength(1);
    expect(byPath('/fan-b')).toHaveLength(2);
    expect(byPath('/fan-c')).toHaveLength(0);
    expect(byPath('/fan-d')).toHaveLength(0);
    for (const r of byPath('/fan-a')) verifyBoth(a.secret, r);
    for (const r of byPath('/fan-b')) verifyBoth(b.secret, r);
    const body = JSON.parse(byPath('/fan-a')[0]!.body.toString('utf8'));
    expect(Object.keys(body)).toEqual(['id', 'type', 'created', 'data']);
    expect(body).toMatchObject({ type: 'face.verified', data: { verified: true, confidence: 0.93 } });
    expect(Number.isInteger(body.created)).toBe(true);
    expect(byPath('/fan-a')[0]!.headers['x-sello-event']).toBe('face.verified');
    expect(byPath('/fan-a')[0]!.headers['content-type']).toBe('application/json');
    // The delivery's workflow keeps no event data (personal data of a signed document, say): only where
    // it is in the log. The body sent is rebuilt from the log on each attempt.
    const wf = await stack.engine.get(byPath('/fan-a')[0]!.headers['x-sello-delivery'] as string);
    expect(wf?.state).toMatchObject({ eventId: body.id, eventType: 'face.verified' });
    expect(JSON.stringify(wf?.state)).not.toContain('confidence');
    // The same event to two endpoints: same event id, different delivery ids.
    const bFace = byPath('/fan-b').find((r) => r.headers['x-sello-event'] === 'face.verified')!;
    expect(JSON.parse(bFace.body.toString()).id).toBe(body.id);
    expect(bFace.headers['x-sello-delivery']).not.toBe(byPath('/fan-a')[0]!.headers['x-sello-delivery']);

    const list = await svc.list('t1', { page: 1, per_page: 25 });
    expect(list.pagination.total).toBe(3);
    const epB = list.data.find((e) => e.id === b.id)!;
    expect(epB.success_rate).toBe(1);
    expect(epB.last_delivery).toBe(new Date(clock.now()).toISOString());
    const dl = await svc.deliveries('t1', b.id, { page: 1, per_page: 25 });
    expect(dl.data).toHaveLength(2);
    expect(dl.data[0]).toMatchObject({ status: 'success', attempts: 1, response_status: 200, error_message: null });
    expect((await svc.deliveries('t1', b.id, { event_type: 'ocr.completed', page: 1, per_page: 25 })).data).toHaveLength(1);
    expect((await svc.deliveries('t1', b.id, { status: 'failed', page: 1, per_page: 25 })).data).toHaveLength(0);
    // Tenant isolation: another tenant's endpoint id is not found.
    await expect(svc.deliveries('t2', b.id, { page: 1, per_page: 25 })).rejects.toMatchObject({ code: 'endpoint_not_found' });
  });

  it('retries on the spec schedule by the injected clock, and succeeds when the receiver recovers', async () => {
    rx.on('/flaky', (n) => (n <= 2 ? { status: 500, body: 'down' } : { status: 200 }));
    const ep = await stack.runtime.service.create('t1', { url: `${rx.origin}/flaky`, events: ['face.verified'] });
    await stack.publish('t1', 'face.verified', { n: 1 });
    await stack.settle();
    expect(byPath('/flaky')).toHaveLength(1);
    let d = (await stack.runtime.service.deliveries('t1', ep.id, { page: 1, per_page: 5 })).data[0]!;
    expect(d).toMatchObject({ status: 'pending', attempts: 1, response_status: 500, error_message: 'receiver answered HTTP 500' });
    expect(d.next_attempt_at).toBe(new Date(clock.now() + MIN).toISOString());
    clock.advance(MIN - 1000);
    await stack.settle();
    expect(byPath('/flaky')).toHaveLength(1);
    clock.advance(1000);
    await stack.settle();
    expect(byPath('/flaky')).toHaveLength(2);
    clock.advance(5 * MIN);
    await stack.settle();
    expect(byPath('/flaky')).toHaveLength(3);
    d = (await stack.runtime.service.deliveries('t1', ep.id, { page: 1, per_page: 5 })).data[0]!;
    expect(d).toMatchObject({ status: 'success', attempts: 3, response_status: 200 });
    // The same bytes on every attempt, one delivery id.
    const reqs = byPath('/flaky');
    expect(new Set(reqs.map((r) => r.body.toString('hex'))).size).toBe(1);
    expect(new Set(reqs.map((r) => r.headers['x-sello-delivery'])).size).toBe(1);
    for (const r of reqs) verifyBoth(ep.secret, r);
  });

  it('marks a delivery failed after the 5th attempt (immediate, +1 min, +5 min, +30 min, +2 h)', async () => {
    rx.on('/down', { status: 503 });
    const ep = await stack.runtime.service.create('t1', { url: `${rx.origin}/down`, events: ['ocr.completed'] });
    const t0 = clock.now();
    await stack.publish('t1', 'ocr.completed', {});
    await stack.settle();
    const seen: number[] = [clock.now() - t0];
    for (const step of [1, 5, 30, 120]) {
      clock.advance(step * MIN);
      await stack.settle();
      seen.push(clock.now() - t0);
    }
    clock.advance(24 * 60 * MIN);
    await stack.settle();
    expect(byPath('/down')).toHaveLength(5);
    expect(seen).toEqual([0, 1, 6, 36, 156].map((m) => m * MIN));
    const d = (await stack.runtime.service.deliveries('t1', ep.id, { status: 'failed', page: 1, per_page: 5 })).data[0]!;
    expect(d).toMatchObject({ status: 'failed', attempts: 5, response_status: 503, next_attempt_at: null });
    const e = (await stack.runtime.service.list('t1', { page: 1, per_page: 5 })).data[0]!;
    expect(e.success_rate).toBe(0);
    expect(stack.engine.stats().timers).toBe(0);
  });

  it('a 410 answer disables the endpoint without retries; later events are not sent to it', async () => {
    rx.on('/gone', { status: 410 });
    const ep = await stack.runtime.service.create('t1', { url: `${rx.origin}/gone`, events: ['face.verified'] });
    // a test delivery reports the 410 without disabling (its message said "endpoint disabled" while it stayed active)
    const t = await stack.runtime.service.test('t1', ep.id, 'face.verified');
    expect(t).toMatchObject({ test_sent: true, response_status: 410, error_message: expect.stringContaining('a test does not') });
    expect((await stack.runtime.service.list('t1', { active: true, page: 1, per_page: 5 })).data.map((x) => x.id)).toEqual([ep.id]);
    await stack.publish('t1', 'face.verified', {});
    await stack.settle();
    clock.advance(3 * 60 * MIN);
    await stack.settle();
    expect(byPath('/gone')).toHaveLength(2); // the test, then the event
    const e = (await stack.runtime.service.list('t1', { page: 1, per_page: 5 })).data.find((x) => x.id === ep.id)!;
    expect(e.active).toBe(false);
    expect((await stack.runtime.service.list('t1', { active: true, page: 1, per_page: 5 })).data).toHaveLength(0);
    await stack.publish('t1', 'face.verified', {});
    await stack.settle();
    expect(byPath('/gone')).toHaveLength(2);
  });

  it('restart: deliveries waiting for their next attempt all complete or fail after a restart; none lost, none sent twice', async () => {
    rx.on('/r-recover', (n) => (n <= 10 ? { status: 500 } : { status: 200 })); // first attempt of each of 10 events fails
    rx.on('/r-down', { status: 500 });
    const svc = stack.runtime.service;
    const ok = await svc.create('t1', { url: `${rx.origin}/r-recover`, events: ['face.verified'] });
    const down = await svc.create('t1', { url: `${rx.origin}/r-down`, events: ['face.verified'] });
    for (let i = 0; i < 10; i++) await stack.publish('t1', 'face.verified', { i });
    await stack.settle();
    expect(byPath('/r-recover')).toHaveLength(10);
    expect(byPath('/r-down')).toHaveLength(10);
    expect(stack.engine.stats().timers).toBe(20);

    // Stop everything while 20 deliveries wait for attempt 2; publish 5 more events while "down".
    await stack.close();
    stack = await openWebhookStack(dir, clock, config());
    for (let i = 10; i < 15; i++) await stack.publish('t1', 'face.verified', { i });
    await stack.close();
    stack = await openWebhookStack(dir, clock, config());
    await stack.settle();
    expect(byPath('/r-recover')).toHaveLength(15); // the 5 new events, attempt 1 (200)

    for (const step of [1, 5, 30, 120]) {
      clock.advance(step * MIN);
      await stack.settle();
      if (step === 5) {
        // Restart again mid-schedule.
        await stack.close();
        stack = await openWebhookStack(dir, clock, config());
        await stack.settle();
      }
    }
    const perDelivery = (p: string) => {
      const m = new Map<string, number>();
      for (const r of byPath(p)) m.set(r.headers['x-sello-delivery']!, (m.get(r.headers['x-sello-delivery']!) ?? 0) + 1);
      return m;
    };
    const rec = perDelivery('/r-recover');
    const dn = perDelivery('/r-down');
    expect(rec.size).toBe(15);
    expect(dn.size).toBe(15);
    expect([...dn.values()].every((n) => n === 5)).toBe(true);
    expect([...rec.values()].sort()).toEqual([...Array(5).fill(1), ...Array(10).fill(2)]);

    const okDeliveries = await stack.runtime.service.deliveries('t1', ok.id, { page: 1, per_page: 100 });
    expect(okDeliveries.pagination.total).toBe(15);
    expect(okDeliveries.data.every((d) => d.status === 'success')).toBe(true);
    const downDeliveries = await stack.runtime.service.deliveries('t1', down.id, { status: 'failed', page: 1, per_page: 100 });
    expect(downDeliveries.pagination.total).toBe(15);
    expect(downDeliveries.data.every((d) => d.attempts === 5)).toBe(true);
    expect(stack.engine.stats()).toMatchObject({ timers: 0, workflowsRunning: 0 });
    for (const r of byPath('/r-down')) verifyBoth(down.secret, r);
  });

  it('bounds in-flight attempts per endpoint so a slow receiver does not hold up another', async () => {
    let slowInFlight = 0;
    let slowPeak = 0;
    rx.on('/slow', () => ({ status: 200, delayMs: 1_500 }));
    rx.onRequest = (r) => {
      if (r.path === '/slow') {
        slowInFlight++;
        slowPeak = Math.max(slowPeak, slowInFlight);
        setTimeout(() => slowInFlight--, 1_500);
      }
    };
    const svc = stack.runtime.service;
    await svc.create('t1', { url: `${rx.origin}/slow`, events: ['face.verified'] });
    const fast = await svc.create('t1', { url: `${rx.origin}/fast`, events: ['face.verified'] });
    for (let i = 0; i < 12; i++) await stack.publish('t1', 'face.verified', { i });
    await stack.runtime.fanoutCaughtUp();
    let slowSeenWhenFastDone = -1;
    await new Promise<void>((resolve) => {
      const iv = setInterval(() => {
        if (byPath('/fast').length === 12) {
          slowSeenWhenFastDone = byPath('/slow').length;
          clearInterval(iv);
          resolve();
        }
      }, 5);
    });
    await stack.settle();
    rx.onRequest = undefined;
    expect(slowPeak).toBeLessThanOrEqual(4);
    expect(byPath('/slow')).toHaveLength(12);
    // 12 slow attempts at 4 at a time take >= 3 x 1.5 s; all 12 fast ones arrived before the slow ones did.
    expect(slowSeenWhenFastDone).toBeGreaterThan(0);
    expect(slowSeenWhenFastDone).toBeLessThan(12);
    expect((await svc.deliveries('t1', fast.id, { page: 1, per_page: 50 })).pagination.total).toBe(12);
  });

  it('deleted or deactivated endpoints get no further attempts', async () => {
    rx.on('/del', { status: 500 });
    const svc = stack.runtime.service;
    const ep = await svc.create('t1', { url: `${rx.origin}/del`, events: ['face.verified'] });
    await stack.publish('t1', 'face.verified', {});
    await stack.settle();
    await svc.update('t1', ep.id, { active: false });
    clock.advance(MIN);
    await stack.settle();
    expect(byPath('/del')).toHaveLength(1);
    // one request was sent: the step that found the endpoint inactive is not an attempt (it read 2)
    await stack.settle();
    const [d] = (await svc.deliveries('t1', ep.id, { page: 1, per_page: 5 })).data;
    expect(d).toMatchObject({ attempts: 1 });
    await expect(svc.remove('t2', ep.id)).rejects.toMatchObject({ code: 'endpoint_not_found' });
    await svc.remove('t1', ep.id);
    await expect(svc.deliveries('t1', ep.id, { page: 1, per_page: 5 })).rejects.toMatchObject({ code: 'endpoint_not_found' });
    expect(stack.engine.stats().workflowsRunning).toBe(0);
  });

  it('a rebuilt fan-out checkpoint neither re-sends deliveries nor sends history older than the endpoint', async () => {
    await stack.publish('t1', 'face.verified', { before: true });
    await stack.settle();
    const ep = await stack.runtime.service.create('t1', { url: `${rx.origin}/replay`, events: ['face.verified'] });
    await stack.publish('t1', 'face.verified', { after: true });
    await stack.settle();
    expect(byPath('/replay')).toHaveLength(1);
    // Lose the fan-out checkpoint (e.g. read models rebuilt) and restart: everything is read again.
    await stack.readModels.setCheckpoint('webhook-fanout', 0);
    await stack.close();
    stack = await openWebhookStack(dir, clock, config());
    await stack.settle();
    expect(byPath('/replay')).toHaveLength(1);
    expect(JSON.parse(byPath('/replay')[0]!.body.toString()).data).toEqual({ after: true });
    expect((await stack.runtime.service.deliveries('t1', ep.id, { page: 1, per_page: 5 })).pagination.total).toBe(1);
  });

  it('a changed WEBHOOK_SECRET_KEY makes attempts fail (recorded), never sends unsigned or wrongly signed bodies', async () => {
    const ep = await stack.runtime.service.create('t1', { url: `${rx.origin}/rekey`, events: ['face.verified'] });
    await stack.close();
    stack = await openWebhookStack(dir, clock, { ...config(), secretKey: 'ab'.repeat(32) });
    await stack.publish('t1', 'face.verified', {});
    await stack.settle();
    expect(byPath('/rekey')).toHaveLength(0);
    const d = (await stack.runtime.service.deliveries('t1', ep.id, { page: 1, per_page: 5 })).data[0]!;
    expect(d).toMatchObject({ status: 'pending', attempts: 1, response_status: null });
    expect(d.error_message).toMatch(/cannot be decrypted/);
  });
});
