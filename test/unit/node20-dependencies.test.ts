/**
 * Issue 18, item 4: every dependency declares Node 20 support. Five packages were pinned or overridden
 * below their Node-22-only releases (README, Requirements); these tests check that each works the way
 * this project or its dependent calls it, on the Node that runs the tests. The engine check itself is in
 * `.ci/run` (it fails when `npm ci` prints EBADENGINE).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';

const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, '../..');

/**
 * The package.json of `name` as node resolves it from the top level, or from inside `from` (a dependent
 * whose own node_modules may hold a nested copy). Read from disk: some packages do not export it.
 */
function manifestOf(name: string, from?: string): { version: string; engines?: { node?: string } } {
  const candidates = [
    ...(from ? [path.join(root, 'node_modules', from, 'node_modules', name, 'package.json')] : []),
    path.join(root, 'node_modules', name, 'package.json'),
  ];
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`${name} is not installed`);
  return JSON.parse(readFileSync(found, 'utf8'));
}

describe('dependencies pinned for Node 20 (issue 18, item 4)', () => {
  it('the pinned versions are installed and none of them asks for Node 22', () => {
    const pinned = {
      cockatiel: manifestOf('cockatiel'), tr46: manifestOf('tr46'), usearch: manifestOf('usearch'),
      cookie: manifestOf('cookie', 'light-my-request'), 'content-disposition': manifestOf('content-disposition', '@fastify/static'),
    };
    expect(Object.fromEntries(Object.entries(pinned).map(([k, m]) => [k, m.version]))).toEqual({
      cockatiel: '3.2.1', tr46: '6.0.0', usearch: '2.25.3', cookie: '1.1.1', 'content-disposition': '2.0.1',
    });
    for (const m of Object.values(pinned)) expect(m.engines?.node ?? '').not.toMatch(/>=\s*2[2-9]|\^2[2-9]/);
  });

  it('light-my-request sends cookies with the overridden cookie 1.1.1 (fastify.inject)', async () => {
    const app = Fastify();
    app.get('/c', async (req) => ({ cookie: req.headers.cookie ?? null }));
    const res = await app.inject({ method: 'GET', url: '/c', cookies: { a: 'x y', b: '2' } });
    expect(res.json()).toEqual({ cookie: 'a=x%20y; b=2' });
    await app.close();
  });

  it('@fastify/static builds Content-Disposition with the overridden content-disposition 2.0.1', () => {
    const staticRequire = createRequire(require.resolve('@fastify/static'));
    const { create } = staticRequire('content-disposition') as { create: (name: string, opts?: { type?: string }) => string };
    expect(create('informe año.pdf')).toBe("attachment; filename=\"informe a?o.pdf\"; filename*=UTF-8''informe%20a%C3%B1o.pdf");
  });

  it('tr46 6 converts internationalised domains both ways', async () => {
    const { toASCII, toUnicode } = await import('tr46');
    expect(toASCII('correo.méxico.mx')).toBe('correo.xn--mxico-bsa.mx');
    expect(toUnicode('xn--mxico-bsa.mx').domain).toBe('méxico.mx');
  });

  it('cockatiel 3 retries and breaks the circuit as the registry provider uses it', async () => {
    const { retry, handleAll, ConstantBackoff, circuitBreaker, ConsecutiveBreaker, wrap, BrokenCircuitError } = await import('cockatiel');
    let calls = 0;
    const r = retry(handleAll, { maxAttempts: 2, backoff: new ConstantBackoff(1) });
    const b = circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(1) });
    const policy = wrap(b, r);
    await expect(policy.execute(() => { calls++; throw new Error('down'); })).rejects.toThrow('down');
    expect(calls).toBe(3); // one try and two retries
    await expect(policy.execute(() => { calls++; throw new Error('down'); })).rejects.toBeInstanceOf(BrokenCircuitError);
  });

  it('usearch 2.25 loads its prebuilt addon and finds the nearest vector', async () => {
    const usearch = (await import('usearch')).default;
    const index = new usearch.Index({ dimensions: 3, metric: usearch.MetricKind.Cos, quantization: usearch.ScalarKind.F32, connectivity: 16, expansion_add: 64, expansion_search: 32, multi: false });
    index.add(1n, new Float32Array([1, 0, 0]));
    index.add(2n, new Float32Array([0, 1, 0]));
    expect(Array.from(index.search(new Float32Array([0.1, 0.9, 0]), 1, 1).keys)).toEqual([2n]);
  });
});
