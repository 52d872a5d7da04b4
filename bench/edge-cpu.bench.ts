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
 *   node --import tsx bench/edge-cpu.bench.ts [--seconds 4] [--pairs 3] [--rate N]
 */
import Fastify from 'fastify';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { parseArgs, promisify } from 'node:util';
import { startTestServer } from '../test/helpers/server.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '4' }, pairs: { type: 'string', default: '3' }, rate: { type: 'string' } } });
const autocannonBin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const run = promisify(execFile);

/** CPU ticks (10 ms) of this process's main thread, or NaN off Linux. */
function mainThreadTicks(): number {
  try {
    const fields = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return Number.NaN;
  }
}

interface Figures {
  rps: number;
  /** Whole-process CPU microseconds per response. */
  cpuUs: number;
  /** Main-thread CPU microseconds per response. */
  mainUs: number;
}

async function load(url: string, seconds: number, headers: Record<string, string> = {}): Promise<Figures> {
  const args = [autocannonBin, '-j', '-c', '50', '-d', String(seconds)];
  // A fixed offered rate (`--rate N`, requests/s in all) compares both servers at the same load, so the
  // per-request share of work done per unit of time (timers, polls, per-batch costs) is the same.
  if (values.rate) args.push('-R', values.rate);
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  const t0 = mainThreadTicks();
  const c0 = process.cpuUsage();
  const { stdout } = await run(process.execPath, args, { maxBuffer: 1 << 24 });
  const c = process.cpuUsage(c0);
  const ticks = mainThreadTicks() - t0;
  const r = JSON.parse(stdout) as { requests: { average: number; total: number } };
  return { rps: r.requests.average, cpuUs: (c.user + c.system) / r.requests.total, mainUs: (ticks * 10_000) / r.requests.total };
}

const bare = Fastify({ logger: false });
bare.get('/v1/credits/balance', async () => ({ success: true, data: { available_credits: 100 } }));
await bare.listen({ port: 0, host: '127.0.0.1' });
const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/v1/credits/balance`;
const s = await startTestServer();
const { tenantId, key } = await s.tenantWithKey('pro');
await s.setLimits(tenantId, null, null);
const auth = { authorization: `Bearer ${key}` };
const edgeUrl = `${s.url}/v1/credits/balance`;

await load(bareUrl, 2);
await load(edgeUrl, 2, auth);
const loadStart = loadavg().map((x) => x.toFixed(2)).join(', ');
const seconds = Number(values.seconds);
const fmt = (f: Figures) => `${f.rps.toFixed(0)} req/s, ${f.cpuUs.toFixed(0)} us CPU/req (main thread ${f.mainUs.toFixed(0)} us)`;
for (let i = 0; i < Number(values.pairs); i++) {
  const b = await load(bareUrl, seconds);
  const e = await load(edgeUrl, seconds, auth);
  console.log(
    `pair ${i + 1}: bare ${fmt(b)} | edge ${fmt(e)} | CPU ratio bare/edge: main thread ${((100 * b.mainUs) / e.mainUs).toFixed(1)}%, whole process ${((100 * b.cpuUs) / e.cpuUs).toFixed(1)}%`,
  );
}
console.log(`load average ${loadStart} -> ${loadavg().map((x) => x.toFixed(2)).join(', ')} (1, 5, 15 min; ${cpus().length} cores)`);
await bare.close();
await s.close();
