/**
 * Fingerprint benchmarks (figures for docs/fingerprint.md; speed targets of issue 16):
 * 1. Extraction time per 500 ppi print (decode excluded): extractor + cylinders, one core, FVC2002 DB1_B.
 * 2. 1:1 comparisons per second with templates precomputed (every pair of 40 DB1_B templates, repeated).
 * 3. 1:N search over N templates in one tenant's gallery (default 100,000; `--n 20000`): the gallery is
 *    made of the 320 FVC templates under random rotations, translations, 3 px jitter and 15% minutiae
 *    dropped (so every gallery template is distinct); candidate index (MinHash LSH) then full matching of
 *    the 200 best-voted; p50/p95 per probe.
 * Prints the load average beside the figures: the machine is shared.
 * Usage: npm run bench:fingerprint [-- --n 100000]
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';
import { decodeFingerprint } from '../models/fingerprint/image.ts';
import { extractMinutiae } from '../domain/fingerprint/extract.ts';
import { BUILD_DEFAULTS, MATCH_DEFAULTS, buildCylinders, matchCylinders, type CylinderSet } from '../domain/fingerprint/mcc.ts';
import { CandidateIndex } from '../domain/fingerprint/index-lsh.ts';
import { SEARCH_CANDIDATES } from '../domain/fingerprint/use-cases.ts';
import type { FingerprintTemplate } from '../domain/fingerprint/template.ts';

const root = new URL('../../shared/data/fingerprint/fvc2002/', import.meta.url).pathname;
const PPI: Record<string, number> = { DB1_B: 500, DB2_B: 569, DB3_B: 500, DB4_B: 500 };
const load = () => os.loadavg().map((v) => v.toFixed(1)).join(' ');
const pct = (a: number[], p: number) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(p * a.length))]!;

async function main(): Promise<void> {
  if (!existsSync(root)) { console.log(`skipped: ${root} is absent`); return; }
  const args = process.argv.slice(2);
  const N = args.includes('--n') ? Number(args[args.indexOf('--n') + 1]) : 100_000;
  const templates: FingerprintTemplate[] = [];
  const names: string[] = [];
  const times: number[] = [];
  for (const db of ['DB1_B', 'DB2_B', 'DB3_B', 'DB4_B']) {
    for (let f = 101; f <= 110; f++) for (let i = 1; i <= 8; i++) {
      const img = await decodeFingerprint(new Uint8Array(readFileSync(join(root, db, `${f}_${i}.tif`))), PPI[db]);
      const c0 = process.cpuUsage();
      const { template } = extractMinutiae(img);
      buildCylinders(template);
      const c = process.cpuUsage(c0);
      if (db === 'DB1_B') times.push((c.user + c.system) / 1000);
      templates.push(template);
      names.push(`${db}/${f}_${i}`);
    }
  }
  console.log(`extraction (DB1_B, 80 prints, extractor + cylinders, CPU time of this thread): p50 ${pct(times, 0.5).toFixed(1)} ms, p95 ${pct(times, 0.95).toFixed(1)} ms  [load ${load()}]`);

  // 1:1 for 3 s of CPU time (wall time is several times longer on the shared machine), after a warm-up
  // pass; with the default options and with the paper's (LSS-R, δθ = π/2, no reversible directions).
  const paperBuild = { reversedNeighbourWeight: 0 };
  const paperMatch = { selection: 'lss', reversible: false, deltaTheta: Math.PI / 2 } as const;
  for (const [label, bo, mo] of [['default options', BUILD_DEFAULTS, MATCH_DEFAULTS], ["paper's LSS-R", paperBuild, paperMatch]] as const) {
    const cyl = templates.slice(0, 40).map((t) => buildCylinders(t, bo));
    const pass = () => { for (let a = 0; a < cyl.length; a++) for (let b = a + 1; b < cyl.length; b++) matchCylinders(cyl[a]!, cyl[b]!, mo); return (cyl.length * (cyl.length - 1)) / 2; };
    pass();
    let n = 0;
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    const cpu = () => { const c = process.cpuUsage(c1); return (c.user + c.system) / 1e6; };
    while (cpu() < 3) n += pass();
    const cpuS = cpu();
    console.log(`1:1 (${label}): ${Math.round(n / cpuS)} comparisons per CPU second (${n} in ${cpuS.toFixed(2)} CPU s; wall ${((performance.now() - t1) / 1000).toFixed(1)} s)  [load ${load()}]`);
  }

  // 1:N gallery.
  let seed = 12345;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const index = new CandidateIndex();
  const gallery = new Map<string, CylinderSet>();
  const tb = performance.now();
  for (let g = 0; g < N; g++) {
    const src = templates[g % templates.length]!;
    const a = (rnd() - 0.5) * 0.6, tx = (rnd() - 0.5) * 60, ty = (rnd() - 0.5) * 60;
    const c = Math.cos(a), s = Math.sin(a);
    const ms = src.minutiae.filter(() => rnd() > 0.15).map((m) => ({ ...m, x: c * m.x + s * m.y + tx + (rnd() - 0.5) * 6, y: -s * m.x + c * m.y + ty + (rnd() - 0.5) * 6, angle: m.angle + a }));
    const set = buildCylinders({ minutiae: ms });
    const id = `g${g}`;
    gallery.set(id, set);
    index.add(id, set);
    if (g > 0 && g % 20000 === 0) console.log(`  gallery ${g} built (${((performance.now() - tb) / 1000).toFixed(0)} s)`);
  }
  console.log(`gallery of ${N} templates built in ${((performance.now() - tb) / 1000).toFixed(1)} s, heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB  [load ${load()}]`);
  const qt: number[] = [];
  const qcpu: number[] = [];
  let hits = 0;
  const probes = 40;
  for (let q = 0; q < probes; q++) {
    // Probe: impression 2 of finger q; its gallery relatives are the transformed copies of impression 1.
    const k = (q % 40) * 8 + 1;
    const probe = buildCylinders(templates[k]!);
    const t0 = performance.now();
    const q0 = process.cpuUsage();
    const cands = index.candidates(probe, SEARCH_CANDIDATES);
    let best = -1, bestId = '';
    for (const id of cands) { const sc = matchCylinders(probe, gallery.get(id)!); if (sc > best) { best = sc; bestId = id; } }
    qt.push(performance.now() - t0);
    const qc = process.cpuUsage(q0);
    qcpu.push((qc.user + qc.system) / 1000);
    const g = Number(bestId.slice(1)) % templates.length;
    if (names[g]!.split('_')[0] === names[k]!.split('_')[0]) hits++;
  }
  console.log(`1:N over ${N}: wall p50 ${pct(qt, 0.5).toFixed(0)} ms, p95 ${pct(qt, 0.95).toFixed(0)} ms; CPU p50 ${pct(qcpu, 0.5).toFixed(0)} ms, p95 ${pct(qcpu, 0.95).toFixed(0)} ms per probe; rank-1 same finger ${hits}/${probes}  [load ${load()}]`);
}

await main();
