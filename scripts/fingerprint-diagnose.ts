/**
 * Diagnosis of our minutiae extractor against the ISO/IEC 19794-2 templates beside the FVC2002 images
 * (made by another extractor, used here as a reference, not as ground truth).
 *
 * For each print: our minutiae and the ISO ones are paired one-to-one, nearest first, within 12 px
 * (about one ridge period and a half at 500 ppi). Prints precision and recall, the position error of the
 * pairs, the type confusion, the direction error by type, where the ISO minutiae we miss lie (distance to
 * our segmentation border in 8 px blocks, local orientation coherence) and whether a candidate there was
 * found and then dropped by a false-minutiae rule, and where our unpaired minutiae lie.
 *
 * Usage: node --import tsx scripts/fingerprint-diagnose.ts [--db DB1_B,DB3_B]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeFingerprint } from '../models/fingerprint/image.ts';
import { extractMinutiae, BLOCK, type ExtractionDebug } from '../domain/fingerprint/extract.ts';
import { parseIsoTemplate } from '../domain/fingerprint/iso.ts';
import { angleDiff, type Minutia } from '../domain/fingerprint/template.ts';
import { FVC_PPI, FVC_ROOT as root } from './fvc2002.ts';

const PAIR_PX = 12;

type Hist = Record<string, number>;
const bump = (h: Hist, k: string, n = 1) => { h[k] = (h[k] ?? 0) + n; };
const dirBin = (d: number) => { const a = Math.abs(d) * 180 / Math.PI; return a < 15 ? '<15' : a < 30 ? '15-30' : a < 60 ? '30-60' : a < 120 ? '60-120' : a < 165 ? '120-165' : '>=165'; };
const borderBin = (bd: number) => (bd <= 0 ? 'outside' : bd >= 5 ? '5+' : String(bd));
const cohBin = (c: number) => (c < 0.3 ? '<0.3' : c < 0.5 ? '0.3-0.5' : c < 0.7 ? '0.5-0.7' : '>=0.7');

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const dbs = args.includes('--db') ? (args[args.indexOf('--db') + 1] ?? '').split(',') : ['DB1_B', 'DB3_B'];
  for (const db of dbs) {
    let nOurs = 0, nIso = 0, nPair = 0;
    const posErr: number[] = [];
    const types: Hist = {};
    const dirs: Record<string, Hist> = { ending: {}, bifurcation: {} };
    const missAll: Record<string, Hist> = { border: {}, coh: {} };
    const missed: Record<string, Hist> = { border: {}, coh: {} };
    const missCause: Hist = {};
    const dropped: Hist = {};
    const falseAt: Record<string, Hist> = { border: {}, coh: {} };
    const oursAt: Record<string, Hist> = { border: {}, coh: {} };
    // The ISO records say 300×400 px for every image: their minutiae are in the frame of the image stretched
    // to 300×400 (measured: a per-print search over scale and shift lands on W/300 and H/400 with no shift),
    // so positions and directions are mapped back by those factors.
    for (let f = 101; f <= 110; f++) {
      for (let i = 1; i <= 8; i++) {
        const base = join(root, db, `${f}_${i}`);
        const img = await decodeFingerprint(new Uint8Array(readFileSync(`${base}.tif`)), FVC_PPI[db]);
        const dbg: ExtractionDebug = {};
        const ours = extractMinutiae(img, dbg).template.minutiae;
        const rec = parseIsoTemplate(new Uint8Array(readFileSync(`${base}.iso`))).template;
        const sx = img.width / rec.width, sy = img.height / rec.height;
        const iso = rec.minutiae.map((m) => ({ ...m, x: m.x * sx, y: m.y * sy, angle: Math.atan2(Math.sin(m.angle) * sy, Math.cos(m.angle) * sx) }));
        const at = (m: { x: number; y: number }) => {
          const b = Math.min(Math.floor(m.y / BLOCK), Math.ceil(img.height / BLOCK) - 1) * dbg.bw! + Math.min(Math.floor(m.x / BLOCK), dbg.bw! - 1);
          return { border: borderBin(dbg.mask![b] ? dbg.bdist![b]! : 0), coh: cohBin(dbg.coh![b]!) };
        };
        nOurs += ours.length;
        for (const c of dbg.cands!) if (!c.keep) bump(dropped, c.why ?? '?');
        nIso += iso.length;
        const pairs: Array<[number, number, number]> = [];
        ours.forEach((o, a) => iso.forEach((s, b) => { const d = Math.hypot(o.x - s.x, o.y - s.y); if (d <= PAIR_PX) pairs.push([d, a, b]); }));
        pairs.sort((p, q) => p[0] - q[0]);
        const usedO = new Set<number>(), usedI = new Set<number>();
        for (const [d, a, b] of pairs) {
          if (usedO.has(a) || usedI.has(b)) continue;
          usedO.add(a); usedI.add(b); nPair++;
          posErr.push(d);
          const o = ours[a] as Minutia, s = iso[b] as Minutia;
          bump(types, `${o.type}/${s.type}`);
          if (o.type === s.type && dirs[o.type]) bump(dirs[o.type]!, dirBin(angleDiff(o.angle, s.angle)));
        }
        ours.forEach((o, a) => { const w = at(o); bump(oursAt.border!, w.border); bump(oursAt.coh!, w.coh); if (!usedO.has(a)) { bump(falseAt.border!, w.border); bump(falseAt.coh!, w.coh); } });
        iso.forEach((s, b) => {
          const w = at(s);
          bump(missAll.border!, w.border); bump(missAll.coh!, w.coh);
          if (usedI.has(b)) return;
          bump(missed.border!, w.border); bump(missed.coh!, w.coh);
          const cand = dbg.cands!.filter((c) => Math.hypot(c.x - s.x, c.y - s.y) <= PAIR_PX);
          bump(missCause, cand.length === 0 ? 'no candidate' : cand.some((c) => c.keep) ? 'candidate kept, dropped later (border cut, or paired elsewhere)' : `dropped: ${[...new Set(cand.map((c) => c.why))].sort().join('+')}`);
        });
      }
    }
    posErr.sort((a, b) => a - b);
    const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(0) + '%' : '-');
    console.log(`\n== ${db}: ours ${nOurs}, ISO ${nIso}, paired ${nPair}: precision ${(nPair / nOurs).toFixed(2)}, recall ${(nPair / nIso).toFixed(2)}; position error p50 ${posErr[posErr.length >> 1]?.toFixed(1)} px, p90 ${posErr[Math.floor(posErr.length * 0.9)]?.toFixed(1)} px`);
    console.log(`types ours/ISO: ${JSON.stringify(types)}`);
    for (const t of ['ending', 'bifurcation']) console.log(`direction error, ${t} (same type): ${JSON.stringify(dirs[t])}`);
    for (const k of ['border', 'coh']) {
      const keys = Object.keys(missAll[k]!).sort();
      console.log(`ISO missed by ${k}: ${keys.map((x) => `${x} ${missed[k]![x] ?? 0}/${missAll[k]![x]} (${pct(missed[k]![x] ?? 0, missAll[k]![x]!)})`).join(', ')}`);
      const ko = Object.keys(oursAt[k]!).sort();
      console.log(`ours unpaired by ${k}: ${ko.map((x) => `${x} ${falseAt[k]![x] ?? 0}/${oursAt[k]![x]} (${pct(falseAt[k]![x] ?? 0, oursAt[k]![x]!)})`).join(', ')}`);
    }
    console.log(`ISO missed, cause: ${JSON.stringify(missCause)}`);
    console.log(`our candidates dropped, by rule: ${JSON.stringify(dropped)}`);
  }
}

await main();
