/**
 * The HTTP adapter's resilience against a real provider server (slow and broken modes): timeouts,
 * retries only for retry-safe failures, failure mapping, circuit breaker, credentials.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { HttpRegistryProvider, type HttpProviderOptions } from '../../infra/registry-provider/http/http-provider.ts';
import { RegistryUnavailableError, type CurpLookupRequest } from '../../infra/ports/registry-provider.ts';
import { startFakeProvider, type FakeProvider } from '../helpers/registry-fake-provider.ts';

const GLORIA: CurpLookupRequest = { nombres: 'Gloria', primerApellido: 'Hernández', segundoApellido: 'García', sexo: 'M', fechaNacimiento: '1956-04-27', claveEntidad: '30' };

let fake: FakeProvider;
const open: HttpRegistryProvider[] = [];
function make(o: Partial<HttpProviderOptions> = {}): HttpRegistryProvider {
  const p = new HttpRegistryProvider({ baseUrl: fake.url, apiKey: 'test-provider-key', timeoutMs: 1000, retries: 2, backoffInitialMs: 20, backoffMaxMs: 60, breakerThreshold: 50, ...o });
  open.push(p);
  return p;
}
async function failure(p: Promise<unknown>): Promise<RegistryUnavailableError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(RegistryUnavailableError);
    return e as RegistryUnavailableError;
  }
  throw new Error('expected a failure');
}

beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});
afterEach(async () => {
  fake.mode = 'ok';
  fake.failTimes = -1;
  fake.delayMs = 0;
  fake.requests.length = 0;
  fake.requiredAuth = 'test-provider-key';
  while (open.length) await open.pop()!.close();
});

describe('HTTP registry provider: requests', () => {
  it('sends the credentials, JSON and the request id', async () => {
    const r = await make().getCurp(GLORIA, { requestId: 'req-123' });
    expect(r.found && r.record.curp).toBe('HEGG560427MVZRRL04');
    expect(fake.requests).toHaveLength(1);
    const h = fake.requests[0]!.headers;
    expect(h.authorization).toBe('Bearer test-provider-key');
    expect(h['content-type']).toBe('application/json');
    expect(h['x-request-id']).toBe('req-123');
    expect(fake.requests[0]!.body).toEqual(GLORIA);
  });
  it('supports HTTP Basic credentials', async () => {
    fake.requiredAuth = null;
    await make({ apiKey: undefined, username: 'acme', password: 's3cret' }).validateVoter({ cic: '123456789' });
    expect(fake.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('acme:s3cret').toString('base64')}`);
  });
  it('passes extra voter parameters through', async () => {
    await make().validateVoter({ cic: '123456789', ocr: '1234567890123', extra: { claveElector: 'GOMVRC80010109H100' } });
    expect(fake.requests[0]!.body).toEqual({ cic: '123456789', ocr: '1234567890123', claveElector: 'GOMVRC80010109H100' });
  });
  it('maps rejected credentials to "rejected", without retrying', async () => {
    const e = await failure(make({ apiKey: 'wrong' }).getCurp(GLORIA));
    expect(e.reason).toBe('rejected');
    expect(e.service).toBe('renapo');
    expect(e.message).not.toContain('wrong');
    expect(fake.requests).toHaveLength(1);
  });
});

describe('HTTP registry provider: slow and broken provider', () => {
  it('times out a slow provider within the per-call timeout and does not retry it', async () => {
    fake.mode = 'slow';
    fake.delayMs = 4000;
    const t0 = Date.now();
    const e = await failure(make({ timeoutMs: 200 }).getCurp(GLORIA));
    const ms = Date.now() - t0;
    expect(e.reason).toBe('timeout');
    expect(ms).toBeGreaterThanOrEqual(190);
    expect(ms).toBeLessThan(3000); // bounded by the timeout, not by the provider's 4 s
    expect(e.latencyMs).toBeGreaterThanOrEqual(190);
    expect(fake.requests).toHaveLength(1);
  });
  it('times out a body that stalls after the headers', async () => {
    fake.mode = 'slow-body';
    fake.delayMs = 1500;
    const e = await failure(make({ timeoutMs: 200 }).getCurp(GLORIA));
    expect(e.reason).toBe('timeout');
  });
  it('retries 503 with backoff and succeeds when the provider recovers', async () => {
    fake.mode = 'http503';
    fake.failTimes = 2;
    const r = await make({ retries: 2 }).getCurp(GLORIA);
    expect(r.found).toBe(true);
    expect(fake.requests).toHaveLength(3);
    // The delays between attempts come from cockatiel's decorrelated jitter (random, possibly ~0 ms for
    // the first retry), so only the attempt count is asserted.
  });
  it.each(['http502', 'http503', 'http429'] as const)('gives up on %s after the configured retries', async (mode) => {
    fake.mode = mode;
    const e = await failure(make({ retries: 2 }).getCurp(GLORIA));
    expect(e.reason).toBe('provider_error');
    expect(fake.requests).toHaveLength(3);
  });
  it('does not retry a 500', async () => {
    fake.mode = 'http500';
    const e = await failure(make({ retries: 2 }).validateVoter({ cic: '123456789' }));
    expect(e).toMatchObject({ reason: 'provider_error', service: 'ine' });
    expect(fake.requests).toHaveLength(1);
  });
  it.each(['garbage', 'wrong-shape', 'huge'] as const)('maps a %s body to malformed_response without retrying', async (mode) => {
    fake.mode = mode;
    const e = await failure(make().getCurp(GLORIA));
    expect(e.reason).toBe('malformed_response');
    expect(fake.requests).toHaveLength(1);
  });
  it('reports maintenance without retrying', async () => {
    fake.mode = 'maintenance';
    const e = await failure(make().getCurp(GLORIA));
    expect(e.reason).toBe('maintenance');
    expect(fake.requests).toHaveLength(1);
  });
  it('retries a reset connection, then reports connection_failed', async () => {
    fake.mode = 'reset';
    const e = await failure(make({ retries: 1 }).getCurp(GLORIA));
    expect(e.reason).toBe('connection_failed');
    expect(fake.requests).toHaveLength(2);
  });
  it('reports a provider that is down (connection refused)', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as import('node:net').AddressInfo).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const p = new HttpRegistryProvider({ baseUrl: `http://127.0.0.1:${port}/v1`, retries: 1, backoffInitialMs: 10, backoffMaxMs: 20 });
    open.push(p);
    const e = await failure(p.getCurp(GLORIA));
    expect(e.reason).toBe('connection_failed');
  });
});

describe('HTTP registry provider: circuit breaker', () => {
  it('opens after consecutive failures, fails fast without calling, and closes after a good trial call', async () => {
    const p = make({ retries: 0, breakerThreshold: 3, breakerHalfOpenAfterMs: 300 });
    fake.mode = 'http500';
    for (let i = 0; i < 3; i++) expect((await failure(p.getCurp(GLORIA))).reason).toBe('provider_error');
    expect(p.circuitState('renapo')).toBe('open');
    expect(p.circuitState('ine')).toBe('closed');
    // INE has its own circuit: its call still reaches the (broken) provider instead of failing fast.
    expect((await failure(p.validateVoter({ cic: '123456789' }))).reason).toBe('provider_error');

    const before = fake.requests.length;
    const t0 = Date.now();
    const e = await failure(p.getCurp(GLORIA));
    expect(e.reason).toBe('circuit_open');
    expect(Date.now() - t0).toBeLessThan(150); // no network round trip
    expect(fake.requests.length).toBe(before); // no call reached the provider
    fake.mode = 'ok';
    await new Promise((r) => setTimeout(r, 350));
    const r = await p.getCurp(GLORIA);
    expect(r.found).toBe(true);
    expect(p.circuitState('renapo')).toBe('closed');
  });
  it('does not count client aborts as provider failures', async () => {
    const p = make({ retries: 0, breakerThreshold: 1 });
    fake.mode = 'slow';
    fake.delayMs = 500;
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('client went away')), 50);
    await expect(p.getCurp(GLORIA, { signal: ac.signal })).rejects.toThrow('client went away');
    expect(p.circuitState('renapo')).toBe('closed');
  });
});
