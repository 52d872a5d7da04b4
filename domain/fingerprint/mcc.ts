/**
 * Minutia Cylinder-Code matcher: R. Cappelli, M. Ferrara, D. Maltoni, "Minutia Cylinder-Code: a new
 * representation and matching technique for fingerprint recognition", IEEE TPAMI 32(12):2128-2141, 2010.
 *
 * Bit-based variant (MCC16b): each minutia gets a cylinder of NS × NS × ND = 16 × 16 × 6 cells whose bit is
 * set when the cell's contribution sum exceeds μψ; cells outside the print's convex hull (enlarged by ω)
 * or outside the radius R are invalid. Local similarity of two cylinders is
 * 1 − ‖a ⊕ b‖ / (‖a‖ + ‖b‖) over the cells valid in both (popcount of 32-bit words); the global score
 * consolidates the local similarities by Local Similarity Sort with Relaxation (LSS-R, §5 of the paper).
 *
 * Every parameter is the paper's Table 2 value for 500 ppi: R = 70, NS = 16, ND = 6, σS = 28/3, σD = 2π/9,
 * μψ = 1/100, ω = 50, minVC = 0.75, minM = 2, minME = 0.6, δθ = π/2, nrel = 5, wR = 0.5,
 * μρ1 = 5, τρ1 = −8/5, μρ2 = μρ3 = π/12, τρ2 = τρ3 = −30, minNP = 4, maxNP = 12, μP = 20, τP = 2/5.
 */
import { angleDiff, type FingerprintTemplate, type Minutia } from './template.ts';

export const MCC = {
  R: 70,
  NS: 16,
  ND: 6,
  sigmaS: 28 / 3,
  sigmaD: (2 * Math.PI) / 9,
  muPsi: 1 / 100,
  omega: 50,
  minVC: 0.75,
  minM: 2,
  minME: 0.6,
  deltaTheta: Math.PI / 2,
  nRel: 5,
  wR: 0.5,
  muRho1: 5,
  tauRho1: -8 / 5,
  muRho2: Math.PI / 12,
  tauRho2: -30,
  muRho3: Math.PI / 12,
  tauRho3: -30,
  minNP: 4,
  maxNP: 12,
  muP: 20,
  tauP: 2 / 5,
} as const;

/** 32-bit words per spatial layer (16 × 16 = 256 bits). */
const LW = 8;
/** Words per cylinder (6 layers). */
export const CW = LW * MCC.ND;

/**
 * The cylinders of one template, ready for matching. Only valid cylinders are kept; `x`, `y`, `angle`
 * are their minutiae (angle in the ISO convention, radians). `bits` holds CW words per cylinder,
 * `mask` LW words per cylinder (valid cells of one layer; the same for every layer).
 */
export interface CylinderSet {
  n: number;
  x: Float32Array;
  y: Float32Array;
  angle: Float32Array;
  bits: Uint32Array;
  mask: Uint32Array;
}

function erf(x: number): number {
  // Abramowitz and Stegun 7.1.26 (max error 1.5e-7).
  const s = x < 0 ? -1 : 1;
  const ax = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * ax);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-ax * ax);
  return s * y;
}

/** Convex hull (Andrew's monotone chain), counter-clockwise in (x, y) as given. */
function convexHull(pts: Array<[number, number]>): Array<[number, number]> {
  const p = [...pts].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (p.length < 3) return p;
  const cross = (o: [number, number], a: [number, number], b: [number, number]) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Array<[number, number]> = [];
  for (const q of p) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, q) <= 0) lower.pop();
    lower.push(q);
  }
  const upper: Array<[number, number]> = [];
  for (let i = p.length - 1; i >= 0; i--) {
    const q = p[i]!;
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, q) <= 0) upper.pop();
    upper.push(q);
  }
  upper.pop();
  lower.pop();
  return lower.concat(upper);
}

