/**
 * CPU per request of the edge (issue 18): the same load as `bench:edge` (autocannon, 50 connections, a
 * child process) against a bare Fastify route and the full edge (`GET /v1/credits/balance`), reporting
 * for each the throughput, the whole process's CPU microseconds per request (`process.cpuUsage`, every
 * thread: the usage-writer thread included) and the HTTP thread's alone (Linux: utime + stime of
 * `/proc/<pid>/task/<pid>/stat`, 10 ms ticks). CPU per request depends far less on the machine's load
 * than requests per second, so this is the figure to compare two versions with on a shared machine.
 *
 * The other threads are the usage-writer thread (appends and projects usage events) and V8's helper
 * threads (garbage collection, compilation), charged to the edge because they work for it.
 *
 *   node --import tsx bench/edge-cpu.bench.ts [--seconds 4] [--pairs 3] [--rate N] [--writer-nice 0-19]
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { loadRun, startEdgeBenchServers, type LoadFigures } from './edge-harness.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '4' }, pairs: { type: 'string', default: '3' }, rate: { type: 'string' }, 'writer-nice': { type: 'string' } } });
// A fixed offered rate (`--rate N`, requests/s in all) compares both servers at the same load, so the
// per-request share of work done per unit of time (timers, polls, per-batch costs) is the same.
const rate = values.rate ? Number(values.rate) : undefined;
const s = await startEdgeBenchServers(values['writer-nice'] === undefined ? {} : { USAGE_WRITER_NICE: Number(values['writer-nice']) });

await loadRun(s.bareUrl, { seconds: 2 });
await loadRun(s.edgeUrl, { seconds: 2, headers: s.auth });
const loadStart = loadavg().map((x) => x.toFixed(2)).join(', ');
const seconds = Number(values.seconds);
const fmt = (f: LoadFigures) => `${f.rps.toFixed(0)} req/s, ${f.cpuUs.toFixed(0)} us CPU/req (main thread ${f.mainUs.toFixed(0)} us)`;
for (let i = 0; i < Number(values.pairs); i++) {
  const b = await loadRun(s.bareUrl, { seconds, rate });
  const e = await loadRun(s.edgeUrl, { seconds, rate, headers: s.auth });
  console.log(
    `pair ${i + 1}: bare ${fmt(b)} | edge ${fmt(e)} | CPU ratio bare/edge: main thread ${((100 * b.mainUs) / e.mainUs).toFixed(1)}%, whole process ${((100 * b.cpuUs) / e.cpuUs).toFixed(1)}%`,
  );
}
console.log(`load average ${loadStart} -> ${loadavg().map((x) => x.toFixed(2)).join(', ')} (1, 5, 15 min; ${cpus().length} cores)`);
await s.close();
