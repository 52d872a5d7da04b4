/**
 * Geometric verification of an MCC comparison: how many of the two prints' minutiae agree under the best
 * rigid alignment that one of the most similar cylinder pairs proposes, relative to the minutiae in the
 * region the two prints share after that alignment. mcc.ts multiplies its relaxation score by the square
 * root of this agreement (`MatchOptions.verify`).
 *
 * Method: a consolidation step in the sense of Cappelli, Ferrara, Maltoni (IEEE TPAMI 32(12) 2010, §5,
 * "consolidation") and of Medina-Pérez et al., "Improving fingerprint verification using minutiae
 * triplets" (Sensors 12(3) 2012, M3gl's global matching): each of the `hypotheses` cylinder pairs of
 * highest local similarity aligns A onto B (the rotation that makes the two minutiae's directions equal and
 * the translation that puts one on the other); A's minutiae are paired with B's greedily (A in order,
 * each with the nearest free B minutia within `distance` pixels and `angle` radians of direction); the
 * alignment pairing the most is kept. Its count is divided by the smaller of the two overlap counts: A's
 * minutiae that land inside B's convex hull (enlarged by `margin` px) and B's that land inside A's, at
 * least `minOverlap`, so a partial print is judged on the area it shares with the other and not on its
 * whole minutiae count. The constants were set on FVC2002 DB1-DB3 B (docs/fingerprint.md, "Accuracy",
 * geometric verification), checked on the ISO templates beside the images and on DB4.
 */
import { convexHull } from './hull.ts';
import type { CylinderSet } from './mcc.ts';

export const VERIFY = {
  /** Alignment hypotheses tried: the cylinder pairs of highest local similarity. */
  hypotheses: 5,
  /** Largest distance of two agreeing minutiae after alignment, pixels at 500 ppi. */
  distance: 15,
  /** Largest direction difference of two agreeing minutiae after alignment, radians. */
  angle: Math.PI / 6,
  /** A minutia within this many pixels outside the other print's hull still counts as in the overlap. */
  margin: 10,
  /** Smallest overlap count the agreement is divided by (a tiny overlap does not make a high ratio). */
  minOverlap: 8,
} as const;

/**
 * Edges of a set's convex hull in the y-up frame (x, −y), 4 floats per edge: a vertex (x, y) and the
 * edge's unit inward normal (nx, ny). Cached per set (about 200 bytes for a 40-minutia print).
 */
const hullCache = new WeakMap<CylinderSet, Float32Array>();
function hullEdges(S: CylinderSet): Float32Array {
  let e = hullCache.get(S);
  if (e) return e;
  const pts: Array<[number, number]> = [];
  for (let i = 0; i < S.n; i++) pts.push([S.x[i]!, -S.y[i]!]);
  const h = convexHull(pts); // counter-clockwise: the inside is on the left of each edge
  e = new Float32Array(h.length >= 3 ? 4 * h.length : 0);
  if (h.length >= 3) {
    for (let i = 0; i < h.length; i++) {
      const a = h[i]!, b = h[(i + 1) % h.length]!;
      const ex = b[0] - a[0], ey = b[1] - a[1], l = Math.hypot(ex, ey) || 1;
      e[4 * i] = a[0]; e[4 * i + 1] = a[1]; e[4 * i + 2] = -ey / l; e[4 * i + 3] = ex / l;
    }
  }
  hullCache.set(S, e);
  return e;
}

/** True when (x, y) (y-up) is inside the hull or less than `m` outside every edge's line (no hull: true). */
function inHull(e: Float32Array, x: number, y: number, m: number): boolean {
  for (let k = 0; k < e.length; k += 4) if ((x - e[k]!) * e[k + 2]! + (y - e[k + 1]!) * e[k + 3]! < -m) return false;
  return true;
}

