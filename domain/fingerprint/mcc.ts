/**
 * Minutia Cylinder-Code matcher: R. Cappelli, M. Ferrara, D. Maltoni, "Minutia Cylinder-Code: a new
 * representation and matching technique for fingerprint recognition", IEEE TPAMI 32(12):2128-2141, 2010.
 *
 * Bit-based variant (MCC16b): each minutia gets a cylinder of NS × NS × ND = 16 × 16 × 6 cells whose bit is
 * set when the cell's contribution sum exceeds μψ; cells outside the print's convex hull (enlarged by ω)
 * or outside the radius R are invalid. Local similarity of two cylinders is
 * 1 − √‖a ⊕ b‖ / (√‖a‖ + √‖b‖) over the cells valid in both (popcount of 32-bit words); the global score
 * consolidates the local similarities by relaxation of the best pairs (LSS-R or LSA-R, §5 of the paper).
 *
 * `MCC` holds the paper's Table 2 values for 500 ppi: R = 70, NS = 16, ND = 6, σS = 28/3, σD = 2π/9,
 * μψ = 1/100, ω = 50, minVC = 0.75, minM = 2, minME = 0.6, δθ = π/2, nrel = 5, wR = 0.5,
 * μρ1 = 5, τρ1 = −8/5, μρ2 = μρ3 = π/12, τρ2 = τρ3 = −30, minNP = 4, maxNP = 12, μP = 20, τP = 2/5.
 * The defaults (`MATCH_DEFAULTS`; FVC2002 figures in docs/fingerprint.md, "How it works" and "Accuracy")
 * depart from it in three measured ways: pairs are chosen one-to-one (greedy LSA-R), δθ = π/3, and the
 * relaxation score is weighed by a geometric verification (`verify`, mcc-verify.ts).
 * `{selection: 'lss', deltaTheta: π/2}` (no `verify`) is the paper's method. Options for extractors whose bifurcation
 * directions are unreliable modulo π, off by default: `MatchOptions.reversible` (turned cylinders) and
 * `BuildOptions.reversedNeighbourWeight`.
 */
import { angleDiff, type FingerprintTemplate, type Minutia } from './template.ts';
import { createWasmSimilarities } from './mcc-wasm.ts';
import { alignmentAgreement, VERIFY, type Alignment } from './mcc-verify.ts';
import { convexHull } from './hull.ts';

export { convexHull };

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
  /** 1 where the minutia's direction is known only up to π (bifurcation or 'other'), else 0. */
  flip: Uint8Array;
  /** Valid cells of each cylinder on one layer (popcount of its mask), for early rejection. */
  cells: Uint16Array;
  /** Set bits of each cylinder. */
  pop: Uint16Array;
  /** Two words per cylinder: bit k of word k >> 5 (k < 48, as 24 + 24 bits) set when bits word k is not zero. */
  nz: Int32Array;
  /** Per cylinder, bit w set when mask word w does not cover the circle's cells of that word. */
  part: Uint8Array;
  /** LW words per cylinder: the union of its ND layers (cells with a bit set in any layer). */
  any: Uint32Array;
}

/** Layer unions (see CylinderSet.any) of n cylinders. */
function layerUnion(bits: Uint32Array, n: number): Uint32Array {
  const any = new Uint32Array(n * LW);
  for (let c = 0; c < n; c++) for (let k = 0; k < CW; k++) any[c * LW + (k % LW)] = any[c * LW + (k % LW)]! | bits[c * CW + k]!;
  return any;
}

/** Partial-mask bitmaps (see CylinderSet.part) of n cylinders. */
function partialWords(mask: Uint32Array, n: number): Uint8Array {
  const part = new Uint8Array(n);
  for (let c = 0; c < n; c++) for (let w = 0; w < LW; w++) if (mask[c * LW + w] !== CIRCLE[w]) part[c] = part[c]! | (1 << w);
  return part;
}

/** Cells inside the cylinder's circle (distance of the cell centre to the minutia ≤ R), LW words of one layer. */
const CIRCLE = (() => {
  const m = new Uint32Array(LW);
  const ds = (2 * MCC.R) / MCC.NS;
  for (let i = 0; i < MCC.NS; i++) for (let j = 0; j < MCC.NS; j++) {
    if (Math.hypot(ds * (i + 0.5 - MCC.NS / 2), ds * (j + 0.5 - MCC.NS / 2)) > MCC.R) continue;
    const cell = i * MCC.NS + j;
    m[cell >> 5] = (m[cell >> 5]! | (1 << (cell & 31))) >>> 0;
  }
  return m;
})();

