/**
 * Experiment (issue 16): fuse the orientation field, compared under the geometric verification's alignment,
 * with the MCC score. FVC2002 B, extended protocol (as scripts/fingerprint-eval.ts). Extraction cached in
 * /tmp/fporient/<db>.json. Usage: node --import tsx scripts/fingerprint-orient-eval.ts [--db DB1_B,...]
 */
import { readFileSync, existsSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';
import { decodeFingerprint } from '../models/fingerprint/image.ts';
import { extractMinutiae, type ExtractionDebug } from '../domain/fingerprint/extract.ts';
import { buildCylinders, matchCylinders, type CylinderSet } from '../domain/fingerprint/mcc.ts';
import type { Alignment } from '../domain/fingerprint/mcc-verify.ts';
import { errorRates } from '../domain/fingerprint/metrics.ts';
import type { Minutia } from '../domain/fingerprint/template.ts';
import { FVC_PPI, FVC_ROOT as root } from './fvc2002.ts';

interface Field { bw: number; bh: number; bs: number; mask: number[]; coh: number[]; c: number[]; s: number[] }
interface Print { minutiae: Minutia[]; field: Field }

async function load(db: string): Promise<Map<string, Print>> {
  const file = `/tmp/fporient/${db}.json`;
  if (existsSync(file)) return new Map(Object.entries(JSON.parse(readFileSync(file, 'utf8'))));
  const m: Record<string, Print> = {};
  for (let f = 101; f <= 110; f++) for (let i = 1; i <= 8; i++) {
    const name = `${f}_${i}.tif`;
    const img = await decodeFingerprint(new Uint8Array(readFileSync(join(root, db, name))), FVC_PPI[db]);
    const d: ExtractionDebug = {};
    const { template } = extractMinutiae(img, d);
    const bw = d.bw!, bh = Math.ceil(img.height / 8);
    m[name] = { minutiae: template.minutiae, field: { bw, bh, bs: 8, mask: [...d.mask!], coh: [...d.coh!].map((v) => +v.toFixed(4)), c: [...d.vcos!].map((v) => +v.toFixed(4)), s: [...d.vsin!].map((v) => +v.toFixed(4)) } };
  }
  mkdirSync('/tmp/fporient', { recursive: true });
  writeFileSync(file, JSON.stringify(m));
  return new Map(Object.entries(m));
}

/** Coarse field: blocks of `k` × 8 px; foreground when at least `minFg` sub-blocks are; doubled-angle mean weighted by coherence; angle quantised to 8 bits. */
function coarse(f: Field, k: number, minFg: number, quant: boolean): Field {
  const bw = Math.ceil(f.bw / k), bh = Math.ceil(f.bh / k);
  const mask: number[] = [], coh: number[] = [], c: number[] = [], s: number[] = [];
  for (let by = 0; by < bh; by++) for (let bx = 0; bx < bw; bx++) {
    let n = 0, sc = 0, ss = 0, sw = 0;
    for (let y = by * k; y < Math.min(f.bh, by * k + k); y++) for (let x = bx * k; x < Math.min(f.bw, bx * k + k); x++) {
      const b = y * f.bw + x;
      if (!f.mask[b]) continue;
      n++; sc += f.coh[b]! * f.c[b]!; ss += f.coh[b]! * f.s[b]!; sw += f.coh[b]!;
    }
    const fg = n >= minFg ? 1 : 0;
    let a = Math.atan2(ss, sc);
    if (quant) a = (Math.round(((a + 2 * Math.PI) % (2 * Math.PI)) / (2 * Math.PI) * 256) % 256) / 256 * 2 * Math.PI;
    mask.push(fg); coh.push(sw > 0 ? Math.hypot(sc, ss) / sw : 0); c.push(Math.cos(a)); s.push(Math.sin(a));
  }
  return { bw, bh, bs: f.bs * k, mask, coh, c, s };
}

interface OriStat { n: number; sw: number; cosw: number; cos: number; within: number; nA: number; nB: number }

/** A's foreground blocks mapped into B's frame by the alignment (y-up frame), compared with B's block there. */
function compare(A: Field, B: Field, al: Alignment, sign: number): OriStat {
  const co = al.cos, si = al.sin;
  const c2 = co * co - si * si, s2 = sign * 2 * co * si;
  let n = 0, sw = 0, cosw = 0, cs = 0, within = 0, nA = 0;
  for (let by = 0; by < A.bh; by++) for (let bx = 0; bx < A.bw; bx++) {
    const a = by * A.bw + bx;
    if (!A.mask[a]) continue;
    nA++;
    const x = (bx + 0.5) * A.bs, y = -(by + 0.5) * A.bs;
    const X = co * x - si * y + al.tx, Y = si * x + co * y + al.ty;
    const qx = Math.floor(X / B.bs), qy = Math.floor(-Y / B.bs);
    if (qx < 0 || qy < 0 || qx >= B.bw || qy >= B.bh) continue;
    const b = qy * B.bw + qx;
    if (!B.mask[b]) continue;
    const ca = A.c[a]! * c2 + A.s[a]! * s2, sa = A.s[a]! * c2 - A.c[a]! * s2;
    const d = ca * B.c[b]! + sa * B.s[b]!; // cos 2Δθ
    const w = A.coh[a]! * B.coh[b]!;
    n++; sw += w; cosw += w * d; cs += d; if (d > Math.cos(2 * Math.PI / 8)) within++;
  }
  let nB = 0;
  for (let b = 0; b < B.mask.length; b++) nB += B.mask[b]!;
  return { n, sw, cosw, cos: cs, within, nA, nB };
}

/** The best weighted mean cos 2Δθ over small rotations (about A's foreground centroid, mapped) and shifts of the alignment. */
function compareRefined(A: Field, B: Field, al: Alignment, rots: number[], shifts: number[]): OriStat {
  let cx = 0, cy = 0, n = 0;
  for (let by = 0; by < A.bh; by++) for (let bx = 0; bx < A.bw; bx++) if (A.mask[by * A.bw + bx]) { cx += (bx + 0.5) * A.bs; cy -= (by + 0.5) * A.bs; n++; }
  cx /= n || 1; cy /= n || 1;
  const px = al.cos * cx - al.sin * cy + al.tx, py = al.sin * cx + al.cos * cy + al.ty;
  let best: OriStat | null = null;
  for (const r of rots) {
    const c = Math.cos(r), s = Math.sin(r);
    const co = c * al.cos - s * al.sin, si = s * al.cos + c * al.sin;
    // Rotation by r about the mapped centroid (px, py): T' = R_r(T − p) + p.
    const tx0 = c * (al.tx - px) - s * (al.ty - py) + px, ty0 = s * (al.tx - px) + c * (al.ty - py) + py;
    for (const dx of shifts) for (const dy of shifts) {
      const st = compare(A, B, { cos: co, sin: si, tx: tx0 + dx, ty: ty0 + dy, paired: al.paired }, 1);
      if (!best || (st.sw > 0 && st.cosw / st.sw > best.cosw / (best.sw || 1))) best = st;
    }
  }
  return best!;
}

const args = process.argv.slice(2);
const only = args.includes('--db') ? args[args.indexOf('--db') + 1]!.split(',') : ['DB1_B', 'DB2_B', 'DB3_B', 'DB4_B'];
const rows = readFileSync(join(root, 'pairs.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));

type Rec = { g: boolean; s: number; paired: number; st: Record<string, OriStat> };
const all: Record<string, Rec[]> = {};
const fieldVariants: Record<string, (f: Field) => Field> = {
  b8: (f) => f,
  b16: (f) => coarse(f, 2, 2, true),
  b16all: (f) => coarse(f, 2, 4, true),
};
for (const db of only) {
  const prints = await load(db);
  const cyl = new Map<string, CylinderSet>();
  const fields: Record<string, Map<string, Field>> = {};
  for (const k of Object.keys(fieldVariants)) fields[k] = new Map();
  for (const [k, p] of prints) {
    cyl.set(k, buildCylinders({ minutiae: p.minutiae }));
    for (const [fk, fn] of Object.entries(fieldVariants)) fields[fk]!.set(k, fn(p.field));
  }
  const recs: Rec[] = [];
  const one = (a: string, b: string, g: boolean) => {
    const al: Alignment = { cos: 1, sin: 0, tx: 0, ty: 0, paired: 0 };
    const s = matchCylinders(cyl.get(a)!, cyl.get(b)!, undefined, al);
    const st: Record<string, OriStat> = {};
    for (const fk of Object.keys(fieldVariants)) {
      st[fk] = compare(fields[fk]!.get(a)!, fields[fk]!.get(b)!, al, 1);
      if (fk === 'b16') {
        st.b16r = compareRefined(fields[fk]!.get(a)!, fields[fk]!.get(b)!, al, [-0.14, -0.07, 0, 0.07, 0.14], [0]);
        st.b16rt = compareRefined(fields[fk]!.get(a)!, fields[fk]!.get(b)!, al, [-0.1, 0, 0.1], [-8, 0, 8]);
      }
      if (fk === 'b8') st.b8neg = compare(fields[fk]!.get(a)!, fields[fk]!.get(b)!, al, -1);
    }
    recs.push({ g, s, paired: al.paired, st });
  };
  for (const r of rows) if (r[0] === `fvc2002/${db}` && r[3] === 'genuine') one(r[1]!.split('/').pop()!, r[2]!.split('/').pop()!, true);
  const keys = [...prints.keys()].sort();
  for (let a = 0; a < keys.length; a++) for (let b = a + 1; b < keys.length; b++) {
    if (keys[a]!.split('_')[0] === keys[b]!.split('_')[0]) continue;
    one(keys[a]!, keys[b]!, false);
  }
  all[db] = recs;
}
writeFileSync('/tmp/fporient/recs.json', JSON.stringify(all));

const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
for (const db of only) {
  const r = all[db]!;
  for (const fk of ['b8', 'b8neg', 'b16', 'b16all', 'b16r', 'b16rt']) {
    const sim = (x: Rec) => (x.st[fk]!.sw > 0 ? x.st[fk]!.cosw / x.st[fk]!.sw : 0);
    console.log(db, fk, 'genuine mean sim', mean(r.filter((x) => x.g).map(sim)).toFixed(3), 'impostor', mean(r.filter((x) => !x.g).map(sim)).toFixed(3),
      'overlap g', mean(r.filter((x) => x.g).map((x) => x.st[fk]!.n)).toFixed(0), 'i', mean(r.filter((x) => !x.g).map((x) => x.st[fk]!.n)).toFixed(0));
  }
}

/** A fusion: the raw score and the pair's record → fused score. */
const fusions: Record<string, (x: Rec) => number> = {
  base: (x) => x.s,
};
const simOf = (x: Rec, fk: string, minN: number): number | null => {
  const t = x.st[fk]!;
  if (t.n < minN || t.sw <= 0) return null;
  return t.cosw / t.sw;
};
for (const fk of ['b8', 'b16']) {
  for (const p of [1, 2, 4]) fusions[`${fk} s*((1+S)/2)^${p}`] = (x) => { const S = simOf(x, fk, fk === 'b8' ? 40 : 10); return S === null ? x.s : x.s * ((1 + S) / 2) ** p; };
  for (const t of [0.3, 0.5]) fusions[`${fk} s*max(0,(S-${t})/(1-${t}))`] = (x) => { const S = simOf(x, fk, fk === 'b8' ? 40 : 10); return S === null ? x.s : x.s * Math.max(0, (S - t) / (1 - t)); };
  fusions[`${fk} s*frac22`] = (x) => { const t = x.st[fk]!; return t.n < 10 ? x.s : x.s * (t.within / t.n); };
  for (const w of [0.01, 0.02]) fusions[`${fk} s+${w}*S*cover`] = (x) => { const S = simOf(x, fk, 10); if (S === null) return x.s; const t = x.st[fk]!; return x.s + w * S * t.n / Math.min(t.nA, t.nB); };
}
const dbs = only.filter((d) => d !== 'DB4_B');
for (const [name, fn] of Object.entries(fusions)) {
  const eers = only.map((db) => {
    const r = all[db]!;
    return errorRates(r.filter((x) => x.g).map(fn), r.filter((x) => !x.g).map(fn)).eer * 100;
  });
  const avg = mean(eers.filter((_, i) => only[i] !== 'DB4_B'));
  console.log(`${name.padEnd(34)} ${eers.map((e) => e.toFixed(2)).join(' / ')}  avg(${dbs.length}) ${avg.toFixed(2)}`);
}
console.log(`load ${os.loadavg().map((v) => v.toFixed(1)).join(' ')}`);
