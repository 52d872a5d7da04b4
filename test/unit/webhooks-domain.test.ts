import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_CATALOG, isWebhookEventType, tenantOfWebhookEventsStream, webhookEventsStream } from '../../domain/webhooks/catalog.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, nextAttemptAt, serializeDeliveryBody, statusAfterAttempt } from '../../domain/webhooks/delivery.ts';
import { checkEvents, checkUrlSyntax } from '../../domain/webhooks/endpoint.ts';
import { WebhookError } from '../../domain/webhooks/errors.ts';
import { createSecretBox, generateEndpointSecret, parseSecretKey } from '../../domain/webhooks/secret-box.ts';
import { deliveryHeaders, signSello, signStandard, verifySello } from '../../domain/webhooks/signature.ts';
import { createAddressPolicy, parseAllowCidrs } from '../../domain/webhooks/ssrf.ts';
import { webhookDeliveryProcess, type DeliveryState } from '../../workflows/webhook-delivery/process.ts';
import type { Transition, WorkflowInput } from '../../infra/ports/workflows.ts';

/** Independent verifiers, written from the specs with node:crypto only. */
function senderHmacHex(secret: string, raw: Buffer): string {
  return createHmac('sha256', secret).update(raw).digest('hex');
}
function stdSig(secret: string, id: string, ts: string, raw: Buffer): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return 'v1,' + createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${id}.${ts}.`), raw])).digest('base64');
}

describe('webhook catalog', () => {
  it('lists the nine spec event types and document.declined with categories', () => {
    expect(WEBHOOK_EVENT_CATALOG.map((e) => e.name).sort()).toEqual(
      ['api.rate.limited', 'document.completed', 'document.declined', 'document.expired', 'document.signed', 'face.liveness.detected', 'face.verified', 'ocr.completed', 'ocr.id.extracted', 'user.credits.low'].sort(),
    );
    expect(isWebhookEventType('face.verified')).toBe(true);
    expect(isWebhookEventType('face.verifie')).toBe(false);
    expect(tenantOfWebhookEventsStream(webhookEventsStream('t_1'))).toBe('t_1');
    expect(tenantOfWebhookEventsStream('tenant-t_1')).toBeNull();
  });
});

describe('signatures', () => {
  it('X-Sello-Signature is sha256= + lowercase hex HMAC-SHA256 of the body', () => {
    const body = '{"id":"e1","type":"face.verified","created":1,"data":{}}';
    const sig = signSello('whsec_abc', body);
    expect(sig).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(sig).toBe('sha256=' + senderHmacHex('whsec_abc', Buffer.from(body)));
    expect(verifySello('whsec_abc', body, sig)).toBe(true);
    expect(verifySello('whsec_abd', body, sig)).toBe(false);
    expect(verifySello('whsec_abc', body, sig.slice(0, -1))).toBe(false);
  });

  it('Standard Webhooks signature matches the published test vector', () => {
    // standard-webhooks/standard-webhooks spec README example.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    const ts = 1614265330;
    const body = '{"test": 2432232314}';
    expect(signStandard(secret, id, ts, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('property: both signatures cover exactly the bytes sent; any change of a byte breaks them', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.string({ minLength: 1, maxLength: 20 }),
        fc.nat(),
        (data, type, flip) => {
          const secret = generateEndpointSecret();
          const body = serializeDeliveryBody({ id: 'evt_1', type, createdSeconds: 1_700_000_000, data });
          const raw = Buffer.from(body, 'utf8');
          const h = deliveryHeaders({ secret, body, eventType: type, deliveryId: 'whd_1', timestampSeconds: 1_700_000_001 });
          expect(h['x-sello-signature']).toBe('sha256=' + senderHmacHex(secret, raw));
          expect(h['webhook-signature']).toBe(stdSig(secret, 'whd_1', '1700000001', raw));
          const tampered = Buffer.from(raw);
          const i = flip % tampered.length;
          tampered[i] = tampered[i]! ^ (1 + (flip % 255));
          expect(h['x-sello-signature']).not.toBe('sha256=' + senderHmacHex(secret, tampered));
          expect(h['webhook-signature']).not.toBe(stdSig(secret, 'whd_1', '1700000001', tampered));
          const parsed = JSON.parse(body);
          expect(Object.keys(parsed)).toEqual(['id', 'type', 'created', 'data']);
        },
      ),
      { numRuns: 300, seed: 42 },
    );
  });
});

describe('secret box (AES-256-GCM)', () => {
  const key = parseSecretKey('11'.repeat(32));
  it('round-trips and binds the ciphertext to the endpoint id', () => {
    const box = createSecretBox(key);
    const secret = generateEndpointSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const sealed = box.seal(secret, 'whe_1');
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed, 'whe_1')).toBe(secret);
    expect(() => box.open(sealed, 'whe_2')).toThrow();
    const parts = sealed.split('.');
    const ct = Buffer.from(parts[3]!, 'base64url');
    ct[0] = ct[0]! ^ 1;
    parts[3] = ct.toString('base64url');
    expect(() => box.open(parts.join('.'), 'whe_1')).toThrow();
    expect(() => createSecretBox(parseSecretKey('22'.repeat(32))).open(sealed, 'whe_1')).toThrow();
  });
  it('rejects keys that are not 32 bytes', () => {
    expect(() => parseSecretKey('abcd')).toThrow(/32 bytes/);
    expect(parseSecretKey(Buffer.alloc(32, 7).toString('base64')).length).toBe(32);
  });
});

describe('SSRF address policy', () => {
  const strict = createAddressPolicy();
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['192.168.0.10', 'private'],
    ['172.16.5.4', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    // IPv4-compatible IPv6 (RFC 4291 2.5.5.1, deprecated; ipaddr.js calls it unicast)
    ['::169.254.169.254', 'ipv4Compatible'],
    ['::127.0.0.1', 'ipv4Compatible'],
    ['[::10.0.0.1]', 'ipv4Compatible'],
    ['::8.8.8.8', 'ipv4Compatible'],
    ['::a9fe:a9fe', 'ipv4Compatible'], // how the URL parser writes [::169.254.169.254]
    ['[::7f00:1]', 'ipv4Compatible'],
    ['224.0.0.1', 'multicast'],
  ])('refuses %s (%s)', (ip, range) => {
    expect(strict.check(ip)).toBe(range);
  });
  it('allows public unicast, and allowed CIDRs', () => {
    expect(strict.check('8.8.8.8')).toBeNull();
    expect(strict.check('2606:4700:4700::1111')).toBeNull();
    const loose = createAddressPolicy(parseAllowCidrs('127.0.0.0/8, ::1/128'));
    expect(loose.check('127.0.0.1')).toBeNull();
    expect(loose.check('::1')).toBeNull();
    expect(loose.check('::ffff:127.0.0.2')).toBeNull();
    expect(loose.check('10.0.0.1')).toBe('private');
    expect(() => parseAllowCidrs('10.0.0.0/99')).toThrow(/not a CIDR/);
    expect(strict.check('not-an-ip')).toBe('invalid');
  });
});

describe('endpoint rules', () => {
  it('accepts https only, without credentials', () => {
    expect(checkUrlSyntax('https://example.com/hook').hostname).toBe('example.com');
    for (const bad of ['http://example.com', 'ftp://x', 'example.com/hook', 'https://u:p@example.com/', '', 'https://' + 'a'.repeat(3000) + '.com']) {
      expect(() => checkUrlSyntax(bad)).toThrow(WebhookError);
    }
  });
  it('checks events against the catalog and de-duplicates', () => {
    expect(checkEvents(['face.verified', 'face.verified', 'ocr.completed'])).toEqual(['face.verified', 'ocr.completed']);
    try {
      checkEvents(['face.verified', 'nope']);
      expect.unreachable();
    } catch (e) {
      expect((e as WebhookError).code).toBe('invalid_event_type');
      expect((e as WebhookError).details.invalid_events).toEqual(['nope']);
    }
    expect(() => checkEvents([])).toThrow(WebhookError);
  });
});

describe('delivery schedule (spec Limits: immediate, +1 min, +5 min, +30 min, +2 h)', () => {
  it('retries four times then fails', () => {
    expect(MAX_ATTEMPTS).toBe(5);
    expect(RETRY_DELAYS_MS).toEqual([60_000, 300_000, 1_800_000, 7_200_000]);
    expect(nextAttemptAt(1, 1000)).toBe(61_000);
    expect(nextAttemptAt(4, 0)).toBe(7_200_000);
    expect(nextAttemptAt(5, 0)).toBeNull();
    expect(statusAfterAttempt(4, 'failed')).toBe('pending');
    expect(statusAfterAttempt(5, 'failed')).toBe('failed');
    expect(statusAfterAttempt(2, 'gone')).toBe('failed');
    expect(statusAfterAttempt(3, 'success')).toBe('success');
  });

  it('the process manager walks the whole schedule (given/when/then, no IO)', () => {
    let now = 1_000_000;
    const ctx = () => ({ now, workflowId: 'whd_1' });
    let t: Transition<DeliveryState> = webhookDeliveryProcess.handle(
      undefined,
      { type: 'started', input: { deliveryId: 'whd_1', tenantId: 't', endpointId: 'whe_1', eventId: 'e', eventType: 'face.verified', eventRevision: 0, createdAt: 'x', perEndpointConcurrency: 2 } },
      ctx(),
    );
    expect(t.effects).toEqual([expect.objectContaining({ type: 'activity', id: 'attempt-1', name: 'webhook.attempt', concurrency: { key: 'webhook-endpoint:whe_1', limit: 2 } })]);
    const times: number[] = [now];
    for (let n = 1; n <= 5; n++) {
      const fail: WorkflowInput = { type: 'activity.completed', id: `attempt-${n}`, result: { outcome: 'failed', responseStatus: 500 } };
      // A stale or duplicated input changes nothing.
      expect(webhookDeliveryProcess.handle(t.state, { type: 'activity.completed', id: `attempt-${n + 1}`, result: {} }, ctx()).effects).toEqual([]);
      t = webhookDeliveryProcess.handle(t.state, fail, ctx());
      if (n === 5) {
        expect(t.done).toBe(true);
        expect(t.state.status).toBe('failed');
        expect(t.state.attempts).toBe(5);
        break;
      }
      const timer = t.effects[0] as { type: 'timer'; id: string; at: number };
      expect(timer).toMatchObject({ type: 'timer', id: `retry-${n + 1}` });
      now = timer.at;
      times.push(now);
      t = webhookDeliveryProcess.handle(t.state, { type: 'timer.fired', id: timer.id }, ctx());
      expect(t.effects[0]).toMatchObject({ type: 'activity', id: `attempt-${n + 1}` });
    }
    expect(times.slice(1).map((x, i) => x - times[i]!)).toEqual([60_000, 300_000, 1_800_000, 7_200_000]);
  });

  it('an interrupted last attempt records the failure before finishing', () => {
    const s: DeliveryState = { deliveryId: 'd', tenantId: 't', endpointId: 'e', eventId: 'v', eventType: 'x', eventRevision: 0, createdAt: 'c', perEndpointConcurrency: 1, attempts: 4, status: 'pending', lastOutcome: 'failed', nextAttemptAt: null };
    const t = webhookDeliveryProcess.handle(s, { type: 'activity.failed', id: 'attempt-5', error: 'interrupted', interrupted: true }, { now: 0, workflowId: 'd' });
    expect(t.done).not.toBe(true);
    expect(t.effects).toEqual([expect.objectContaining({ type: 'activity', id: 'record-failure', name: 'webhook.recordFailure' })]);
    const t2 = webhookDeliveryProcess.handle(t.state, { type: 'activity.completed', id: 'record-failure', result: null }, { now: 0, workflowId: 'd' });
    expect(t2.done).toBe(true);
    expect(t2.state.status).toBe('failed');
  });

  it('410 and success end the delivery at once', () => {
    const s: DeliveryState = { deliveryId: 'd', tenantId: 't', endpointId: 'e', eventId: 'v', eventType: 'x', eventRevision: 0, createdAt: 'c', perEndpointConcurrency: 1, attempts: 0, status: 'pending', lastOutcome: null, nextAttemptAt: null };
    const gone = webhookDeliveryProcess.handle(s, { type: 'activity.completed', id: 'attempt-1', result: { outcome: 'gone', responseStatus: 410 } }, { now: 0, workflowId: 'd' });
    expect(gone).toMatchObject({ done: true, effects: [], state: { status: 'failed', attempts: 1 } });
    const ok = webhookDeliveryProcess.handle(s, { type: 'activity.completed', id: 'attempt-1', result: { outcome: 'success', responseStatus: 204 } }, { now: 0, workflowId: 'd' });
    expect(ok).toMatchObject({ done: true, state: { status: 'success' } });
  });
});
