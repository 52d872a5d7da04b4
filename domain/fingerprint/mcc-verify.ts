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
 * Per set, cached (about 1 KB for a 40-minutia print): its convex hull's edges in the y-up frame (x, −y),
 * 4 floats per edge (a vertex and the edge's unit inward normal), and its minutiae ordered by x (`ord`;
 * their x, −y, angle and flip in that order in `xs`, `ys`, `an`, `fl`), with `start[b]`, the first of them
 * whose x is at least x0 + b·BUCKET, so the minutiae near a point are found in a step or two; and a disc
 * inside the hull enlarged by VERIFY.margin (centre cx, cy at the hull vertices' mean, radius² r2), in
 * which a point is in the overlap without testing every edge (`inRegion`).
 */
interface SetGeometry { edges: Float32Array; xs: Float32Array; ord: Uint16Array; ys: Float32Array; an: Float32Array; fl: Uint8Array; x0: number; start: Int32Array; cx: number; cy: number; r2: number }
/** Width of the x buckets of SetGeometry.start, pixels. */
const BUCKET = 16;
const geometryCache = new WeakMap<CylinderSet, SetGeometry>();
function geometry(S: CylinderSet): SetGeometry {
  let g = geometryCache.get(S);
  if (g) return g;
  const pts: Array<[number, number]> = [];
  for (let i = 0; i < S.n; i++) pts.push([S.x[i]!, -S.y[i]!]);
  const h = convexHull(pts); // counter-clockwise: the inside is on the left of each edge
  const edges = new Float32Array(h.length >= 3 ? 4 * h.length : 0);
  if (h.length >= 3) {
    for (let i = 0; i < h.length; i++) {
      const a = h[i]!, b = h[(i + 1) % h.length]!;
      const ex = b[0] - a[0], ey = b[1] - a[1], l = Math.hypot(ex, ey) || 1;
      edges[4 * i] = a[0]; edges[4 * i + 1] = a[1]; edges[4 * i + 2] = -ey / l; edges[4 * i + 3] = ex / l;
    }
  }
  const ord = Uint16Array.from({ length: S.n }, (_, i) => i).sort((a, b) => S.x[a]! - S.x[b]! || a - b);
  const xs = Float32Array.from(ord, (i) => S.x[i]!);
  const x0 = S.n > 0 ? xs[0]! : 0;
  const start = new Int32Array(S.n > 0 ? Math.floor((xs[S.n - 1]! - x0) / BUCKET) + 2 : 1);
  for (let b = 0, q = 0; b < start.length; b++) {
    while (q < S.n && xs[q]! < x0 + b * BUCKET) q++;
    start[b] = q;
  }
  // The disc: every edge's line is at least rIn from the centre (the same expression as inHull), so a point
  // within rIn + margin − 0.01 of it is at least −margin + 0.01 (1e-4 px of float32 normals' length error
  // at 1,000 px, far less) on the inner side of every edge: inHull would return true.
  let cx = 0, cy = 0, rIn = Infinity;
  for (const [x, y] of h) { cx += x / h.length; cy += y / h.length; }
  for (let k = 0; k < edges.length; k += 4) rIn = Math.min(rIn, (cx - edges[k]!) * edges[k + 2]! + (cy - edges[k + 1]!) * edges[k + 3]!);
  const r = rIn + VERIFY.margin - 0.01;
  const r2 = edges.length === 0 ? Infinity : r > 0 ? r * r : -1;
  g = { cx, cy, r2, edges, xs, ord, ys: Float32Array.from(ord, (i) => -S.y[i]!), an: Float32Array.from(ord, (i) => S.angle[i]!), fl: Uint8Array.from(ord, (i) => S.flip[i]!), x0, start };
  geometryCache.set(S, g);
  return g;
}

/** inHull(g.edges, x, y, VERIFY.margin), answered from the set's disc when (x, y) lies in it. */
function inRegion(g: SetGeometry, x: number, y: number): boolean {
  const dx = x - g.cx, dy = y - g.cy;
  return dx * dx + dy * dy <= g.r2 || inHull(g.edges, x, y, VERIFY.margin);
}

/** True when (x, y) (y-up) is inside the hull or less than `m` outside every edge's line (no hull: true). */
function inHull(e: Float32Array, x: number, y: number, m: number): boolean {
  for (let k = 0; k < e.length; k += 4) if ((x - e[k]!) * e[k + 2]! + (y - e[k + 1]!) * e[k + 3]! < -m) return false;
  return true;
}

/**
 * The rigid alignment the verification kept, in the y-up frame (x, −y) of the templates' pixels: A's point
 * (x, y) maps to B's (cos·x − sin·y + tx, sin·x + cos·y + ty); `paired` is its count of agreeing minutiae
 * (0: no alignment paired anything, the other fields are then the identity).
 */
export interface Alignment { cos: number; sin: number; tx: number; ty: number; paired: number }

let taken = new Uint8Array(256);
const PI = Math.PI, TWO_PI = 2 * Math.PI;

/**
 * Agreement of A and B (count / max(minOverlap, min(overlap of A, overlap of B)), 0 when nothing agrees;
 * it can exceed 1 when minutiae near the hulls' edges agree). The k hypotheses are pairs of cylinder
 * indices (`hi[h]` in A, `hj[h]` in B) with the direction A's minutia was compared in (`hAngle[h]`: its
 * angle, or the angle + π for a turned cylinder, MatchOptions.reversible). With `reversible`, two minutiae
 * of which one has a reversible direction (`CylinderSet.flip`) agree in either sense. Not re-entrant
 * (module scratch buffer).
 */
export function alignmentAgreement(A: CylinderSet, B: CylinderSet, hi: Int32Array, hj: Int32Array, hAngle: Float64Array, k: number, reversible = false, out?: Alignment): number {
  const nA = A.n, nB = B.n;
  if (taken.length < nB) taken = new Uint8Array(2 * nB);
  const gA = geometry(A), gB = geometry(B);
  const { xs, ys, an: bAn, fl: bFl, start, x0: bx0 } = gB;
  const nBuckets = start.length;
  const { distance, minOverlap } = VERIFY;
  const d2 = distance * distance, maxTurn = VERIFY.angle;
  const ax = A.x, ay = A.y, aAng = A.angle, aFl = A.flip, tk = taken;
  let best = 0, bco = 1, bsi = 0, btx = 0, bty = 0;
  for (let h = 0; h < k; h++) {
    const i0 = hi[h]!, j0 = hj[h]!;
    const phi = B.angle[j0]! - hAngle[h]!;
    const co = Math.cos(phi), si = Math.sin(phi);
    const x0 = A.x[i0]!, y0 = -A.y[i0]!;
    const tx = B.x[j0]! - (co * x0 - si * y0), ty = -B.y[j0]! - (si * x0 + co * y0);
    tk.fill(0, 0, nB); // by position in B's x order
    let n = 0;
    for (let i = 0; i < nA && n + nA - i > best; i++) {
      const x = ax[i]!, y = -ay[i]!;
      const X = co * x - si * y + tx, Y = si * x + co * y + ty;
      const an = aAng[i]! + phi;
      // First of B's minutiae (by x) at X − distance or beyond: from its bucket, then exact.
      const left = X - distance;
      const b = Math.floor((left - bx0) / BUCKET);
      let lo = b <= 0 ? 0 : b >= nBuckets ? nB : start[b]!;
      while (lo < nB && xs[lo]! < left) lo++;
      while (lo > 0 && xs[lo - 1]! >= left) lo--;
      let bq = -1, bd = d2;
      const fa = reversible && aFl[i] === 1;
      for (let q = lo; q < nB; q++) {
        const dx = xs[q]! - X;
        if (dx > distance) break;
        if (tk[q] === 1) continue;
        const dy = ys[q]! - Y, dd = dx * dx + dy * dy;
        if (dd > bd) continue;
        let d = bAn[q]! - an;
        // Within ±maxTurn (< π/2) both roundings are of |d/2π|, |d/π| < 1/2, to ±0: d is left as it is.
        if (d > maxTurn || d < -maxTurn) {
          d -= TWO_PI * Math.round(d / TWO_PI);
          if (reversible && (fa || bFl[q] === 1)) d -= PI * Math.round(d / PI);
          if (d > maxTurn || d < -maxTurn) continue;
        }
        bd = dd; bq = q;
      }
      if (bq >= 0) { tk[bq] = 1; n++; }
    }
    if (n > best) { best = n; bco = co; bsi = si; btx = tx; bty = ty; }
  }
  if (out) { out.cos = bco; out.sin = bsi; out.tx = btx; out.ty = bty; out.paired = best; }
  if (best === 0) return 0;
  let oA = 0, oB = 0;
  for (let i = 0; i < nA; i++) {
    const x = A.x[i]!, y = -A.y[i]!;
    if (inRegion(gB, bco * x - bsi * y + btx, bsi * x + bco * y + bty)) oA++;
  }
  // Only min(oA, oB) matters, and only above minOverlap: B's count stops once it reaches oA.
  for (let j = 0; j < nB && oB < oA && oA > minOverlap; j++) {
    const x = B.x[j]! - btx, y = -B.y[j]! - bty;
    if (inRegion(gA, bco * x + bsi * y, -bsi * x + bco * y)) oB++;
  }
  return best / Math.max(minOverlap, Math.min(oA, oB));
}
