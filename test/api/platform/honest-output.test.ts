/**
 * Honest answers found by a hostile tester (issue 30, item 4), over HTTP:
 * - an export download link without its signature (or expiry) is the documented 403
 *   `invalid_download_link` (docs/usage.md), not a 400 with the schema's raw text;
 * - an unknown OCR `document_type` (`water_bill`) names the value and the types that exist, instead of
 *   saying the field is required;
 * - the insufficient-credits message counts in English: "costs 1 credit", "1 is available".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { registerTestRoutes } from '../../helpers/test-routes.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({
    extend: (app) => {
      registerTestRoutes(app);
      app.post('/v1/test/priced-two', { config: { billing: { cost: 2 } } }, async () => ({ success: true }));
    },
  });
});
afterAll(async () => s?.close());

describe('usage export download link', () => {
  it('without its signature, expiry or both, or with a mangled one: 403 invalid_download_link in the structured shape', async () => {
    const base = '/v1/usage/export/exp_0c5e3b9f2a7d41e8b6c9d0a1/download';
    for (const query of ['', '?expires=4102444800', '?signature=abcdef', '?expires=soon&signature=00', `?expires=4102444800&signature=${'f'.repeat(300)}`]) {
      const r = await fetch(`${s.url}${base}${query}`);
      expect(r.status, query).toBe(403);
      const body = (await r.json()) as { success: boolean; error: { code: string; message: string } };
      expect(body.success).toBe(false);
      expect(body.error.code).toBe('invalid_download_link');
      expect(body.error.message).not.toMatch(/expected|invalid_type|Required|querystring/i);
    }
  });
});

describe('OCR document_type', () => {
  const form = (fields: Record<string, string>) => {
    const f = new FormData();
    for (const [k, v] of Object.entries(fields)) f.set(k, v);
    return f;
  };
  it('an unknown bill type names itself and the types that exist; a missing one says it is required', async () => {
    const { key } = await s.tenantWithKey('pro');
    const water = await s.fetch('/v1/ocr/extract/document', { method: 'POST', key, body: form({ document_type: 'water_bill', image: 'aGVsbG8=' }) });
    expect(water.status).toBe(400);
    const body = (await water.json()) as { success: boolean; error: string; message: string };
    expect(body).toMatchObject({ success: false, error: 'unsupported_document_type' });
    expect(body.message).toBe('document_type "water_bill" is not supported: use one of electricity_bill, phone_bill, cable_bill.');
    expect(water.headers.get('x-credit-cost')).toBe('0');

    const missing = (await (await s.fetch('/v1/ocr/extract/document', { method: 'POST', key, body: form({ image: 'aGVsbG8=' }) })).json()) as { message: string };
    expect(missing.message).toBe('document_type is required: one of electricity_bill, phone_bill, cable_bill.');

    const id = await s.fetch('/v1/ocr/extract/id', { method: 'POST', key, body: form({ document_type: 'driver_license', front: 'aGVsbG8=' }) });
    expect(id.status).toBe(400);
    expect(((await id.json()) as { message: string }).message).toBe('document_type "driver_license" is not supported: use ine (the default) or passport.');
  });
});

describe('insufficient credits message', () => {
  it('says "1 credit" and "1 is available" where the numbers are one', async () => {
    const { tenantId, key } = await s.tenantWithKey('free'); // 20 monthly credits
    await s.setLimits(tenantId, null, null);
    const post = (path: string) => s.fetch(path, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' });
    for (let i = 0; i < 19; i++) expect((await post('/v1/test/priced')).status).toBe(200);
    // 1 left; a 5-credit call (registry shape, 402).
    const registry = await post('/v1/test/registry');
    expect(registry.status).toBe(402);
    // Its body is fixed by the spec (no message); the general 429 carries the message:
    expect(await registry.json()).toMatchObject({ credits_required: 5, credits_available: 1 });
    const two = await post('/v1/test/priced-two');
    expect(two.status).toBe(429);
    expect(((await two.json()) as { message: string }).message).toBe('This call costs 2 credits and 1 is available');
    expect((await post('/v1/test/priced')).status).toBe(200);
    const refused = await post('/v1/test/priced');
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { message: string };
    expect(body.message).toBe('This call costs 1 credit and 0 are available');
  });
});
