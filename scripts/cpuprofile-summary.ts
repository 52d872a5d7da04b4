/**
 * Self time per function of V8 CPU profiles (`.cpuprofile` files written by `node --cpu-prof`): for
 * each file, the total sampled time and the top functions by self time (ms and share), with their
 * source file and line; `--window FROM,TO` keeps the samples taken between two CLOCK_MONOTONIC
 * microsecond readings (`process.hrtime.bigint() / 1000n`, V8's sample clock on Linux); `--top N` (default 30), `--by file` to sum per source file instead.
 *
 *   node --import tsx scripts/cpuprofile-summary.ts [--window FROM,TO] [--top 30] [--by file] FILE.cpuprofile...
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { window: { type: 'string' }, top: { type: 'string', default: '30' }, by: { type: 'string', default: 'function' } } });
const [from = -Infinity, to = Infinity] = values.window ? values.window.split(',').map(Number) : [];
for (const file of positionals) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  let at = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0; // us since the previous sample: charged to this sample's frame
    at += dt;
    if (at < from || at > to) continue;
    const n = byId.get(p.samples[i]!)!;
    const f = n.callFrame;
    const where = f.url.replace(/^.*\/(node_modules\/)/, '$1').replace(/^file:\/\/.*\/wt\/[^/]+\//, '');
    const key = values.by === 'file' ? where || '(native)' : `${f.functionName || '(anonymous)'}  ${where}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  }
  const idle = (self.get('(idle)  :0') ?? 0) + (self.get('(program)  :0') ?? 0);
  console.log(`\n${basename(file)}: ${(total / 1000).toFixed(0)} ms sampled, ${(idle / 1000).toFixed(0)} ms idle/program`);
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
  for (const [k, us] of rows) console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
}
