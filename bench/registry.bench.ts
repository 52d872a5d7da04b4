/**
 * Registry lookup overhead: the sandbox `POST /v1/mex/renapo/get-curp` against a bare authenticated
 * route in the same run, same server, same tenant, with autocannon. A bare priced route (5 credits, the
 * same billing as get-curp) separates the edge's billing cost from the lookup's own cost (validation,
 * CURP computation, fingerprint, lookup event append).
 *
 *   node --import tsx bench/registry.bench.ts [--seconds 5 --connections 10]
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import os from 'node:os';
import { startTestServer } from '../test/helpers/server.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '10' } } });
const duration = Number(values.seconds);
const connections = Number(values.connections);
const body = JSON.stringify({ nombres: 'María Luisa', primerApellido: 'Pérez', segundoApellido: 'López', sexo: 'M', fechaNacimiento: '1985-07-14', claveEntidad: '14' });

const s = await startTestServer({
  extend: (app) => {
    app.post('/v1/bench/bare', { config: { auth: { permission: 'read' }, errorShape: 'registry' } }, async () => ({ success: true, status: 'OK' }));
    app.post('/v1/bench/bare-priced', { config: { auth: { permission: 'read' }, billing: { cost: 5 }, errorShape: 'registry' } }, async () => ({ success: true, status: 'OK' }));
  },
});
const { tenantId, key } = await s.tenantWithKey('pro');
await s.setLimits(tenantId, null, null);
await s.grant(tenantId, 100_000_000);

async function measure(path: string) {
  const opts = { url: `${s.url}${path}`, method: 'POST' as const, connections, body, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } };
  await autocannon({ ...opts, duration: 1 }); // warm-up
  const r = await autocannon({ ...opts, duration });
  return { rps: Math.round(r.requests.average), p50_ms: r.latency.p50, p99_ms: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

const bare = await measure('/v1/bench/bare');
const priced = await measure('/v1/bench/bare-priced');
const curp = await measure('/v1/mex/renapo/get-curp');
const lookups = (await s.ctx.events.readStream(`registry-${tenantId}`)).events.length;

console.log(`node ${process.version}, ${connections} connections, ${duration} s per route after a 1 s warm-up, embedded adapters (SQLite), load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
console.log(JSON.stringify({ bare_authenticated: bare, bare_priced_5_credits: priced, sandbox_get_curp: curp, lookup_events_recorded: lookups }, null, 2));
console.log(
  `\nbare authenticated: ${bare.rps} req/s p99 ${bare.p99_ms} ms | bare priced: ${priced.rps} req/s p99 ${priced.p99_ms} ms | ` +
    `sandbox get-curp: ${curp.rps} req/s p99 ${curp.p99_ms} ms | get-curp / bare = ${((curp.rps / bare.rps) * 100).toFixed(1)}%, ` +
    `get-curp / bare priced = ${((curp.rps / priced.rps) * 100).toFixed(1)}%`,
);
await s.close();
