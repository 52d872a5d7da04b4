/**
 * Load for a CPU profile of the edge (issue 18): starts the full server like `bench:edge` and drives
 * `GET /v1/credits/balance` with autocannon from a child process for `--seconds` (default 8), then
 * stops. Run it under `--cpu-prof` (every thread writes its own profile) and summarise the profiles'
 * self time per function with `scripts/cpuprofile-summary.ts`:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/edge-prof --import tsx bench/edge-profile.ts [--seconds 8] [--bare]
 *   node --import tsx scripts/cpuprofile-summary.ts --window FROM,TO /tmp/edge-prof/*.cpuprofile
 *
 * (FROM,TO: the `window_us` line it prints, so start-up and warm-up are left out.)
 * `--bare` profiles the bare Fastify route instead, for comparison.
 */
import { parseArgs } from 'node:util';
import { loadRun, startEdgeBenchServers } from './edge-harness.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '8' }, bare: { type: 'boolean', default: false } } });
const s = await startEdgeBenchServers();
const [url, headers] = values.bare ? [s.bareUrl, {}] : [s.edgeUrl, s.auth];
await loadRun(url, { seconds: 3, headers }); // warm-up: JIT, caches
// The measured window on the profiles' clock (CLOCK_MONOTONIC microseconds, as V8's sample timestamps).
const from = process.hrtime.bigint() / 1000n;
const f = await loadRun(url, { seconds: Number(values.seconds), headers });
console.log(`window_us ${from},${process.hrtime.bigint() / 1000n}`);
console.log(`${values.bare ? 'bare' : 'edge'}: ${f.rps.toFixed(0)} req/s, ${f.cpuUs.toFixed(0)} us CPU/req (main thread ${f.mainUs.toFixed(0)} us), ${f.total} responses`);
await s.close();