/** Non-zero-word bitmaps (see CylinderSet.nz) of n cylinders. */
function nonZeroWords(bits: Uint32Array, n: number): Int32Array {
  const nz = new Int32Array(2 * n);
  for (let c = 0; c < n; c++) for (let k = 0; k < CW; k++) if (bits[c * CW + k] !== 0) { const q = 2 * c + (k >= 24 ? 1 : 0); nz[q] = nz[q]! | (1 << (k % 24)); }
  return nz;
}

/** Options of the cylinder construction beyond the paper's Table 2. */
export interface BuildOptions {
  /**
   * Weight of a neighbouring bifurcation's contribution in the reverse sense of its direction (θ + π;
   * 0 = the paper's single sense, the default), for extractors that reverse bifurcation directions between
   * impressions (ours did, about a third of them, before 2026-11-25; docs/fingerprint.md).
   */
  reversedNeighbourWeight: number;
}

export const BUILD_DEFAULTS: Readonly<BuildOptions> = { reversedNeighbourWeight: 0 };

/** True for the minutia types whose direction is taken as reversible. */
export const reversibleType = (t: Minutia['type']) => t !== 'ending';

/** Error function, Abramowitz and Stegun 7.1.26 (max error 1.5e-7). */
export function erf(x: number): number {
  // Abramowitz and Stegun 7.1.26 (max error 1.5e-7).
  const s = x < 0 ? -1 : 1;
  const ax = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * ax);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-ax * ax);
  return s * y;
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
export function buildCylinders(t: Pick<FingerprintTemplate, 'minutiae'>, opts: Readonly<BuildOptions> = BUILD_DEFAULTS): CylinderSet {
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
      const rw = reversibleType(ms[b]!.type) ? opts.reversedNeighbourWeight : 0;
      const g = (alpha: number) => 0.5 * (erf((alpha + dd / 2) / (sigmaD * Math.SQRT2)) - erf((alpha - dd / 2) / (sigmaD * Math.SQRT2)));
      for (let k = 0; k < ND; k++) {
        const phik = -Math.PI + (k + 0.5) * dd;
        const alpha = angleDiff(phik, dth);
        out.push(rw > 0 ? g(alpha) + rw * g(angleDiff(phik, dth + Math.PI)) : g(alpha));
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
  return withGeometry(n, keep.map((m) => m.x), keep.map((m) => m.y), keep.map((m) => m.angle), bits, mask, keep.map((m) => (reversibleType(m.type) ? 1 : 0)));
}

/**
 * A cylinder set from its parts (x, y in image pixels, y down; angles ISO radians; `bits` CW and `mask`
 * LW words per cylinder; `flips` 1 for a reversible direction, default none).
 */
export function withGeometry(n: number, xs: ArrayLike<number>, ys: ArrayLike<number>, angles: ArrayLike<number>, bits: Uint32Array, mask: Uint32Array, flips?: ArrayLike<number>): CylinderSet {
  const cells = new Uint16Array(n), pop = new Uint16Array(n);
  for (let c = 0; c < n; c++) {
    for (let w = 0; w < LW; w++) {
      mask[c * LW + w] = mask[c * LW + w]! & CIRCLE[w]!;
      cells[c] = cells[c]! + popcnt(mask[c * LW + w]!);
    }
    // Bits live in valid cells only (the similarity relies on it).
    for (let k = 0; k < CW; k++) {
      bits[c * CW + k] = bits[c * CW + k]! & mask[c * LW + (k % LW)]!;
      pop[c] = pop[c]! + popcnt(bits[c * CW + k]!);
    }
  }
  const flip = flips ? Uint8Array.from(flips) : new Uint8Array(n);
  return { n, x: Float32Array.from(xs), y: Float32Array.from(ys), angle: Float32Array.from(angles), bits, mask, flip, cells, pop, nz: nonZeroWords(bits, n), part: partialWords(mask, n), any: layerUnion(bits, n) };
}

/** Bit count of a 32-bit word (SWAR; V8 has no popcount intrinsic). */
function popcnt(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Bits of a 32-bit word in reverse order. */
function rev32(v: number): number {
  v = ((v >>> 1) & 0x55555555) | ((v & 0x55555555) << 1);
  v = ((v >>> 2) & 0x33333333) | ((v & 0x33333333) << 2);
  v = ((v >>> 4) & 0x0f0f0f0f) | ((v & 0x0f0f0f0f) << 4);
  v = ((v >>> 8) & 0x00ff00ff) | ((v & 0x00ff00ff) << 8);
  return ((v >>> 16) | (v << 16)) >>> 0;
}

const PI = Math.PI;
const TWO_PI = 2 * Math.PI;

/** angleDiff for |a − b| < 4π (every use here), without the remainder operation. */
function adiff(a: number, b: number): number {
  let d = a - b;
  if (d > PI) { d -= TWO_PI; if (d > PI) d -= TWO_PI; } else if (d <= -PI) { d += TWO_PI; if (d <= -PI) d += TWO_PI; }
  return d;
}

function sigmoid(v: number, mu: number, tau: number): number {
  return 1 / (1 + Math.exp(-tau * (v - mu)));
}

/**
 * The cylinders turned by π: what a minutia's cylinder would be with its direction reversed. The cell
 * lattice is symmetric about the centre, so cell (i, j) becomes (NS−1−i, NS−1−j), i.e. bit c of a layer
 * becomes bit 255−c (words in reverse order, bits reversed), and a neighbour's relative direction turns
 * by π, i.e. layer k becomes layer (k + ND/2) mod ND. Exact, no rebuild. Cached per set.
 */
interface View { bits: Uint32Array; mask: Uint32Array; nz: Int32Array; part: Uint8Array; any: Uint32Array; cells: Uint16Array; pop: Uint16Array }
const straightCache = new WeakMap<CylinderSet, View>();
/** The set's arrays in the same object shape as a turned copy (keeps the similarity code monomorphic). */
function straight(S: CylinderSet): View {
  let v = straightCache.get(S);
  if (!v) {
    v = { bits: S.bits, mask: S.mask, nz: S.nz, part: S.part, any: S.any, cells: S.cells, pop: S.pop };
    straightCache.set(S, v);
  }
  return v;
}
const flippedCache = new WeakMap<CylinderSet, View>();
function flipped(S: CylinderSet): View {
  let f = flippedCache.get(S);
  if (f) return f;
  const bits = new Uint32Array(S.bits.length);
  const mask = new Uint32Array(S.mask.length);
  const half = MCC.ND / 2;
  for (let c = 0; c < S.n; c++) {
    for (let w = 0; w < LW; w++) mask[c * LW + w] = rev32(S.mask[c * LW + LW - 1 - w]!);
    if (!S.flip[c]) continue; // only reversible cylinders are ever compared turned
    for (let k = 0; k < MCC.ND; k++) {
      const src = c * CW + ((k + half) % MCC.ND) * LW;
      for (let w = 0; w < LW; w++) bits[c * CW + k * LW + w] = rev32(S.bits[src + LW - 1 - w]!);
    }
  }
  f = { bits, mask, nz: nonZeroWords(bits, S.n), part: partialWords(mask, S.n), any: layerUnion(bits, S.n), cells: S.cells, pop: S.pop };
  flippedCache.set(S, f);
  return f;
}

/**
 * Options of the global score beyond the paper's Table 2 (docs/fingerprint.md, "Matching", has the
 * measurements behind the defaults).
 */
export interface MatchOptions {
  /**
   * How the pairs to relax are chosen: `lss` (Local Similarity Sort, the nR best local similarities,
   * a minutia may appear in several) or `lsa` (one-to-one, greedy approximation of the paper's Local
   * Similarity Assignment).
   */
  selection: 'lss' | 'lsa';
  /**
   * Compare cylinders with a reversible direction (bifurcations and 'other', `CylinderSet.flip`) in the
   * sense that makes the two directions agree (θ or θ + π), instead of rejecting the pair when the
   * directions differ by more than δθ.
   */
  reversible: boolean;
  /** Largest direction difference of two matchable cylinders, radians (the paper's δθ, π/2). */
  deltaTheta: number;
  /**
   * Multiply the relaxation score by the square root of the geometric agreement of mcc-verify.ts (the
   * minutiae that agree under the best of the top local pairs' alignments, over those in the overlap).
   * Absent or false: the paper's score alone.
   */
  verify?: boolean;
}

export const MATCH_DEFAULTS: Readonly<MatchOptions> = { selection: 'lsa', reversible: false, deltaTheta: Math.PI / 3, verify: true };

/** Valid cells two cylinders must share (MCC's minME × NS² × ND, counted on one layer). */
const MIN_COMMON = Math.ceil(MCC.minME * MCC.NS * MCC.NS);

/* Scratch buffers, grown on demand (matching allocates nothing per call once they are large enough). */
let lsVal = new Float32Array(1024);
let lsIdx = new Int32Array(1024);
let lsFlip = new Uint8Array(1024);
let selTmp = new Float32Array(1024);
let pi = new Int32Array(64), pj = new Int32Array(64);
let pAng = new Float64Array(64), pBng = new Float64Array(64);
let lam = new Float32Array(64), lam0 = new Float32Array(64), nxt = new Float32Array(64), eff = new Float32Array(64);
let rhoVal = new Float32Array(64 * 64), rhoCol = new Int32Array(64 * 64), rhoLen = new Int32Array(64);
let qAx = new Float64Array(64), qAy = new Float64Array(64), qBx = new Float64Array(64), qBy = new Float64Array(64);
let pSel = new Int32Array(64);
let rowStart = new Int32Array(65), colHold = new Int32Array(64);
let sortKey = new Float64Array(256);
const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);

function growPairs(total: number): void {
  if (lsVal.length >= total) return;
  const n = total * 2;
  lsVal = new Float32Array(n); lsIdx = new Int32Array(n); lsFlip = new Uint8Array(n); selTmp = new Float32Array(n);
}
function growRelax(n: number): void {
  if (pi.length >= n) return;
  const m = n * 2;
  pi = new Int32Array(m); pj = new Int32Array(m); pSel = new Int32Array(m); pAng = new Float64Array(m); pBng = new Float64Array(m);
  lam = new Float32Array(m); lam0 = new Float32Array(m); nxt = new Float32Array(m); eff = new Float32Array(m);
  rhoVal = new Float32Array(m * m); rhoCol = new Int32Array(m * m); rhoLen = new Int32Array(m);
  qAx = new Float64Array(m); qAy = new Float64Array(m); qBx = new Float64Array(m); qBy = new Float64Array(m);
}

/**
 * Local similarity of cylinder `ai` of A (words, mask and non-zero-word bitmaps from `T`: A's own or its
 * turned copy) and cylinder `bj` of B (MCC eq. 20, bit version): 1 − √‖a⊕b‖ / (√‖a‖ + √‖b‖) over the
 * cells valid in both, or −1 when they share fewer than minME of the cells or neither has a bit set there.
 * A cylinder's bits lie inside its own valid cells, so ‖a restricted to the common cells‖ is
 * ‖a‖ − ‖a ∧ (circle ∧ ¬maskB)‖ (zero work where B's mask covers the circle, most words) and
 * ‖a⊕b‖ = ‖a‖ + ‖b‖ − 2‖a∧b‖, with a∧b visited only on words non-zero in both.
 */
function localSimilarity(T: View, ai: number, B: View, bj: number): number {
  const am = T.mask, bm = B.mask, ab = T.bits, bb = B.bits;
  const aim = ai * LW, bjm = bj * LW, ao = ai * CW, bo = bj * CW;
  let common = T.cells[ai]!, pa = T.pop[ai]!, pb = B.pop[bj]!;
  // Only the words where a mask leaves out some of the circle need work (border cylinders).
  let pw = B.part[bj]!;
  while (pw !== 0) {
    const w = 31 - Math.clz32(pw & -pw);
    pw &= pw - 1;
    const outB = CIRCLE[w]! & ~bm[bjm + w]!;
    common -= popcnt(am[aim + w]! & outB);
    if ((T.any[aim + w]! & outB) === 0) continue; // none of A's bits in this word's cells B lacks
    for (let k = w; k < CW; k += LW) { const x = ab[ao + k]! & outB; if (x !== 0) pa -= popcnt(x); }
  }
  if (common < MIN_COMMON) return -1;
  pw = T.part[ai]!;
  while (pw !== 0) {
    const w = 31 - Math.clz32(pw & -pw);
    pw &= pw - 1;
    const outA = CIRCLE[w]! & ~am[aim + w]!;
    if ((B.any[bjm + w]! & outA) === 0) continue;
    for (let k = w; k < CW; k += LW) { const y = bb[bo + k]! & outA; if (y !== 0) pb -= popcnt(y); }
  }
  if (common < MIN_COMMON || pa + pb === 0) return -1;
  let pab = 0;
  let m = T.nz[2 * ai]! & B.nz[2 * bj]!;
  while (m !== 0) {
    const t = m & -m;
    m ^= t;
    const k = 31 - Math.clz32(t);
    const z = ab[ao + k]! & bb[bo + k]!;
    if (z !== 0) pab += popcnt(z);
  }
  m = T.nz[2 * ai + 1]! & B.nz[2 * bj + 1]!;
  while (m !== 0) {
    const t = m & -m;
    m ^= t;
    const k = 55 - Math.clz32(t);
    const z = ab[ao + k]! & bb[bo + k]!;
    if (z !== 0) pab += popcnt(z);
  }
  return 1 - Math.sqrt(pa + pb - 2 * pab) / (Math.sqrt(pa) + Math.sqrt(pb));
}

/** True when candidate p ranks before q: higher value, then lower position (a stable descending order). */
function before(v: Float32Array, p: number, q: number): boolean {
  return v[p]! > v[q]! || (v[p]! === v[q]! && p < q);
}

/**
 * The k best of v[0..n) by value (ties: lower position first), written to out[0..k) in that order.
 * Threshold by selection on a copy (O(n) average), then the items above it and, in position order, the
 * ones equal to it; insertion sort of the k chosen.
 */
function topK(v: Float32Array, n: number, k: number, out: Int32Array): number {
  if (k > n) k = n;
  if (k <= 0) return 0;
  const t = selTmp;
  for (let i = 0; i < n; i++) t[i] = v[i]!;
  // k-th largest = element n − k of the ascending order (Hoare selection).
  const target = n - k;
  let lo = 0, hi = n - 1;
  while (lo < hi) {
    const pivot = t[(lo + hi) >> 1]!;
    let i = lo, j = hi;
    while (i <= j) {
      while (t[i]! < pivot) i++;
      while (t[j]! > pivot) j--;
      if (i <= j) { const x = t[i]!; t[i] = t[j]!; t[j] = x; i++; j--; }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  const thr = t[target]!;
  let m = 0;
  for (let i = 0; i < n && m < k; i++) if (v[i]! > thr) out[m++] = i;
  for (let i = 0; i < n && m < k; i++) if (v[i]! === thr) out[m++] = i;
  if (m <= 16) {
    for (let i = 1; i < m; i++) {
      const x = out[i]!;
      let j = i - 1;
      while (j >= 0 && before(v, x, out[j]!)) { out[j + 1] = out[j]!; j--; }
      out[j + 1] = x;
    }
    return m;
  }
  // Native sort of keys: the value's float32 bit pattern (monotonic for positive values; every value
  // here is > 0) above the position (2^20 positions), so equal values keep position order.
  if (sortKey.length < m) sortKey = new Float64Array(m * 2);
  for (let i = 0; i < m; i++) { f32[0] = v[out[i]!]!; sortKey[i] = u32[0]! * 1048576 + (1048575 - out[i]!); }
  const keys = sortKey.subarray(0, m).sort();
  for (let i = 0; i < m; i++) out[i] = 1048575 - (keys[m - 1 - i]! % 1048576);
  return m;
}

/**
 * The greedy one-to-one assignment (approximation of LSA): the candidates taken in descending local
 * similarity (ties: lower position first), each unless one of its minutiae is already taken, written to
 * out in that order; returns their count (never more than k = min(nA, nB, cnt)). Computed by proposals
 * (Gale-Shapley, A's minutiae proposing; McVitie and Wilson 1971): each of A's minutiae proposes its best
 * candidate whose B minutia is free or holds a worse one, the displaced minutia proposes again. Both sides
 * rank the pairs by the same strict order, so the stable assignment is unique and is the greedy one (the
 * best remaining pair belongs to every stable assignment, by induction), whatever the order of the
 * proposals; the pairs are then sorted into the greedy order. The candidates of A's minutia i are
 * contiguous (the local similarities are in the order i then j): rowStart[i] to rowStart[i + 1].
 */
function greedyAssignment(val: Float32Array, idx: Int32Array, cnt: number, nA: number, nB: number, k: number, out: Int32Array): number {
  if (rowStart.length <= nA) rowStart = new Int32Array(2 * nA + 2);
  if (colHold.length < nB) colHold = new Int32Array(2 * nB);
  colHold.fill(-1, 0, nB);
  let t = 0;
  for (let i0 = 0; i0 < nA; i0++) {
    // Row i0's first proposal, finding where the row ends on the way.
    rowStart[i0] = t;
    const end = (i0 + 1) * nB, base0 = i0 * nB;
    let bt = -1, bv = 0;
    for (; t < cnt; t++) {
      const x = idx[t]!;
      if (x >= end) break;
      const v = val[t]!;
      if (bt >= 0 && !(v > bv)) continue;
      const h = colHold[x - base0]!;
      if (h >= 0 && (val[h]! > v || (val[h]! === v && h < t))) continue;
      bt = t; bv = v;
    }
    rowStart[i0 + 1] = t;
    // Then the proposals of the rows it displaces, each already scanned once (rows < i0 or i0 itself).
    let i = i0;
    while (bt >= 0) {
      const j = idx[bt]! - i * nB;
      const h = colHold[j]!;
      colHold[j] = bt;
      if (h < 0) break;
      i = (idx[h]! / nB) | 0;
      // Row i's best candidate (in the row, a later equal value ranks after) whose column is free or held by a worse one.
      bt = -1; bv = 0;
      const base = i * nB, e = rowStart[i + 1]!;
      for (let q = rowStart[i]!; q < e; q++) {
        const v = val[q]!;
        if (bt >= 0 && !(v > bv)) continue;
        const hq = colHold[idx[q]! - base]!;
        if (hq >= 0 && (val[hq]! > v || (val[hq]! === v && hq < q))) continue;
        bt = q; bv = v;
      }
    }
  }
  let m = 0;
  for (let j = 0; j < nB; j++) {
    const h = colHold[j]!;
    if (h < 0) continue;
    // Insertion into the greedy order (descending value, then ascending position).
    let r = m - 1;
    while (r >= 0 && before(val, h, out[r]!)) { out[r + 1] = out[r]!; r--; }
    out[r + 1] = h;
    m++;
  }
  return m < k ? m : k;
}

/**
 * Global similarity of two templates' cylinders, 0-1: MCC local similarities of every matchable pair of
 * cylinders, then LSS-R (or LSA-R, `opts.selection`): the nR = min(nA, nB) best pairs are relaxed
 * nrel times by their geometric compatibility ρ, and the score is the mean relaxed similarity of the nP
 * most efficient pairs (paper §5). 0 when either set has no valid cylinder. Symmetric up to float rounding
 * except with `opts.reversible` (A's cylinders are the ones turned). Not re-entrant (module scratch buffers).
 * The local similarities come from the WebAssembly kernel (mcc-wasm.ts) where the runtime has SIMD,
 * else from `jsSimilarities`; both give the same values. `alignment`, when given and `opts.verify` is on,
 * receives the verification's kept alignment (mcc-verify.ts; left untouched when a score is 0 before it).
 */
export function matchCylinders(A: CylinderSet, B: CylinderSet, opts: Readonly<MatchOptions> = MATCH_DEFAULTS, alignment?: Alignment): number {
  const cnt = localSimilarities(A, B, opts);
  return cnt === 0 ? 0 : globalStage(A, B, cnt, lsVal, lsIdx, lsFlip, opts, alignment);
}

/** Fills lsVal, lsIdx, lsFlip with the local similarities of A and B (kernel or JavaScript path); returns their count. */
function localSimilarities(A: CylinderSet, B: CylinderSet, opts: Readonly<MatchOptions>): number {
  const nA = A.n, nB = B.n;
  if (nA === 0 || nB === 0) return 0;
  growPairs(nA * nB);
  const F = opts.reversible ? flipped(A) : null;
  return wasm !== null && wasmOn ? wasm(A, F, B, opts.deltaTheta, lsVal, lsIdx, lsFlip) : jsSimilarities(A, B, F, opts.deltaTheta);
}

/**
 * The local similarities of `matchCylinders` (> 0, in the order i then j): `count` of them in `val`
 * (similarity), `idx` (i·nB + j) and `turned` (1 when A's turned cylinder was compared). Fresh copies.
 * For the equality test and the benchmark of the global stage (`globalScore`).
 */
export interface LocalPairs { count: number; val: Float32Array; idx: Int32Array; turned: Uint8Array }

/** The local similarities `matchCylinders` computes for A against B under `opts` (see LocalPairs). */
export function localPairs(A: CylinderSet, B: CylinderSet, opts: Readonly<MatchOptions> = MATCH_DEFAULTS): LocalPairs {
  const count = localSimilarities(A, B, opts);
  return { count, val: lsVal.slice(0, count), idx: lsIdx.slice(0, count), turned: lsFlip.slice(0, count) };
}

/**
 * The global stage of `matchCylinders` (pair selection, relaxation, verification) on given local
 * similarities: `globalScore(A, B, localPairs(A, B, o), o) === matchCylinders(A, B, o)`. For the
 * equality test and the benchmark. Not re-entrant.
 */
export function globalScore(A: CylinderSet, B: CylinderSet, p: LocalPairs, opts: Readonly<MatchOptions> = MATCH_DEFAULTS): number {
  if (A.n === 0 || B.n === 0 || p.count === 0) return 0;
  growPairs(p.count);
  return globalStage(A, B, p.count, p.val, p.idx, p.turned, opts);
}

/** The global stage on cnt > 0 local similarities (val, idx, flip as lsVal, lsIdx, lsFlip); `alignment` as in matchCylinders. */
function globalStage(A: CylinderSet, B: CylinderSet, cnt: number, val: Float32Array, idx: Int32Array, flip: Uint8Array, opts: Readonly<MatchOptions>, alignment?: Alignment): number {
  const nA = A.n, nB = B.n;
  const nP = Math.round(MCC.minNP + sigmoid(Math.min(nA, nB), MCC.muP, MCC.tauP) * (MCC.maxNP - MCC.minNP));
  const want = Math.min(Math.min(nA, nB), cnt);
  growRelax(want);
  const nR = opts.selection === 'lsa' ? greedyAssignment(val, idx, cnt, nA, nB, want, pSel) : topK(val, cnt, want, pSel);
  const order = pSel;
  for (let r = 0; r < nR; r++) {
    const k = order[r]!;
    const i = (idx[k]! / nB) | 0;
    pi[r] = i;
    pj[r] = idx[k]! - i * nB;
    pAng[r] = flip[k] ? A.angle[i]! + PI : A.angle[i]!;
    pBng[r] = B.angle[pj[r]!]!;
    lam[r] = val[k]!;
    lam0[r] = val[k]!;
  }
  relax(A, B, nR);
  // Efficiency ε = λ(nrel) / λ(0); the score is the mean relaxed similarity of the nP most efficient pairs.
  for (let r = 0; r < nR; r++) eff[r] = lam[r]! / lam0[r]!;
  const np = Math.min(nP, nR);
  const best = topK(eff, nR, np, order);
  let sum = 0;
  for (let r = 0; r < best; r++) sum += lam[order[r]!]!;
  if (!opts.verify) return sum / np;
  // Geometric verification (mcc-verify.ts): the alignments of the first selected pairs (highest local similarity).
  return (sum / np) * Math.sqrt(alignmentAgreement(A, B, pi, pj, pAng, Math.min(VERIFY.hypotheses, nR), opts.reversible, alignment));
}

const wasm = createWasmSimilarities(CIRCLE);
let wasmOn = true;

/**
 * Chooses the local-similarity path of `matchCylinders`: true (the default) for the WebAssembly
 * kernel (mcc-wasm.ts), false for `jsSimilarities`. Returns whether the kernel is available (when it is
 * not, the JavaScript path is used whatever the choice). For the equality test and the benchmark.
 */
export function useWasmLocalSimilarity(on: boolean): boolean {
  wasmOn = on;
  return wasm !== null;
}

/**
 * The local similarities (> 0) of every matchable pair of A's and B's cylinders (directions within
 * δθ = `dTheta`, or within δθ of the reverse with A's turned cylinders `F`), written to lsVal, lsIdx
 * (i·nB + j) and lsFlip in the order i then j; returns their count. The JavaScript path.
 */
function jsSimilarities(A: CylinderSet, B: CylinderSet, F: View | null, dTheta: number): number {
  const nA = A.n, nB = B.n;
  const SA = straight(A), SB = straight(B);
  let cnt = 0;
  for (let i = 0; i < nA; i++) {
    if (A.cells[i]! < MIN_COMMON) continue;
    const ta = A.angle[i]!;
    const fa = F !== null && A.flip[i] === 1;
    for (let j = 0; j < nB; j++) {
      if (B.cells[j]! < MIN_COMMON) continue;
      const d = adiff(ta, B.angle[j]!);
      let turned = 0;
      if (d > dTheta || d < -dTheta) {
        if (F === null || !(fa || B.flip[j] === 1) || PI - Math.abs(d) > dTheta) continue;
        turned = 1;
      }
      const s = localSimilarity(turned ? F! : SA, i, SB, j);
      if (s <= 0) continue;
      lsVal[cnt] = s;
      lsIdx[cnt] = i * nB + j;
      lsFlip[cnt] = turned;
      cnt++;
    }
  }
  return cnt;
}

/**
 * Relaxation of the nR pairs in pi/pj/lam (paper eqs. 23-26): ρ is the product of three sigmoids of
 * the differences of distance, of relative direction and of the direction to the other minutia; then
 * nrel rounds of λ ← wR·λ + (1 − wR)·Σ ρ·λ / (nR − 1).
 * ρ is computed once per pair of pairs and kept sparse: row r lists its non-zero entries (columns in
 * ascending order, float32 values) in rhoCol/rhoVal from r·nR, rhoLen[r] of them. The sums skip only
 * zero terms (ρ·λ = +0 with λ > 0, and s + 0 = s), so they round as the dense sum over every column.
 */
function relax(A: CylinderSet, B: CylinderSet, nR: number): void {
  if (nR < 2) return;
  const ax = qAx, ay = qAy, bx = qBx, by = qBy;
  for (let r = 0; r < nR; r++) {
    ax[r] = A.x[pi[r]!]!; ay[r] = A.y[pi[r]!]!; bx[r] = B.x[pj[r]!]!; by[r] = B.y[pj[r]!]!;
    rhoLen[r] = 0;
  }
  const col = rhoCol, rv = rhoVal, len = rhoLen;
  const nt1 = -MCC.tauRho1, mu1 = MCC.muRho1, nt2 = -MCC.tauRho2, mu2 = MCC.muRho2, nt3 = -MCC.tauRho3, mu3 = MCC.muRho3;
  for (let r = 0; r < nR; r++) {
    const axr = ax[r]!, ayr = ay[r]!, bxr = bx[r]!, byr = by[r]!;
    const tar = pAng[r]!, tbr = pBng[r]!;
    const rowR = r * nR;
    for (let c = r + 1; c < nR; c++) {
      const adx = ax[c]! - axr, ady = ayr - ay[c]!;
      const bdx = bx[c]! - bxr, bdy = byr - by[c]!;
      const d1 = Math.abs(Math.sqrt(adx * adx + ady * ady) - Math.sqrt(bdx * bdx + bdy * bdy));
      if (d1 > 12) continue; // Z(d1) < 2e-5: the pair contributes nothing
      const d2 = Math.abs(adiff(adiff(tar, pAng[c]!), adiff(tbr, pBng[c]!)));
      if (d2 > 0.6) continue; // Z(d2) < 4e-5
      const d3 = Math.abs(adiff(adiff(tar, Math.atan2(ady, adx)), adiff(tbr, Math.atan2(bdy, bdx))));
      // sigmoid(d, μ, τ) = 1 / (1 + e^(−τ(d − μ))), the same expressions.
      const v = (1 / (1 + Math.exp(nt1 * (d1 - mu1)))) * (1 / (1 + Math.exp(nt2 * (d2 - mu2)))) * (1 / (1 + Math.exp(nt3 * (d3 - mu3))));
      let q = rowR + len[r]!++;
      col[q] = c; rv[q] = v;
      q = c * nR + len[c]!++;
      col[q] = r; rv[q] = v;
    }
  }
  const w = MCC.wR, w1 = 1 - MCC.wR, den = nR - 1;
  let cur = lam, next = nxt;
  for (let it = 0; it < MCC.nRel; it++) {
    for (let r = 0; r < nR; r++) {
      let s = 0;
      const e = r * nR + len[r]!;
      for (let q = r * nR; q < e; q++) s += rv[q]! * cur[col[q]!]!;
      next[r] = w * cur[r]! + (w1 * s) / den;
    }
    const t = cur; cur = next; next = t;
  }
  lam = cur; nxt = next;
}
