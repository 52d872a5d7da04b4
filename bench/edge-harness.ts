/**
 * What `bench/edge.bench.ts`, `bench/edge-cpu.bench.ts` and `bench/edge-profile.ts` share: the two
 * servers they compare (a bare Fastify route and the full edge, both answering
 * `GET /v1/credits/balance`), and one autocannon run in a child process (so the load generator's own CPU
 * is charged to neither server) with the CPU this process spent on it per response.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { startTestServer, type TestServer, type TestServerOptions } from '../test/helpers/server.ts';

const autocannonBin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const run = promisify(execFile);

/**
 * CPU ticks of this process's main (HTTP) thread: utime + stime of `/proc/<pid>/task/<pid>/stat`, in
 * clock ticks (10 ms on Linux); NaN off Linux.
 */
export function mainThreadTicks(): number {
  try {
    const fields = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return Number.NaN;
  }
}

/** One autocannon run's figures. */
export interface LoadFigures {
  /** Mean requests per second. */
  rps: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Responses received. */
  total: number;
  /** CPU microseconds per response of this whole process (every thread: the usage-writer's and V8's helpers included). */
  cpuUs: number;
  /** CPU microseconds per response of this process's main (HTTP) thread alone (NaN off Linux). */
  mainUs: number;
}

/** Options of one {@link loadRun}. */
export interface LoadOptions {
  seconds: number;
  /** Open connections (default 50). */
  connections?: number;
  /** Request headers. */
  headers?: Record<string, string>;
  /** A fixed offered rate, requests/s in all (autocannon `-R`); default as fast as answered. */
  rate?: number;
}

/** Runs autocannon against `url` from a child process and measures this process's CPU meanwhile. */
export async function loadRun(url: string, o: LoadOptions): Promise<LoadFigures> {
  const args = [autocannonBin, '-j', '-c', String(o.connections ?? 50), '-d', String(o.seconds)];
  if (o.rate) args.push('-R', String(o.rate));
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push('-H', `${k}=${v}`);
  args.push(url);
  const t0 = mainThreadTicks();
  const c0 = process.cpuUsage();
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const c = process.cpuUsage(c0);
  const ticks = mainThreadTicks() - t0;
  const r = JSON.parse(stdout) as { requests: { average: number; total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number };
  const total = r.requests.total;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    total,
    cpuUs: (c.user + c.system) / total,
    mainUs: (ticks * 10_000) / total,
  };
}

/** The two servers under comparison, listening on loopback ports. */
export interface EdgeBenchServers {
  bare: FastifyInstance;
  /** The bare route's URL. */
  bareUrl: string;
  /** The full server (test helper: fresh DATA_DIR, embedded adapters, silent logs). */
  edge: TestServer;
  /** `GET /v1/credits/balance` on the full server. */
  edgeUrl: string;
  /** A pro tenant with its per-minute and concurrency limits lifted, and its read,write key. */
  tenantId: string;
  key: string;
  /** `{ authorization: 'Bearer <key>' }`. */
  auth: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Starts a bare Fastify answering `GET /v1/credits/balance` with a constant body, and the full server
 * with a pro tenant whose limits are lifted (so the bench measures the edge's work, not 429s);
 * `config` overrides the full server's configuration (env-style names).
 */
export async function startEdgeBenchServers(config: TestServerOptions['config'] = {}): Promise<EdgeBenchServers> {
  const bare = Fastify({ logger: false });
  bare.get('/v1/credits/balance', async () => ({ success: true, data: { available_credits: 100 } }));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/v1/credits/balance`;
  const edge = await startTestServer({ config });
  const { tenantId, key } = await edge.tenantWithKey('pro');
  await edge.setLimits(tenantId, null, null);
  return {
    bare,
    bareUrl,
    edge,
    edgeUrl: `${edge.url}/v1/credits/balance`,
    tenantId,
    key,
    auth: { authorization: `Bearer ${key}` },
    async close() {
      await bare.close();
      await edge.close();
    },
  };
}
