/**
 * The MCC matcher's global stage (mcc.ts `globalScore`: pair selection, relaxation, efficiency top-nP,
 * geometric verification) against its frozen reference (test/helpers/mcc-global-reference.ts, the code
 * before the speed-up), for docs/fingerprint.md: the local similarities of every pair of 40 FVC2002 DB1_B
 * templates (impressions 1-4 of fingers 101-110; our extractor's, or the ISO templates beside the images
 * with `--iso`) are computed once, then the two global stages run on them in alternating rounds of
 * 0.5 s of CPU each (12 rounds, one process), and the local similarities alone likewise, so the ratio of
 * whole comparisons follows. Checks on the way that every score is identical (===). With the default
 * options and the paper's (LSS-R, δθ = π/2, no verification). Prints the load average: the machine is shared.
 * Usage: npm run bench:fingerprint-global [-- --iso --rounds 12]
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';
import { decodeFingerprint } from '../models/fingerprint/image.ts';
import { extractMinutiae } from '../domain/fingerprint/extract.ts';
import { parseIsoTemplate } from '../domain/fingerprint/iso.ts';
import { MATCH_DEFAULTS, buildCylinders, globalScore, localPairs, type CylinderSet, type LocalPairs, type MatchOptions } from '../domain/fingerprint/mcc.ts';
import { referenceGlobalScore } from '../test/helpers/mcc-global-reference.ts';
import { FVC_ROOT } from './fingerprint-gallery.ts';

const load = () => os.loadavg().map((v) => v.toFixed(1)).join(' ');
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const argv = process.argv.slice(2);
const rounds = Number(argv[argv.indexOf('--rounds') + 1] ?? 12) || 12;

async function main(): Promise<void> {
  if (!existsSync(FVC_ROOT)) { console.log(`skipped: ${FVC_ROOT} is absent`); return; }
  const iso = argv.includes('--iso');
  const cyl: CylinderSet[] = [];
  for (let f = 101; f <= 110; f++) for (let i = 1; i <= 4; i++) {
    const file = join(FVC_ROOT, 'DB1_B', `${f}_${i}.${iso ? 'iso' : 'tif'}`);
    const t = iso ? parseIsoTemplate(new Uint8Array(readFileSync(file))).template : extractMinutiae(await decodeFingerprint(new Uint8Array(readFileSync(file)), 500)).template;
    cyl.push(buildCylinders(t));
  }
  const paperMatch = { selection: 'lss', reversible: false, deltaTheta: Math.PI / 2 } as const;
  for (const [label, mo] of [['default options', MATCH_DEFAULTS], ["paper's LSS-R", paperMatch]] as const) {
    const pairs: Array<[CylinderSet, CylinderSet, LocalPairs]> = [];
    for (let a = 0; a < cyl.length; a++) for (let b = a + 1; b < cyl.length; b++) pairs.push([cyl[a]!, cyl[b]!, localPairs(cyl[a]!, cyl[b]!, mo)]);
    let differ = 0;
    for (const [A, B, p] of pairs) if (globalScore(A, B, p, mo) !== referenceGlobalScore(A, B, p, mo)) differ++;
    const stages: Record<'reference' | 'new' | 'local', (A: CylinderSet, B: CylinderSet, p: LocalPairs, o: Readonly<MatchOptions>) => unknown> = {
      reference: referenceGlobalScore,
      new: globalScore,
      local: (A, B, _p, o) => localPairs(A, B, o),
    };
    const done = { reference: 0, new: 0, local: 0 }, cpu = { reference: 0, new: 0, local: 0 };
    const names = Object.keys(stages) as Array<keyof typeof stages>;
    for (let round = 0; round < rounds * 3; round++) {
      const name = names[round % 3]!;
      const run = stages[name];
      for (const [A, B, p] of pairs) run(A, B, p, mo); // warm-up pass
      const c1 = process.cpuUsage();
      while (cpuMs(process.cpuUsage(c1)) < 500) { for (const [A, B, p] of pairs) run(A, B, p, mo); done[name] += pairs.length; }
      cpu[name] += cpuMs(process.cpuUsage(c1)) / 1000;
    }
    const us = (n: keyof typeof stages) => (1e6 * cpu[n]) / done[n];
    const whole = (us('reference') + us('local')) / (us('new') + us('local'));
    console.log(`${label}, ${iso ? 'ISO' : 'our extractor\'s'} templates, ${pairs.length} pairs (${differ} scores differ): global stage ${us('reference').toFixed(1)} µs (reference) → ${us('new').toFixed(1)} µs per comparison, ×${(us('reference') / us('new')).toFixed(2)}; local similarities ${us('local').toFixed(1)} µs (copy included); whole comparison ×${whole.toFixed(2)}  [load ${load()}]`);
  }
}

await main();
