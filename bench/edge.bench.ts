/**
 * Edge overhead benchmark (issue 2): requests/s and p99 latency of an authenticated, rate-limited,
 * billed, usage-recorded endpoint (`GET /v1/credits/balance`) against a bare Fastify route answering the
 * same path, in the same run and process, on the same machine. The load comes from autocannon in a
 * child process, so the load generator's own CPU is not charged to either server.
 * Target (issue 18): the full edge keeps >= 50% of bare throughput. The machine's load average is
 * printed with the figures (the machine may be shared; the ratio is measured in one run).
 *
 *   npm run bench:edge [-- --seconds 10 --connections 50 --writer-nice 10]
 *
 * `usage_catch_up_ms`: how long the usage rows took, after the last run, to be all in the read model
 * (the usage-writer thread runs below the HTTP thread's priority and may trail it under saturation).
 */
import { parseArgs } from 'node:util';
import { cpus, loadavg } from 'node:os';
import { loadRun, startEdgeBenchServers, type LoadFigures } from './edge-harness.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' }, 'writer-nice': { type: 'string' } } });
const duration = Number(values.seconds);
const connections = Number(values.connections);

/** Responses the edge gave (warm-ups included): each must have left exactly one usage record. */
let edgeAnswered = 0;

async function measure(url: string, headers: Record<string, string> = {}): Promise<LoadFigures> {
  const warm = await loadRun(url, { seconds: 2, connections, headers }); // warm-up
  const f = await loadRun(url, { seconds: duration, connections, headers });
  if (headers.authorization) edgeAnswered += warm.total + f.total;
  return { ...f, cpuUs: Math.round(f.cpuUs), mainUs: Math.round(f.mainUs) };
}

const loadAtStart = loadavg().map((x) => x.toFixed(2)).join(', ');
const s = await startEdgeBenchServers(values['writer-nice'] === undefined ? {} : { USAGE_WRITER_NICE: Number(values['writer-nice']) });

// Interleave the two measurements (bare, edge, bare, edge) so load from other processes hits both alike.
const bareRuns: LoadFigures[] = [];
const edgeRuns: LoadFigures[] = [];
for (let i = 0; i < 2; i++) {
  bareRuns.push(await measure(s.bareUrl));
  edgeRuns.push(await measure(s.edgeUrl, s.auth));
}
const ctx = s.edge.ctx;
const caughtUpFrom = performance.now();
await ctx.usage.flush();
await ctx.projections.catchUp();
const catchUpMs = Math.round(performance.now() - caughtUpFrom);
const usageRows = await (await ctx.readModels.collection('usage_events')).count({ tenant_id: s.tenantId });

const load = loadavg().map((x) => x.toFixed(2)).join(', ');
const mean = (xs: LoadFigures[], k: keyof LoadFigures) => xs.reduce((a, x) => a + x[k], 0) / xs.length;
const bareRps = mean(bareRuns, 'rps');
const edgeRps = mean(edgeRuns, 'rps');
const ratio = edgeRps / bareRps;
console.log(JSON.stringify({ duration_s: duration, connections, load_average: { start: loadAtStart, end: load }, bare: bareRuns, edge: edgeRuns, usage_events_recorded: usageRows, edge_responses_received: edgeAnswered, usage_catch_up_ms: catchUpMs, usage_writer_nice: s.edge.ctx.config.USAGE_WRITER_NICE }, null, 2));
console.log(
  `\nbare Fastify: ${bareRps.toFixed(0)} req/s, p99 ${mean(bareRuns, 'p99').toFixed(0)} ms, CPU ${mean(bareRuns, 'cpuUs').toFixed(0)} us/req (main thread ${mean(bareRuns, 'mainUs').toFixed(0)}) | full edge (auth + limits + billing headers + usage event + projection): ${edgeRps.toFixed(0)} req/s, p99 ${mean(edgeRuns, 'p99').toFixed(0)} ms, CPU ${mean(edgeRuns, 'cpuUs').toFixed(0)} us/req (main thread ${mean(edgeRuns, 'mainUs').toFixed(0)}) | ratio ${(ratio * 100).toFixed(1)}% (target >= 50%) ${ratio >= 0.5 ? 'PASS' : 'FAIL'} | load average ${loadAtStart} -> ${load} (1, 5, 15 min; ${cpus().length} cores)`,
);
await s.close();
