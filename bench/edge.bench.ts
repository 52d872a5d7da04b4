/**
 * Edge overhead benchmark (issue 2): requests/s and p99 latency of an authenticated, rate-limited,
 * billed, usage-recorded endpoint (`GET /v1/credits/balance`) against a bare Fastify route answering the
 * same path, in the same run and process, on the same machine. The load comes from autocannon in a
 * child process, so the load generator's own CPU is not charged to either server.
 * Target (issue 18): the full edge keeps >= 50% of bare throughput. The machine's load average is
 * printed with the figures (the machine may be shared; the ratio is measured in one run).
 *
 *   npm run bench:edge [-- --seconds 10 --connections 50]
 */
import Fastify from 'fastify';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { cpus, loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import { startTestServer } from '../test/helpers/server.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' } } });
const duration = Number(values.seconds);
const connections = Number(values.connections);
const autocannonBin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const run = promisify(execFile);

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Responses received. */
  total: number;
  /** CPU microseconds per response: this whole process (every thread), and its main (HTTP) thread alone. */
  cpuUs: number;
  mainUs: number;
}

/** CPU ticks (10 ms) of this process's main thread (Linux), or NaN elsewhere. */
function mainThreadTicks(): number {
  try {
    const fields = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return Number.NaN;
  }
}

async function autocannon(url: string, seconds: number, headers: Record<string, string>): Promise<Figures> {
  const args = [autocannonBin, '-j', '-c', String(connections), '-d', String(seconds)];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  const t0 = mainThreadTicks();
  const c0 = process.cpuUsage();
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const c = process.cpuUsage(c0);
  const ticks = mainThreadTicks() - t0;
  const r = JSON.parse(stdout);
  const total = r.requests.total as number;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    total,
    cpuUs: Math.round((c.user + c.system) / total),
    mainUs: Math.round((ticks * 10_000) / total),
  };
}

/** Responses the edge gave (warm-ups included): each must have left exactly one usage event. */
let edgeAnswered = 0;

async function measure(url: string, headers: Record<string, string> = {}): Promise<Figures> {
  const warm = await autocannon(url, 2, headers); // warm-up
  const f = await autocannon(url, duration, headers);
  if (headers.authorization) edgeAnswered += warm.total + f.total;
  return f;
}

const loadAtStart = loadavg().map((x) => x.toFixed(2)).join(', ');
const bare = Fastify({ logger: false });
bare.get('/v1/credits/balance', async () => ({ success: true, data: { available_credits: 100 } }));
await bare.listen({ port: 0, host: '127.0.0.1' });
const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/v1/credits/balance`;

const s = await startTestServer();
const { tenantId, key } = await s.tenantWithKey('pro');
await s.setLimits(tenantId, null, null);

// Interleave the two measurements (bare, edge, bare, edge) so load from other processes hits both alike.
const bareRuns: Figures[] = [];
const edgeRuns: Figures[] = [];
for (let i = 0; i < 2; i++) {
  bareRuns.push(await measure(bareUrl));
  edgeRuns.push(await measure(`${s.url}/v1/credits/balance`, { authorization: `Bearer ${key}` }));
}
await s.ctx.usage.flush();
await s.ctx.projections.catchUp();
const usageRows = await (await s.ctx.readModels.collection('usage_events')).count({ tenant_id: tenantId });

const load = loadavg().map((x) => x.toFixed(2)).join(', ');
const mean = (xs: Figures[], k: keyof Figures) => xs.reduce((a, x) => a + x[k], 0) / xs.length;
const bareRps = mean(bareRuns, 'rps');
const edgeRps = mean(edgeRuns, 'rps');
const ratio = edgeRps / bareRps;
console.log(JSON.stringify({ duration_s: duration, connections, load_average: { start: loadAtStart, end: load }, bare: bareRuns, edge: edgeRuns, usage_events_recorded: usageRows, edge_responses_received: edgeAnswered }, null, 2));
console.log(
  `\nbare Fastify: ${bareRps.toFixed(0)} req/s, p99 ${mean(bareRuns, 'p99').toFixed(0)} ms, CPU ${mean(bareRuns, 'cpuUs').toFixed(0)} us/req (main thread ${mean(bareRuns, 'mainUs').toFixed(0)}) | full edge (auth + limits + billing headers + usage event + projection): ${edgeRps.toFixed(0)} req/s, p99 ${mean(edgeRuns, 'p99').toFixed(0)} ms, CPU ${mean(edgeRuns, 'cpuUs').toFixed(0)} us/req (main thread ${mean(edgeRuns, 'mainUs').toFixed(0)}) | ratio ${(ratio * 100).toFixed(1)}% (target >= 50%) ${ratio >= 0.5 ? 'PASS' : 'FAIL'} | load average ${loadAtStart} -> ${load} (1, 5, 15 min; ${cpus().length} cores)`,
);
await bare.close();
await s.close();
