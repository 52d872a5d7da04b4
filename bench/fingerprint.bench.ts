/**
 * Fingerprint benchmarks (figures for docs/fingerprint.md; speed targets of issue 16):
 * 1. Extraction time per 500 ppi print (decode excluded): extractor + cylinders (`buildCylindersFast`, as
 *    enrollment and the gallery build them), one core, FVC2002 DB1_B, CPU time of the process (V8's
 *    compiler and GC threads included). The first prints of a fresh process run before V8 has optimised the
 *    extractor (JIT warm-up): the first three are printed apart, with p50/p95 of the other 77.
 * 2. 1:1 comparisons per second with templates precomputed (every pair of 40 DB1_B templates, repeated),
 *    with the WebAssembly local similarities (mcc-wasm.ts) and with the JavaScript path, in the same run;
 *    then the API's path (the default options fused with the orientation fields, field.ts) against the
 *    default options alone, interleaved.
 * 3. 1:N search in one tenant's gallery at several sizes (default 1,000, 10,000, 100,000): the synthetic
 *    gallery of bench/fingerprint-gallery.ts (40 mates, the rest background fingers, regenerated from
 *    `--seed` and cached under /tmp), the candidate index of domain/fingerprint/index-lsh.ts, and the
 *    same candidate selection and full matching as the search use case. Probes: impressions 2-8 of the
 *    40 fingers (280; `--probes` takes fewer). Printed per size: gallery build time (cylinders, index),
 *    memory (RSS, V8 heap, array buffers; bytes per template), search wall and CPU p50/p95/p99, the
 *    ratio of CPU p50 to the smallest size's, rank-1 identification of the mate, the hit rate of the
 *    candidate list (mate among the candidates) and the hit rate against penetration of the vote ranking;
 *    and the search CPU p50/p95 with the JavaScript local similarities (each probe searched both ways).
 * Prints the load average beside the figures: the machine is shared.
 * Memory is read after a garbage collection when node runs with --expose-gc (the npm script does); RSS
 * includes the whole 100,000-template gallery and the probes whatever size is being measured.
 * Usage: npm run bench:fingerprint [-- --sizes 1000,10000,100000 --seed 1 --probes 280 --skip-1to1]
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';
import { decodeFingerprint } from '../models/fingerprint/image.ts';
import { extractMinutiae, type ExtractionDebug } from '../domain/fingerprint/extract.ts';
import { BUILD_DEFAULTS, MATCH_DEFAULTS, buildCylinders, matchCylinders, useWasmLocalSimilarity, CW, type CylinderSet } from '../domain/fingerprint/mcc.ts';
import { buildCylindersFast } from '../domain/fingerprint/cylinders-fast.ts';
import type { FingerprintTemplate } from '../domain/fingerprint/template.ts';
import { decodeField, encodeFieldFromBlocks, matchTemplates, type OrientationField } from '../domain/fingerprint/field.ts';
import { CandidateIndex, candidateCount } from '../domain/fingerprint/index-lsh.ts';
import { EXHAUSTIVE_BELOW } from '../domain/fingerprint/use-cases.ts';
import { FVC_ROOT, loadGallery, loadSources } from './fingerprint-gallery.ts';

const load = () => os.loadavg().map((v) => v.toFixed(1)).join(' ');
const pct = (a: number[], p: number) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(p * a.length))]!;
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;

function arg(name: string, def: string): string {
  const a = process.argv.slice(2);
  const i = a.indexOf(`--${name}`);
  return i >= 0 && a[i + 1] !== undefined ? a[i + 1]! : def;
}

async function extractionAndOneToOne(): Promise<void> {
  const times: number[] = [];
  const tpl: FingerprintTemplate[] = [];
  const fields: OrientationField[] = [];
  for (let f = 101; f <= 110; f++) for (let i = 1; i <= 8; i++) {
    const img = await decodeFingerprint(new Uint8Array(readFileSync(join(FVC_ROOT, 'DB1_B', `${f}_${i}.tif`))), 500);
    const c0 = process.cpuUsage();
    const dbg: ExtractionDebug = {};
    const { template } = extractMinutiae(img, dbg);
    buildCylindersFast(template);
    times.push(cpuMs(process.cpuUsage(c0)));
    if (i <= 4) { tpl.push(template); fields.push(decodeField(encodeFieldFromBlocks(dbg.bw!, Math.ceil(img.height / 8), dbg.mask!, dbg.coh!, dbg.vcos!, dbg.vsin!))); }
  }
  const warm = times.slice(3);
  console.log(`extraction (DB1_B, 80 prints, extractor + cylinders, CPU time of the process): p50 ${pct(times, 0.5).toFixed(1)} ms, p95 ${pct(times, 0.95).toFixed(1)} ms; first 3 prints (JIT warm-up) ${times.slice(0, 3).map((t) => t.toFixed(0)).join(' / ')} ms, the other 77: p50 ${pct(warm, 0.5).toFixed(1)} ms, p95 ${pct(warm, 0.95).toFixed(1)} ms, max ${Math.max(...warm).toFixed(1)} ms  [load ${load()}]`);
  // 1:1 for 3 s of CPU time per path (wall time is several times longer on the shared machine), after a
  // warm-up pass; with the default options and with the paper's (LSS-R, δθ = π/2, no reversible directions).
  // The cylinders are the same for both (BUILD_DEFAULTS are the paper's); only the matching differs.
  const paperMatch = { selection: 'lss', reversible: false, deltaTheta: Math.PI / 2 } as const;
  const cyl: CylinderSet[] = tpl.map((t) => buildCylinders(t, BUILD_DEFAULTS));
  // Each option set with the local similarities from the WebAssembly kernel and from the JavaScript path
  // (mcc.ts useWasmLocalSimilarity; identical scores), in alternating rounds of 0.5 s of CPU.
  for (const [label, mo] of [['default options', MATCH_DEFAULTS], ["paper's LSS-R", paperMatch]] as const) {
    const pass = () => { for (let a = 0; a < cyl.length; a++) for (let b = a + 1; b < cyl.length; b++) matchCylinders(cyl[a]!, cyl[b]!, mo); return (cyl.length * (cyl.length - 1)) / 2; };
    const done = { wasm: 0, js: 0 }, cpu = { wasm: 0, js: 0 };
    const t1 = performance.now();
    for (let round = 0; round < 12; round++) {
      const path = round % 2 === 0 ? 'wasm' : 'js';
      useWasmLocalSimilarity(path === 'wasm');
      pass();
      const c1 = process.cpuUsage();
      while (cpuMs(process.cpuUsage(c1)) < 500) done[path] += pass();
      cpu[path] += cpuMs(process.cpuUsage(c1)) / 1000;
    }
    useWasmLocalSimilarity(true);
    const rate = (p: 'wasm' | 'js') => Math.round(done[p] / cpu[p]);
    console.log(`1:1 (${label}): ${rate('wasm')} comparisons per CPU second (${done.wasm} in ${cpu.wasm.toFixed(2)} CPU s); with the JavaScript local similarities ${rate('js')} (${done.js} in ${cpu.js.toFixed(2)} CPU s): ×${(rate('wasm') / rate('js')).toFixed(2)}; wall ${((performance.now() - t1) / 1000).toFixed(1)} s for both  [load ${load()}]`);
  }
  // What the API runs (use-cases.ts): the default options fused with the orientation fields (field.ts),
  // against the default options alone, in alternating rounds of 0.5 s of CPU.
  {
    const passes = {
      fused: () => { for (let a = 0; a < cyl.length; a++) for (let b = a + 1; b < cyl.length; b++) matchTemplates(cyl[a]!, cyl[b]!, fields[a], fields[b]); return (cyl.length * (cyl.length - 1)) / 2; },
      minutiae: () => { for (let a = 0; a < cyl.length; a++) for (let b = a + 1; b < cyl.length; b++) matchCylinders(cyl[a]!, cyl[b]!); return (cyl.length * (cyl.length - 1)) / 2; },
    };
    const done = { fused: 0, minutiae: 0 }, cpu = { fused: 0, minutiae: 0 };
    for (let round = 0; round < 12; round++) {
      const k = round % 2 === 0 ? 'fused' : 'minutiae';
      passes[k]();
      const c1 = process.cpuUsage();
      while (cpuMs(process.cpuUsage(c1)) < 500) done[k] += passes[k]();
      cpu[k] += cpuMs(process.cpuUsage(c1)) / 1000;
    }
    const rate = (k: 'fused' | 'minutiae') => Math.round(done[k] / cpu[k]);
    console.log(`1:1 (default options + orientation field, the API's path): ${rate('fused')} comparisons per CPU second; minutiae alone ${rate('minutiae')} in the same run: ×${(rate('fused') / rate('minutiae')).toFixed(3)}  [load ${load()}]`);
  }
}

async function main(): Promise<void> {
  if (!existsSync(FVC_ROOT)) { console.log(`skipped: ${FVC_ROOT} is absent`); return; }
  const sizes = arg('sizes', '1000,10000,100000').split(',').map(Number).sort((a, b) => a - b);
  const seed = Number(arg('seed', '1'));
  const maxProbes = Number(arg('probes', '280'));
  if (!process.argv.includes('--skip-1to1')) await extractionAndOneToOne();

  const src = await loadSources();
  const N = sizes[sizes.length - 1]!;
  const tg = performance.now();
  const cg = process.cpuUsage();
  const { sets, cached } = loadGallery(src, seed, N, (d) => console.log(`  gallery: ${d} templates built (${((performance.now() - tg) / 1000).toFixed(0)} s)  [load ${load()}]`));
  console.log(`gallery of ${N} (seed ${seed}) ${cached ? 'read from the /tmp cache' : 'built (fast cylinders)'} in ${((performance.now() - tg) / 1000).toFixed(1)} s wall, ${(cpuMs(process.cpuUsage(cg)) / 1000).toFixed(1)} s CPU (${(cpuMs(process.cpuUsage(cg)) / N).toFixed(2)} ms CPU per template)  [load ${load()}]`);
  const probes: Array<{ finger: number; set: CylinderSet }> = [];
  for (let i = 1; i < 8; i++) for (let f = 0; f < 40; f++) if (probes.length < maxProbes) probes.push({ finger: f, set: buildCylinders(src.templates[f * 8 + i]!) });

  let baseP50 = 0;
  const gc = (globalThis as { gc?: () => void }).gc;
  for (const n of sizes) {
    const gallery = sets.slice(0, n);
    gc?.();
    const index = new CandidateIndex();
    const ti = performance.now();
    const ci = process.cpuUsage();
    gallery.forEach((s, g) => index.add(`g${g}`, s));
    const indexCpu = cpuMs(process.cpuUsage(ci));
    const indexWall = performance.now() - ti;
    gc?.();
    const mem = process.memoryUsage();
    const st = index.stats();
    let cylBytes = 0;
    for (const s of gallery) cylBytes += s.n * (CW + CW / 6 + 3) * 4;
    console.log(`\n1:N, gallery ${n}: index built in ${(indexWall / 1000).toFixed(1)} s wall, ${(indexCpu / 1000).toFixed(1)} s CPU (${(indexCpu / n).toFixed(2)} ms per template); ${st.postings} postings, table 2^${st.tableBits} per band  [load ${load()}]`);
    console.log(`  memory: RSS ${mb(mem.rss)}, V8 heap ${mb(mem.heapUsed)}, array buffers ${mb(mem.arrayBuffers)}; per template: cylinders ${Math.round(cylBytes / n)} B, index ${Math.round((st.tableBytes + st.poolBytes) / n)} B allocated, ${Math.round((st.tableBytes + st.poolUsedBytes) / n)} B used (tables ${mb(st.tableBytes)}, postings pool ${mb(st.poolBytes)}, ${mb(st.poolUsedBytes)} of it used)`);
    const k = n < EXHAUSTIVE_BELOW ? n : candidateCount(n);
    const wall: number[] = [], cpu: number[] = [], voteCpu: number[] = [];
    let rank1 = 0, hit = 0;
    const ranks: number[] = [];
    const jsCpu: number[] = [];
    for (const [q, p] of probes.entries()) {
      // The same search with the JavaScript local similarities, for the ratio (same candidates, same
      // scores), before the measured one for even probes and after it for odd ones (warm caches).
      const jsSearch = () => {
        useWasmLocalSimilarity(false);
        const cj = process.cpuUsage();
        const jsIds = n < EXHAUSTIVE_BELOW ? gallery.map((_, g) => `g${g}`) : index.candidates(p.set, k);
        for (const id of jsIds) matchCylinders(p.set, gallery[Number(id.slice(1))]!);
        jsCpu.push(cpuMs(process.cpuUsage(cj)));
        useWasmLocalSimilarity(true);
      };
      if (q % 2 === 0) jsSearch();
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const ids = n < EXHAUSTIVE_BELOW ? gallery.map((_, g) => `g${g}`) : index.candidates(p.set, k);
      voteCpu.push(cpuMs(process.cpuUsage(c0)));
      let best = -1, bestId = '';
      for (const id of ids) {
        const sc = matchCylinders(p.set, gallery[Number(id.slice(1))]!);
        if (sc > best) { best = sc; bestId = id; }
      }
      cpu.push(cpuMs(process.cpuUsage(c0)));
      wall.push(performance.now() - t0);
      if (q % 2 === 1) jsSearch();
      if (bestId === `g${p.finger}`) rank1++;
      if (ids.includes(`g${p.finger}`)) hit++;
      const r = index.candidates(p.set, n).indexOf(`g${p.finger}`);
      ranks.push(r < 0 ? Infinity : r + 1);
    }
    const p50 = pct(cpu, 0.5);
    if (!baseP50) baseP50 = p50;
    const hitAt = (pen: number) => `${(100 * ranks.filter((r) => r <= Math.max(1, Math.round(pen * n))).length / ranks.length).toFixed(1)}%`;
    console.log(`  search (${probes.length} probes, ${k} candidates = penetration ${(100 * k / n).toFixed(2)}%${n < EXHAUSTIVE_BELOW ? ', exhaustive' : ''}): wall p50 ${pct(wall, 0.5).toFixed(0)} / p95 ${pct(wall, 0.95).toFixed(0)} / p99 ${pct(wall, 0.99).toFixed(0)} ms; CPU p50 ${p50.toFixed(1)} / p95 ${pct(cpu, 0.95).toFixed(1)} / p99 ${pct(cpu, 0.99).toFixed(1)} ms; CPU p50 ×${(p50 / baseP50).toFixed(2)} for a gallery ×${n / sizes[0]!}; of which candidate selection CPU p50 ${pct(voteCpu, 0.5).toFixed(1)} / p95 ${pct(voteCpu, 0.95).toFixed(1)} ms  [load ${load()}]`);
    console.log(`  with the JavaScript local similarities: CPU p50 ${pct(jsCpu, 0.5).toFixed(1)} / p95 ${pct(jsCpu, 0.95).toFixed(1)} ms (p50 ×${(pct(jsCpu, 0.5) / p50).toFixed(2)} the kernel's)`);
    console.log(`  rank-1 identification ${rank1}/${probes.length} (${(100 * rank1 / probes.length).toFixed(1)}%); mate among the candidates ${hit}/${probes.length} (${(100 * hit / probes.length).toFixed(1)}%)`);
    console.log(`  index alone, hit rate at penetration: 0.1% ${hitAt(0.001)}, 0.5% ${hitAt(0.005)}, 1% ${hitAt(0.01)}, 2% ${hitAt(0.02)}, 5% ${hitAt(0.05)}, 10% ${hitAt(0.1)}, 20% ${hitAt(0.2)}, voted at all ${hitAt(1)}`);
  }
}

await main();
