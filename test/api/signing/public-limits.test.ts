/**
 * Issue 31 item 9: the public routes (`/sign/*`, previews, `/dashboard/login`) carry no key, so they are
 * limited per client address and, for the signing pages, per document (apps/api/public-limits.ts): past a
 * limit, 429 `rate_limit_exceeded` in the structured shape with `Retry-After`. Clients come from distinct
 * loopback addresses (127.0.0.2, 127.0.0.3...) to exercise the per-document budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { addressKey } from '../../../apps/api/public-limits.ts';

let s: TestServer;
let port: number;

beforeAll(async () => {
  s = await startTestServer({ config: { PUBLIC_RATE_LIMIT_PER_ADDRESS: 5, PUBLIC_RATE_LIMIT_PER_DOCUMENT: 8, DASHBOARD_LOGIN_RATE_LIMIT_PER_ADDRESS: 3 } });
  port = Number(new URL(s.url).port);
});
afterAll(async () => {
  await s?.close();
});

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: any;
}

/** A GET from the loopback address `from`. */
function get(path: string, from = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, localAddress: from, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        if ((res.headers['content-type'] ?? '').includes('json')) body = JSON.parse(text);
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const doc = (n: number) => `doc_${n.toString(16).padStart(24, '0')}`;

function expectLimited(a: Answer, scope: 'address' | 'document', limit: number) {
  expect(a.status).toBe(429);
  expect(a.body.success).toBe(false);
  expect(a.body.error.code).toBe('rate_limit_exceeded');
  expect(a.body.error.details).toMatchObject({ scope, limit, window_seconds: 60 });
  const retry = Number(a.retryAfter);
  expect(retry).toBeGreaterThanOrEqual(1);
  expect(retry).toBeLessThanOrEqual(60);
  expect(a.body.retry_after).toBe(retry);
}

describe('public routes are rate limited (issue 31)', () => {
  it('per address on /sign/*: the 6th request of a minute is 429 with Retry-After', async () => {
    for (let i = 0; i < 5; i++) expect((await get(`/sign/${doc(i)}`, '127.0.0.10')).status).toBe(200);
    expectLimited(await get(`/sign/${doc(99)}`, '127.0.0.10'), 'address', 5);
    // Page images and previews share the address's budget.
    expectLimited(await get(`/sign/preview/${doc(98)}?exp=1&sig=x`, '127.0.0.10'), 'address', 5);
    // Another address is not affected.
    expect((await get(`/sign/${doc(1)}`, '127.0.0.11')).status).toBe(200);
  });

  it('per document on /sign/*: many addresses together get the document limit', async () => {
    const target = doc(1000);
    const answers: Answer[] = [];
    for (const from of ['127.0.0.20', '127.0.0.21', '127.0.0.22']) {
      for (let i = 0; i < 3; i++) answers.push(await get(i === 2 ? `/sign/preview/${target}?exp=1&sig=x` : `/sign/${target}`, from));
    }
    // 8 admitted (landing pages 200, forged previews 403), the 9th refused for the document.
    expect(answers.slice(0, 8).map((a) => a.status)).toEqual([200, 200, 403, 200, 200, 403, 200, 200]);
    expectLimited(answers[8]!, 'document', 8);
    expectLimited(await get(`/sign/${target}`, '127.0.0.23'), 'document', 8);
    // Another document from a fresh address is served.
    expect((await get(`/sign/${doc(1001)}`, '127.0.0.23')).status).toBe(200);
  });

  it('per address on /dashboard/login, with a budget of its own', async () => {
    // 127.0.0.10 spent its /sign budget above; the sign-in page has its own.
    for (let i = 0; i < 3; i++) expect((await get('/dashboard/login?token=nope', '127.0.0.10')).status).toBe(401);
    expectLimited(await get('/dashboard/login?token=nope', '127.0.0.10'), 'address', 3);
    expect((await get('/dashboard/login?token=nope', '127.0.0.30')).status).toBe(401);
  });

  it('counts an IPv6 client by its /64 and an IPv4-mapped one as IPv4', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('keyed API routes are not counted against the public limits', async () => {
    const { key } = await s.tenantWithKey('pro');
    for (let i = 0; i < 8; i++) expect((await s.fetch('/v1/credits/balance', { key })).status).toBe(200);
  });
});
