/**
 * WSQ decoding time on the SourceAFIS sample (832x768, 500 ppi): wall and CPU time per decode, p50/p95
 * over 30 runs after 3 warm-up runs, with the load average (the machine is shared).
 * Run: `node --import tsx bench/fingerprint-wsq.bench.ts`. Skips with a printed reason when the sample is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeWsq } from '../models/fingerprint/wsq.ts';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/data/fingerprint/sourceafis-samples/wsq-original.wsq');
if (!existsSync(file)) {
  console.log(`skipped: ${file} is absent`);
} else {
  const bytes = new Uint8Array(readFileSync(file));
  for (let i = 0; i < 3; i++) decodeWsq(bytes);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    decodeWsq(bytes);
    const c = process.cpuUsage(c0);
    wall.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
  }
  const pct = (a: number[], p: number) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(p * a.length))]!;
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`WSQ decode 832x768: wall p50 ${pct(wall, 0.5).toFixed(1)} ms p95 ${pct(wall, 0.95).toFixed(1)} ms; CPU p50 ${pct(cpu, 0.5).toFixed(1)} ms p95 ${pct(cpu, 0.95).toFixed(1)} ms`);
}
