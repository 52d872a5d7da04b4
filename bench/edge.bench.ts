/**
 * Edge overhead benchmark (issue 2): requests/s and p99 latency of an authenticated, rate-limited,
 * billed, usage-recorded endpoint (`GET /v1/credits/balance`) against a bare Fastify route, in the same
 * run, on the same machine, with autocannon. Target: the full edge keeps >= 25% of bare throughput.
 *
 *   npm run bench:edge [-- --seconds 10 --connections 50]
 */
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { parseArgs } from 'node:util';
import { startTestServer } from '../test/helpers/server.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' } } });
const duration = Number(values.seconds);
const connections = Number(values.connections);

async function measure(url: string, headers: Record<string, string> = {}) {
  // Warm-up, then the measured run.
  await autocannon({ url, connections, duration: 2, headers });
  const r = await autocannon({ url, connections, duration, headers });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

const bare = Fastify({ logger: false });
bare.get('/v1/credits/balance', async () => ({ success: true, data: { available_credits: 100 } }));
await bare.listen({ port: 0, host: '127.0.0.1' });
const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/v1/credits/balance`;

const s = await startTestServer();
const { tenantId, key } = await s.tenantWithKey('pro');
await s.setLimits(tenantId, null, null);

const bareResult = await measure(bareUrl);
const edgeResult = await measure(`${s.url}/v1/credits/balance`, { authorization: `Bearer ${key}` });
await s.ctx.usage.flush();
await s.ctx.projections.catchUp();
const usageRows = await (await s.ctx.readModels.collection('usage_events')).count({ tenant_id: tenantId });

const ratio = edgeResult.rps / bareResult.rps;
console.log(JSON.stringify({ duration_s: duration, connections, bare: bareResult, edge: edgeResult, usage_events_recorded: usageRows }, null, 2));
console.log(
  `\nbare Fastify: ${bareResult.rps.toFixed(0)} req/s, p99 ${bareResult.p99} ms | full edge (auth + limits + billing + usage event): ${edgeResult.rps.toFixed(0)} req/s, p99 ${edgeResult.p99} ms | ratio ${(ratio * 100).toFixed(1)}% (target >= 25%) ${ratio >= 0.25 ? 'PASS' : 'FAIL'}`,
);
await bare.close();
await s.close();
