/**
 * Registry lookups over real HTTP with the HTTP provider adapter pointed at a provider server the test
 * starts: the provider's failure modes (slow, 5xx, malformed, maintenance, down, circuit open) must all
 * become the spec's 503 SERVICE_UNAVAILABLE, uncharged and recorded.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { loadConfig } from '../../apps/api/config.ts';
import { createRegistryProvider } from '../../infra/registry-provider/index.ts';
import { startFakeProvider, type FakeProvider, type FakeProviderMode } from '../helpers/registry-fake-provider.ts';

const GLORIA = { nombres: 'Gloria', primerApellido: 'Hernández', segundoApellido: 'García', sexo: 'M', fechaNacimiento: '1956-04-27', claveEntidad: '30' };
const GET_CURP = '/v1/mex/renapo/get-curp';
const VOTER = '/v1/mex/ine/validate-voter-list';

let fake: FakeProvider;
let s: TestServer;
let key: string;
let tenantId: string;

beforeAll(async () => {
  fake = await startFakeProvider({ requiredAuth: 'provider-secret-key' });
  s = await startTestServer({
    config: {
      REGISTRY_PROVIDER: 'http',
      REGISTRY_PROVIDER_URL: fake.url,
      REGISTRY_PROVIDER_API_KEY: 'provider-secret-key',
      REGISTRY_PROVIDER_TIMEOUT_MS: 1000,
      REGISTRY_PROVIDER_RETRIES: 1,
      REGISTRY_BREAKER_THRESHOLD: 4,
      REGISTRY_BREAKER_HALF_OPEN_MS: 400,
    },
  });
  ({ key, tenantId } = await s.tenantWithKey('pro'));
});
afterAll(async () => {
  await s?.close();
  await fake?.close();
});
afterEach(() => {
  fake.mode = 'ok';
  fake.failTimes = -1;
  fake.delayMs = 0;
  fake.requests.length = 0;
});

function post(path: string, body: unknown): Promise<Response> {
  return s.fetch(path, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
async function balance(): Promise<number> {
  return (await (await s.fetch('/v1/credits/balance', { key })).json()).data.available_credits;
}
async function lastEvent(): Promise<Record<string, unknown>> {
  const ev = (await s.ctx.events.readStream(`registry-${tenantId}`)).events;
  return ev[ev.length - 1]!.data as Record<string, unknown>;
}

describe('through a certified provider', () => {
  it('answers without any sandbox marking, forwarding the request id and credentials', async () => {
    const r = await s.fetch(GET_CURP, { method: 'POST', key, headers: { 'content-type': 'application/json', 'x-request-id': 'trace-42' }, body: JSON.stringify(GLORIA) });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-registry-sandbox')).toBeNull();
    const b = await r.json();
    expect(b.sandbox).toBeUndefined();
    expect(b).toMatchObject({ success: true, status: 'OK', data: { curp: 'HEGG560427MVZRRL04' } });
    expect(fake.requests[0]!.headers['x-request-id']).toBe('trace-42');
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer provider-secret-key');
    expect(await lastEvent()).toMatchObject({ provider: 'http', sandbox: false, outcome: 'found' });
  });
  it('voter list: valid and not-valid answers', async () => {
    const ok = await (await post(VOTER, { cic: '123456789' })).json();
    expect(ok.data).toMatchObject({ valid: true, municipio: 'GUADALAJARA' });
    const no = await post(VOTER, { cic: '000000002' });
    expect(no.status).toBe(200);
    expect((await no.json()).data).toEqual({ valid: false, cic: '000000002', message: expect.any(String) });
  });
  it('404 NOT_FOUND when the provider has nobody', async () => {
    const r = await post(GET_CURP, { ...GLORIA, primerApellido: 'Inexistente' });
    expect(r.status).toBe(404);
    expect((await r.json()).type).toBe('NOT_FOUND');
  });
});

describe('provider failure modes become 503 SERVICE_UNAVAILABLE, uncharged and recorded', () => {
  const modes: Array<[FakeProviderMode, string, number]> = [
    ['slow', 'timeout', 1],
    ['slow-body', 'timeout', 1],
    ['http500', 'provider_error', 1],
    ['http502', 'provider_error', 2],
    ['http503', 'provider_error', 2],
    ['garbage', 'malformed_response', 1],
    ['wrong-shape', 'malformed_response', 1],
    ['maintenance', 'maintenance', 1],
    ['reset', 'connection_failed', 2],
  ];
  it.each(modes)('%s -> reason %s after %i provider call(s)', async (mode, reason, calls) => {
    fake.mode = mode;
    fake.delayMs = 5000;
    const before = await balance();
    const t0 = Date.now();
    const r = await post(GET_CURP, GLORIA);
    expect(Date.now() - t0).toBeLessThan(3500); // bounded by the 1 s timeout, not the provider's 5 s
    expect(r.status).toBe(503);
    expect(r.headers.get('x-credit-cost')).toBe('0');
    const b = await r.json();
    expect(b).toEqual({
      success: false,
      status: 'ERROR',
      type: 'SERVICE_UNAVAILABLE',
      message: expect.any(String),
      error_code: 'SERVICE_UNAVAILABLE',
      details: { service: 'RENAPO', error_message: expect.any(String), reason },
    });
    expect(JSON.stringify(b)).not.toContain('provider-secret-key');
    expect(fake.requests.length).toBe(calls);
    expect(await balance()).toBe(before);
    expect(await lastEvent()).toMatchObject({ outcome: 'provider_unavailable', reason, http_status: 503 });
    // Let the breaker forget this failure before the next mode (its threshold is 4).
    fake.mode = 'ok';
    expect((await post(GET_CURP, GLORIA)).status).toBe(200);
  });

  it('the voter list maps failures the same way, naming INE', async () => {
    fake.mode = 'http500';
    const r = await post(VOTER, { cic: '123456789' });
    expect(r.status).toBe(503);
    expect((await r.json()).details).toMatchObject({ service: 'INE', reason: 'provider_error' });
    fake.mode = 'ok';
    await post(VOTER, { cic: '123456789' });
  });

  it('opens the circuit after repeated failures: fast 503s without calling the provider, then recovers', async () => {
    fake.mode = 'http500';
    for (let i = 0; i < 4; i++) expect((await post(GET_CURP, GLORIA)).status).toBe(503);
    const calls = fake.requests.length;
    const r = await post(GET_CURP, GLORIA);
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('30');
    expect((await r.json()).details.reason).toBe('circuit_open');
    expect(fake.requests.length).toBe(calls);
    fake.mode = 'ok';
    await new Promise((res) => setTimeout(res, 450));
    expect((await post(GET_CURP, GLORIA)).status).toBe(200);
  });
});

describe('configuration (checked when the routes register, i.e. at start-up)', () => {
  it('refuses REGISTRY_PROVIDER=http without a URL, a bad URL, and a bad sandbox fixture file', () => {
    expect(() => createRegistryProvider(loadConfig({}, { REGISTRY_PROVIDER: 'http' }))).toThrow(/REGISTRY_PROVIDER_URL/);
    expect(() => createRegistryProvider(loadConfig({}, { REGISTRY_PROVIDER: 'http', REGISTRY_PROVIDER_URL: 'not a url' }))).toThrow();
    expect(() => createRegistryProvider(loadConfig({}, { REGISTRY_SANDBOX_FIXTURES: '/nonexistent/fixtures.json' }))).toThrow(/cannot read/);
    expect(() => loadConfig({}, { REGISTRY_PROVIDER: 'soap' })).toThrow(/REGISTRY_PROVIDER/);
    expect(() => loadConfig({}, { REGISTRY_PROVIDER_TIMEOUT_MS: '5' })).toThrow(/REGISTRY_PROVIDER_TIMEOUT_MS/);
  });
});