/* Scratch (grown on demand): positions (y-up) and direction cosines and sines of both sets, B's taken marks. */
let ax = new Float64Array(128), ay = new Float64Array(128), ac = new Float64Array(128), as = new Float64Array(128);
let bx = new Float64Array(128), by = new Float64Array(128), bc = new Float64Array(128), bs = new Float64Array(128);
let taken = new Uint8Array(128);

/**
 * Agreement of A and B (count / max(minOverlap, min(overlap of A, overlap of B)), 0 when nothing agrees;
 * it can exceed 1 when minutiae near the hulls' edges agree). The hypotheses are given as k pairs of
 * cylinder indices (`hi[h]` in A, `hj[h]` in B) with `hflip[h]` = 1 when A's minutia is taken turned by π
 * (MatchOptions.reversible). Not re-entrant (module scratch buffers).
 */
export function alignmentAgreement(A: CylinderSet, B: CylinderSet, hi: Int32Array, hj: Int32Array, hflip: Uint8Array, k: number): number {
  const nA = A.n, nB = B.n;
  if (ax.length < nA) { const m = 2 * nA; ax = new Float64Array(m); ay = new Float64Array(m); ac = new Float64Array(m); as = new Float64Array(m); }
  if (bx.length < nB) { const m = 2 * nB; bx = new Float64Array(m); by = new Float64Array(m); bc = new Float64Array(m); bs = new Float64Array(m); taken = new Uint8Array(m); }
  for (let i = 0; i < nA; i++) { ax[i] = A.x[i]!; ay[i] = -A.y[i]!; ac[i] = Math.cos(A.angle[i]!); as[i] = Math.sin(A.angle[i]!); }
  for (let j = 0; j < nB; j++) { bx[j] = B.x[j]!; by[j] = -B.y[j]!; bc[j] = Math.cos(B.angle[j]!); bs[j] = Math.sin(B.angle[j]!); }
  const { distance, margin, minOverlap } = VERIFY;
  const d2 = distance * distance, cosT = Math.cos(VERIFY.angle);
  let best = 0, bco = 1, bsi = 0, btx = 0, bty = 0;
  for (let h = 0; h < k; h++) {
    const i0 = hi[h]!, j0 = hj[h]!;
    const phi = B.angle[j0]! - A.angle[i0]! - (hflip[h] ? Math.PI : 0);
    const co = Math.cos(phi), si = Math.sin(phi);
    const tx = bx[j0]! - (co * ax[i0]! - si * ay[i0]!), ty = by[j0]! - (si * ax[i0]! + co * ay[i0]!);
    taken.fill(0, 0, nB);
    let n = 0;
    for (let i = 0; i < nA; i++) {
      const X = co * ax[i]! - si * ay[i]! + tx, Y = si * ax[i]! + co * ay[i]! + ty;
      const ca = ac[i]! * co - as[i]! * si, sa = as[i]! * co + ac[i]! * si;
      let bj = -1, bd = d2;
      for (let j = 0; j < nB; j++) {
        const dx = bx[j]! - X;
        if (dx > distance || dx < -distance || taken[j] === 1) continue;
        const dy = by[j]! - Y, dd = dx * dx + dy * dy;
        if (dd > bd || bc[j]! * ca + bs[j]! * sa < cosT) continue;
        bd = dd; bj = j;
      }
      if (bj >= 0) { taken[bj] = 1; n++; }
    }
    if (n > best) { best = n; bco = co; bsi = si; btx = tx; bty = ty; }
  }
  if (best === 0) return 0;
  const eA = hullEdges(A), eB = hullEdges(B);
  let oA = 0, oB = 0;
  for (let i = 0; i < nA; i++) if (inHull(eB, bco * ax[i]! - bsi * ay[i]! + btx, bsi * ax[i]! + bco * ay[i]! + bty, margin)) oA++;
  for (let j = 0; j < nB; j++) {
    const x = bx[j]! - btx, y = by[j]! - bty;
    if (inHull(eA, bco * x + bsi * y, -bsi * x + bco * y, margin)) oB++;
  }
  return best / Math.max(minOverlap, Math.min(oA, oB));
}
