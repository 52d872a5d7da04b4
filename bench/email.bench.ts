/**
 * E-mail verification benchmark (issue 6). Prints its figures; run with `npm run bench:email`.
 *
 * Setup (figures from a shared 2-core machine vary from run to run): the real server (startTestServer: embedded adapters, SQLite) on loopback, a real DNS server on
 * loopback (dns2) answering MX for the benchmark domains, an Enterprise tenant (no credit or rate limits).
 * 1. a 100-address batch over 20 domains with a cold DNS cache (fresh domains every run), against the
 *    loopback server (~0 ms upstream) and against one that delays each answer by 100 ms (the spec's
 *    "100-300 ms per new domain"), showing concurrent, coalesced look-ups;
 * 2. the same batch with a warm cache (target: under 50 ms server time, read from `processing_time`);
 * 3. single `GET /v1/email/verify` with a warm cache against a bare authenticated route (same auth, billing
 *    and usage hooks, no work) in the same run, measured with autocannon (target: at least 50% of its
 *    throughput).
 */
import autocannon from 'autocannon';
import { startTestServer } from '../test/helpers/server.ts';
import { startTestDnsServer, type ZoneEntry } from '../test/helpers/email-dns-server.ts';

const RUNS_COLD = 5;
const RUNS_WARM = 30;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 4);
const CONNECTIONS = 8;

function zoneFor(tag: string, delayMs?: number): Record<string, ZoneEntry> {
  const z: Record<string, ZoneEntry> = {};
  for (let d = 0; d < 20; d++) z[`dom${d}.${tag}.bench.mx`] = { mx: [[10, `mx.dom${d}.${tag}.bench.mx`]], ttl: 3600, ...(delayMs ? { delayMs } : {}) };
  return z;
}
const batchFor = (tag: string): string[] => Array.from({ length: 100 }, (_, i) => `user${i}.nombre@dom${i % 20}.${tag}.bench.mx`);
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const f = (x: number): string => x.toFixed(1);

const zone: Record<string, ZoneEntry> = { 'warm.bench.mx': { mx: [[10, 'mx.warm.bench.mx']], ttl: 3600 }, ...zoneFor('warm') };
for (let r = 0; r < RUNS_COLD; r++) Object.assign(zone, zoneFor(`cold${r}`), zoneFor(`slow${r}`, 100));
for (let r = 0; r < 3; r++) Object.assign(zone, zoneFor(`jit${r}`));
const dns = await startTestDnsServer(zone);
const s = await startTestServer({
  config: { EMAIL_DNS_SERVERS: dns.server, EMAIL_DNS_TIMEOUT_MS: 1000 },
  extend: (app) => {
    app.get('/v1/bench/bare', { config: { auth: { permission: 'read', jwt: true }, billing: { cost: 1 }, errorShape: 'flat' } }, async () => ({ success: true }));
  },
});
const { key, tenantId } = await s.tenantWithKey('enterprise');
await s.setLimits(tenantId, null, null); // no per-minute or concurrency limit: measure the work, not the limiter

async function postBatch(emails: string[]): Promise<{ server: number; client: number; valid: number }> {
  const t0 = performance.now();
  const r = await s.fetch('/v1/email/verify/batch', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ emails }) });
  const body = (await r.json()) as { processing_time: number; data: { statistics: { valid: number } } };
  if (r.status !== 200) throw new Error(`batch answered ${r.status}`);
  return { server: body.processing_time * 1000, client: performance.now() - t0, valid: body.data.statistics.valid };
}