/** True when (x, y) is inside the hull or within `omega` of it. */
function nearHull(hull: Array<[number, number]>, x: number, y: number, omega: number): boolean {
  const n = hull.length;
  if (n === 0) return false;
  if (n === 1) return Math.hypot(x - hull[0]![0], y - hull[0]![1]) <= omega;
  let inside = n >= 3;
  let best = Infinity;
  for (let i = 0; i < n; i++) {
    const a = hull[i]!, b = hull[(i + 1) % n]!;
    const ex = b[0] - a[0], ey = b[1] - a[1];
    const c = ex * (y - a[1]) - ey * (x - a[0]);
    if (c < 0) inside = false;
    const l2 = ex * ex + ey * ey;
    const t = l2 > 0 ? Math.max(0, Math.min(1, ((x - a[0]) * ex + (y - a[1]) * ey) / l2)) : 0;
    best = Math.min(best, Math.hypot(x - a[0] - t * ex, y - a[1] - t * ey));
  }
  return inside || best <= omega;
}

/**
 * Builds the bit cylinders of a template (MCC §3: cell centres, spatial contribution
 * Gaussian(σS), directional contribution integrated over the cell's angular range, threshold μψ).
 */
export function buildCylinders(t: Pick<FingerprintTemplate, 'minutiae'>): CylinderSet {
  const ms = t.minutiae;
  const { R, NS, ND, sigmaS, sigmaD, muPsi, omega } = MCC;
  const ds = (2 * R) / NS;
  const dd = (2 * Math.PI) / ND;
  // Minutiae in a y-up frame so ISO angles are plain polar angles.
  const mx = ms.map((m) => m.x);
  const my = ms.map((m) => -m.y);
  const hull = convexHull(ms.map((m, i) => [mx[i]!, my[i]!] as [number, number]));
  const gsNorm = 1 / (sigmaS * Math.sqrt(2 * Math.PI));
  const reach = 3 * sigmaS;
  const keepBits: number[][] = [];
  const keepMask: number[][] = [];
  const keep: Minutia[] = [];
  const cellsInCircle = (() => {
    let n = 0;
    for (let i = 0; i < NS; i++) for (let j = 0; j < NS; j++) if (Math.hypot(ds * (i + 0.5 - NS / 2), ds * (j + 0.5 - NS / 2)) <= R) n++;
    return n;
  })();
  for (let a = 0; a < ms.length; a++) {
    const m = ms[a]!;
    const cos = Math.cos(m.angle), sin = Math.sin(m.angle);
    // Neighbours within R + 3σS.
    const nbr: number[] = [];
    for (let b = 0; b < ms.length; b++) if (b !== a && Math.hypot(mx[b]! - mx[a]!, my[b]! - my[a]!) <= R + reach) nbr.push(b);
    if (nbr.length < MCC.minM) continue;
    // Directional contributions per neighbour and layer.
    const cd = nbr.map((b) => {
      const dth = angleDiff(m.angle, ms[b]!.angle);
      const out: number[] = [];
      for (let k = 0; k < ND; k++) {
        const phik = -Math.PI + (k + 0.5) * dd;
        const alpha = angleDiff(phik, dth);
        out.push(0.5 * (erf((alpha + dd / 2) / (sigmaD * Math.SQRT2)) - erf((alpha - dd / 2) / (sigmaD * Math.SQRT2))));
      }
      return out;
    });
    const bits = new Array<number>(CW).fill(0);
    const mask = new Array<number>(LW).fill(0);
    let valid = 0;
    let contributing = 0;
    const used = new Uint8Array(nbr.length);
    for (let i = 0; i < NS; i++) {
      for (let j = 0; j < NS; j++) {
        const u = ds * (i + 0.5 - NS / 2), v = ds * (j + 0.5 - NS / 2);
        if (Math.hypot(u, v) > R) continue;
        const px = mx[a]! + cos * u - sin * v;
        const py = my[a]! + sin * u + cos * v;
        if (!nearHull(hull, px, py, omega)) continue;
        const cell = i * NS + j;
        mask[cell >> 5] = (mask[cell >> 5]! | (1 << (cell & 31))) >>> 0;
        valid++;
        const sums = new Array<number>(ND).fill(0);
        for (let q = 0; q < nbr.length; q++) {
          const b = nbr[q]!;
          const d = Math.hypot(mx[b]! - px, my[b]! - py);
          if (d > reach) continue;
          used[q] = 1;
          const gs = gsNorm * Math.exp(-(d * d) / (2 * sigmaS * sigmaS));
          const c = cd[q]!;
          for (let k = 0; k < ND; k++) sums[k]! += gs * c[k]!;
        }
        for (let k = 0; k < ND; k++) {
          if (sums[k]! >= muPsi) {
            const w = k * LW + (cell >> 5);
            bits[w] = (bits[w]! | (1 << (cell & 31))) >>> 0;
          }
        }
      }
    }
    for (let q = 0; q < used.length; q++) contributing += used[q]!;
    if (valid < MCC.minVC * cellsInCircle || contributing < MCC.minM) continue;
    keepBits.push(bits);
    keepMask.push(mask);
    keep.push(m);
  }
  return packCylinders(keep, keepBits, keepMask);
}

function packCylinders(keep: Minutia[], bitsList: number[][], maskList: number[][]): CylinderSet {
  const n = keep.length;
  const bits = new Uint32Array(n * CW);
  const mask = new Uint32Array(n * LW);
  bitsList.forEach((b, i) => bits.set(b, i * CW));
  maskList.forEach((m, i) => mask.set(m, i * LW));
  return withGeometry(n, keep.map((m) => m.x), keep.map((m) => m.y), keep.map((m) => m.angle), bits, mask);
}

/** A cylinder set from its parts (x, y in image pixels, y down; angles ISO radians). */
export function withGeometry(n: number, xs: ArrayLike<number>, ys: ArrayLike<number>, angles: ArrayLike<number>, bits: Uint32Array, mask: Uint32Array): CylinderSet {
  return { n, x: Float32Array.from(xs), y: Float32Array.from(ys), angle: Float32Array.from(angles), bits, mask };
}

/** Bit counts of every 16-bit value. */
const POP16 = (() => {
  const t = new Uint8Array(65536);
  for (let i = 1; i < 65536; i++) t[i] = (i & 1) + t[i >> 1]!;
  return t;
})();
const mw = new Int32Array(8);

function popcnt(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

function sigmoid(v: number, mu: number, tau: number): number {
  return 1 / (1 + Math.exp(-tau * (v - mu)));
}

/** Size of the local-similarity buffers (grown on demand). */
let lsBuf = new Float32Array(0);
let lsIdx = new Int32Array(0);

/**
 * Global similarity of two templates' cylinders, 0-1 (MCC with LSS-R). 0 when either has no valid cylinder.
 */
export function matchCylinders(A: CylinderSet, B: CylinderSet): number {
  const nA = A.n, nB = B.n;
  if (nA === 0 || nB === 0) return 0;
  const total = nA * nB;
  if (lsBuf.length < total) {
    lsBuf = new Float32Array(total * 2);
    lsIdx = new Int32Array(total * 2);
  }
  const minCells = Math.ceil(MCC.minME * 256 * MCC.ND);
  let cnt = 0;
  const ab = A.bits, bb = B.bits, am = A.mask, bm = B.mask;
  for (let i = 0; i < nA; i++) {
    const ai = i * CW, aim = i * LW;
    const ta = A.angle[i]!;
    for (let j = 0; j < nB; j++) {
      const d = angleDiff(ta, B.angle[j]!);
      if (d > MCC.deltaTheta || d < -MCC.deltaTheta) continue;
      const bj = j * CW, bjm = j * LW;
      let mc = 0;
      const m0 = am[aim]! & bm[bjm]!, m1 = am[aim + 1]! & bm[bjm + 1]!, m2 = am[aim + 2]! & bm[bjm + 2]!, m3 = am[aim + 3]! & bm[bjm + 3]!;
      const m4 = am[aim + 4]! & bm[bjm + 4]!, m5 = am[aim + 5]! & bm[bjm + 5]!, m6 = am[aim + 6]! & bm[bjm + 6]!, m7 = am[aim + 7]! & bm[bjm + 7]!;
      mc = popcnt(m0) + popcnt(m1) + popcnt(m2) + popcnt(m3) + popcnt(m4) + popcnt(m5) + popcnt(m6) + popcnt(m7);
      if (mc * MCC.ND < minCells) continue;
      mw[0] = m0; mw[1] = m1; mw[2] = m2; mw[3] = m3; mw[4] = m4; mw[5] = m5; mw[6] = m6; mw[7] = m7;
      let pa = 0, pb = 0, px = 0;
      // Cylinders are sparse (about 4% of bits set): most words are zero in both, skip them.
      for (let k = 0; k < CW; k++) {
        const x = ab[ai + k]! | bb[bj + k]!;
        if (x === 0) continue;
        const m = mw[k & 7]!;
        const a = ab[ai + k]! & m, b = bb[bj + k]! & m;
        if ((a | b) === 0) continue;
        pa += POP16[a & 0xffff]! + POP16[a >>> 16]!;
        pb += POP16[b & 0xffff]! + POP16[b >>> 16]!;
        const d = a ^ b;
        px += POP16[d & 0xffff]! + POP16[d >>> 16]!;
      }
      if (pa + pb === 0) continue;
      const s = 1 - Math.sqrt(px) / (Math.sqrt(pa) + Math.sqrt(pb));
      if (s <= 0) continue;
      lsBuf[cnt] = s;
      lsIdx[cnt] = i * nB + j;
      cnt++;
    }
  }
  if (cnt === 0) return 0;
  const nP = Math.round(MCC.minNP + sigmoid(Math.min(nA, nB), MCC.muP, MCC.tauP) * (MCC.maxNP - MCC.minNP));
  let nR = Math.min(Math.min(nA, nB), cnt);
  // Top nR local similarities (partial selection sort on indices; nR ≤ ~100).
  const order = GREEDY_LSA ? greedyAssignment(cnt, nA, nB, nR) : topK(lsBuf, cnt, nR);
  nR = order.length;
  const pi = new Int32Array(nR), pj = new Int32Array(nR);
  let lam = new Float32Array(nR);
  const lam0 = new Float32Array(nR);
  for (let r = 0; r < nR; r++) {
    const k = order[r]!;
    pi[r] = (lsIdx[k]! / nB) | 0;
    pj[r] = lsIdx[k]! % nB;
    lam[r] = lsBuf[k]!;
    lam0[r] = lsBuf[k]!;
  }
  // Compatibility ρ between pairs (symmetric).
  const rho = new Float32Array(nR * nR);
  for (let r = 0; r < nR; r++) {
    const ar = pi[r]!, br = pj[r]!;
    for (let c = r + 1; c < nR; c++) {
      const ac = pi[c]!, bc = pj[c]!;
      const adx = A.x[ac]! - A.x[ar]!, ady = A.y[ar]! - A.y[ac]!;
      const bdx = B.x[bc]! - B.x[br]!, bdy = B.y[br]! - B.y[bc]!;
      const d1 = Math.abs(Math.sqrt(adx * adx + ady * ady) - Math.sqrt(bdx * bdx + bdy * bdy));
      if (d1 > 12) continue; // Z(d1) < 2e-5: the pair contributes nothing
      const d2 = Math.abs(angleDiff(angleDiff(A.angle[ar]!, A.angle[ac]!), angleDiff(B.angle[br]!, B.angle[bc]!)));
      if (d2 > 0.6) continue; // Z(d2) < 4e-5
      const d3 = Math.abs(angleDiff(angleDiff(A.angle[ar]!, Math.atan2(ady, adx)), angleDiff(B.angle[br]!, Math.atan2(bdy, bdx))));
      const v = sigmoid(d1, MCC.muRho1, MCC.tauRho1) * sigmoid(d2, MCC.muRho2, MCC.tauRho2) * sigmoid(d3, MCC.muRho3, MCC.tauRho3);
      rho[r * nR + c] = v;
      rho[c * nR + r] = v;
    }
  }
  if (nR > 1) {
    const next = new Float32Array(nR);
    for (let it = 0; it < MCC.nRel; it++) {
      for (let r = 0; r < nR; r++) {
        let s = 0;
        const row = r * nR;
        for (let c = 0; c < nR; c++) s += rho[row + c]! * lam[c]!;
        next[r] = MCC.wR * lam[r]! + ((1 - MCC.wR) * s) / (nR - 1);
      }
      lam.set(next);
    }
  }
  // Efficiency ε = λ(nrel) / λ(0); the score is the mean relaxed similarity of the nP most efficient pairs.
  const eff = new Float32Array(nR);
  for (let r = 0; r < nR; r++) eff[r] = lam[r]! / lam0[r]!;
  const np = Math.min(nP, nR);
  const best = topK(eff, nR, np);
  let sum = 0;
  for (const k of best) sum += lam[k]!;
  const lss = sum / np;
  if (CONSOLIDATE === 0) return lss;
  // Consolidation (ours): align on each of the most efficient pairs, count one-to-one paired minutiae.
  let bestPaired = 0;
  for (let h = 0; h < Math.min(CONSOLIDATE, best.length); h++) {
    const r = best[h]!;
    bestPaired = Math.max(bestPaired, pairedUnder(A, B, pi[r]!, pj[r]!));
  }
  lam = new Float32Array(0);
  return Math.sqrt(lss * ((bestPaired * bestPaired) / (nA * nB)));
}

/** Alignment hypotheses tried by the pairing consolidation; 0 = off (it did not lower the EER on FVC2002 ISO templates). */
const CONSOLIDATE = 0;
const PAIR_DIST = 12;
const PAIR_ANGLE = Math.PI / 6;

/** Minutiae of A and B paired one-to-one (greedy, nearest first) after aligning A's minutia a on B's minutia b. */
function pairedUnder(A: CylinderSet, B: CylinderSet, a: number, b: number): number {
  const rot = angleDiff(B.angle[b]!, A.angle[a]!);
  const c = Math.cos(rot), s = Math.sin(rot);
  const ax = A.x[a]!, ay = -A.y[a]!, bx = B.x[b]!, by = -B.y[b]!;
  const usedB = new Uint8Array(B.n);
  let n = 0;
  for (let i = 0; i < A.n; i++) {
    const ux = A.x[i]! - ax, uy = -A.y[i]! - ay;
    const tx = bx + c * ux - s * uy, ty = by + s * ux + c * uy;
    const ta = A.angle[i]! + rot;
    let bestJ = -1, bestD = PAIR_DIST * PAIR_DIST;
    for (let j = 0; j < B.n; j++) {
      if (usedB[j]) continue;
      const dx = B.x[j]! - tx, dy = -B.y[j]! - ty;
      const d = dx * dx + dy * dy;
      if (d < bestD && Math.abs(angleDiff(B.angle[j]!, ta)) < PAIR_ANGLE) { bestD = d; bestJ = j; }
    }
    if (bestJ >= 0) { usedB[bestJ] = 1; n++; }
  }
  return n;
}

/**
 * Pick the relaxation's pairs one-to-one (greedy approximation of the paper's LSA-R) instead of by LSS.
 * Measured: better on the FVC2002 ISO templates (extended EER DB1 2.50 → 2.15%, DB2 2.06 → 1.41%, DB3 5.79 → 5.35%),
 * mixed on our own minutiae (DB1 11.78 → 13.20%, DB3 20.72 → 20.35%), so off until the extractor improves.
 */
const GREEDY_LSA = false;

/** Up to k pairs by descending local similarity with no minutia used twice (greedy approximation of LSA). */
function greedyAssignment(cnt: number, nA: number, nB: number, k: number): number[] {
  const idx = Array.from({ length: cnt }, (_, i) => i).sort((a, b) => lsBuf[b]! - lsBuf[a]!);
  const usedA = new Uint8Array(nA), usedB = new Uint8Array(nB);
  const out: number[] = [];
  for (const t of idx) {
    const i = (lsIdx[t]! / nB) | 0, j = lsIdx[t]! % nB;
    if (usedA[i] || usedB[j]) continue;
    usedA[i] = 1; usedB[j] = 1;
    out.push(t);
    if (out.length >= k) break;
  }
  return out;
}

/** Indices of the k largest of v[0..n) (descending). */
function topK(v: Float32Array, n: number, k: number): number[] {
  if (k <= 0) return [];
  if (n > 4 * k) {
    // Threshold by a partial sort of a copy, then collect.
    const vals = v.slice(0, n).sort();
    const thr = vals[n - k]!;
    const sel: number[] = [];
    for (let i = 0; i < n && sel.length < k; i++) if (v[i]! > thr) sel.push(i);
    for (let i = 0; i < n && sel.length < k; i++) if (v[i]! === thr) sel.push(i);
    return sel.sort((a, b) => v[b]! - v[a]!);
  }
  const idx = Array.from({ length: n }, (_, i) => i);
  idx.sort((a, b) => v[b]! - v[a]!);
  return idx.slice(0, k);
}