try {
  console.log(`email bench: node ${process.version}, ${(await import('node:os')).cpus().length} cores, loopback DNS ${dns.server}`);
  // First call loads the lists (disposable/free/role) and the verifier: not part of any figure.
  await s.fetch('/v1/email/verify?email=warmup%40warm.bench.mx', { key });
  // A server that has been up a while has its code compiled: three cold batches on throwaway domains first.
  for (let r = 0; r < 3; r++) await postBatch(batchFor(`jit${r}`));

  const cold: number[] = [];
  const coldClient: number[] = [];
  for (let r = 0; r < RUNS_COLD; r++) {
    const before = dns.log.length;
    const x = await postBatch(batchFor(`cold${r}`));
    if (x.valid !== 100) throw new Error('cold batch: expected 100 VALID');
    cold.push(x.server);
    coldClient.push(x.client);
    if (r === 0) console.log(`  cold batch issued ${dns.log.length - before} DNS queries for 100 addresses over 20 domains`);
  }
  const slow: number[] = [];
  for (let r = 0; r < RUNS_COLD; r++) slow.push((await postBatch(batchFor(`slow${r}`))).server);

  await postBatch(batchFor('warm'));
  const warm: number[] = [];
  const warmClient: number[] = [];
  for (let r = 0; r < RUNS_WARM; r++) {
    const x = await postBatch(batchFor('warm'));
    warm.push(x.server);
    warmClient.push(x.client);
  }
  console.log(`batch of 100 addresses / 20 domains, server time (processing_time), median / p95 / max ms:`);
  console.log(`  cold cache, loopback DNS (~0 ms upstream): ${f(pct(cold, 50))} / ${f(pct(cold, 95))} / ${f(Math.max(...cold))}   (client round trip median ${f(pct(coldClient, 50))})   [${RUNS_COLD} runs]`);
  console.log(`  cold cache, DNS answering after 100 ms:    ${f(pct(slow, 50))} / ${f(pct(slow, 95))} / ${f(Math.max(...slow))}   [${RUNS_COLD} runs]`);
  console.log(`  warm cache:                                ${f(pct(warm, 50))} / ${f(pct(warm, 95))} / ${f(Math.max(...warm))}   (client round trip median ${f(pct(warmClient, 50))})   [${RUNS_WARM} runs]  target < 50 ms: ${pct(warm, 50) < 50 ? 'MET' : 'NOT MET'}`);

  const run = (path: string) =>
    autocannon({ url: s.url + path, connections: CONNECTIONS, duration: DURATION_S, headers: { authorization: `Bearer ${key}` } });
  // Warm both routes, then measure them back to back (bare, verify, bare, verify) and take the means.
  await autocannon({ url: s.url + '/v1/bench/bare', connections: CONNECTIONS, duration: 1, headers: { authorization: `Bearer ${key}` } });
  const verifyPath = '/v1/email/verify?email=' + encodeURIComponent('juan.perez+banco@warm.bench.mx');
  await autocannon({ url: s.url + verifyPath, connections: CONNECTIONS, duration: 1, headers: { authorization: `Bearer ${key}` } });
  const results: { bare: number[]; verify: number[]; bareP99: number[]; verifyP99: number[]; errors: number } = { bare: [], verify: [], bareP99: [], verifyP99: [], errors: 0 };
  for (let i = 0; i < 2; i++) {
    const b = await run('/v1/bench/bare');
    const v = await run(verifyPath);
    results.bare.push(b.requests.average);
    results.verify.push(v.requests.average);
    results.bareP99.push(b.latency.p99);
    results.verifyP99.push(v.latency.p99);
    results.errors += b.non2xx + v.non2xx + b.errors + v.errors;
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const bare = mean(results.bare);
  const ver = mean(results.verify);
  console.log(`single verify (warm cache) vs bare authenticated route, ${CONNECTIONS} connections, 2 x ${DURATION_S} s each, interleaved:`);
  console.log(`  bare route:   ${f(bare)} req/s (p99 ${f(mean(results.bareP99))} ms)`);
  console.log(`  email verify: ${f(ver)} req/s (p99 ${f(mean(results.verifyP99))} ms)`);
  console.log(`  ratio: ${((100 * ver) / bare).toFixed(1)}% of the bare route (target >= 50%: ${ver / bare >= 0.5 ? 'MET' : 'NOT MET'}); non-2xx/errors: ${results.errors}`);
} finally {
  await s.close();
  await dns.close();
}
