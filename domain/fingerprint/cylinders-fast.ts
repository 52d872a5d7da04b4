/**
 * A faster builder of the MCC bit cylinders, giving the same cylinders as `buildCylinders` in mcc.ts
 * (MCC §3, Cappelli, Ferrara, Maltoni, IEEE TPAMI 32(12) 2010, parameters from `MCC`): the same
 * arithmetic in the same order, so the bits are identical (test/unit/fingerprint/index.test.ts checks it
 * on FVC2002 templates). It is faster because it
 * - tests a cell against the convex hull by its cross products first, and measures the distance to the
 *   hull only for cells outside it (the result is the same: inside or within ω);
 * - skips, by squared distance with a margin, the neighbours farther than 3σS from a cell before the
 *   exact `Math.hypot` (most of them: only those within 28 px of the cell contribute);
 * - reuses its buffers and packs the result into one ArrayBuffer per template.
 * Used wherever many templates are built at once: a tenant's gallery (gallery.ts) and the benchmark's
 * synthetic gallery (bench/fingerprint-gallery.ts, 100,000 templates); it measured about
 * 4× less CPU than `buildCylinders` per FVC2002 template (see docs/fingerprint.md, Benchmarks).
 */
import { BUILD_DEFAULTS, convexHull, CW, erf, MCC, reversibleType, withGeometry, type CylinderSet } from './mcc.ts';
import { angleDiff, type FingerprintTemplate } from './template.ts';

const LW = CW / MCC.ND;

/** Cell offsets (u, v) in the cylinder frame of the cells inside radius R, and their cell numbers. */
const CELLS = (() => {
  const { R, NS } = MCC;
  const ds = (2 * R) / NS;
  const u: number[] = [], v: number[] = [], cell: number[] = [];
  for (let i = 0; i < NS; i++) for (let j = 0; j < NS; j++) {
    const uu = ds * (i + 0.5 - NS / 2), vv = ds * (j + 0.5 - NS / 2);
    if (Math.hypot(uu, vv) > R) continue;
    u.push(uu); v.push(vv); cell.push(i * NS + j);
  }
  return { u: Float64Array.from(u), v: Float64Array.from(v), cell: Int32Array.from(cell), n: cell.length };
})();

/**
 * The bit cylinders of a template, identical to mcc.ts `buildCylinders` (same fields and layout: CW words
 * of bits and LW words of validity mask per kept cylinder; x, y, angle of its minutia). All arrays are
 * views on one ArrayBuffer.
 */
export function buildCylindersFast(t: Pick<FingerprintTemplate, 'minutiae'>): CylinderSet {
  const ms = t.minutiae;
  const nm = ms.length;
  const { R, ND, sigmaS, sigmaD, muPsi, omega } = MCC;
  const dd = (2 * Math.PI) / ND;
  const mx = new Float64Array(nm), my = new Float64Array(nm);
  for (let i = 0; i < nm; i++) { mx[i] = ms[i]!.x; my[i] = -ms[i]!.y; }
  const hull = convexHull(ms.map((_, i) => [mx[i]!, my[i]!] as [number, number]));
  const hn = hull.length;
  const hx = new Float64Array(hn), hy = new Float64Array(hn), ex = new Float64Array(hn), ey = new Float64Array(hn), l2 = new Float64Array(hn);
  for (let i = 0; i < hn; i++) {
    const a = hull[i]!, b = hull[(i + 1) % hn]!;
    hx[i] = a[0]; hy[i] = a[1]; ex[i] = b[0] - a[0]; ey[i] = b[1] - a[1]; l2[i] = ex[i]! * ex[i]! + ey[i]! * ey[i]!;
  }
  const omega2lo = omega * omega * (1 - 1e-9), omega2hi = omega * omega * (1 + 1e-9);
  const nearHull = (x: number, y: number): boolean => {
    if (hn === 0) return false;
    if (hn === 1) return Math.hypot(x - hx[0]!, y - hy[0]!) <= omega;
    if (hn >= 3) {
      let inside = true;
      for (let i = 0; i < hn; i++) if (ex[i]! * (y - hy[i]!) - ey[i]! * (x - hx[i]!) < 0) { inside = false; break; }
      if (inside) return true;
    }
    // Squared distances decide unless within a rounding margin of ω; then the exact hypot as mcc.ts.
    let best2 = Infinity;
    for (let i = 0; i < hn; i++) {
      const e2 = l2[i]!, axd = x - hx[i]!, ayd = y - hy[i]!;
      const tt = e2 > 0 ? Math.max(0, Math.min(1, (axd * ex[i]! + ayd * ey[i]!) / e2)) : 0;
      const qx = x - hx[i]! - tt * ex[i]!, qy = y - hy[i]! - tt * ey[i]!;
      const d2 = qx * qx + qy * qy;
      if (d2 < best2) best2 = d2;
    }
    if (best2 < omega2lo) return true;
    if (best2 > omega2hi) return false;
    let best = Infinity;
    for (let i = 0; i < hn; i++) {
      const e2 = l2[i]!, axd = x - hx[i]!, ayd = y - hy[i]!;
      const tt = e2 > 0 ? Math.max(0, Math.min(1, (axd * ex[i]! + ayd * ey[i]!) / e2)) : 0;
      best = Math.min(best, Math.hypot(x - hx[i]! - tt * ex[i]!, y - hy[i]! - tt * ey[i]!));
    }
    return best <= omega;
  };
  const gsNorm = 1 / (sigmaS * Math.sqrt(2 * Math.PI));
  const reach = 3 * sigmaS;
  const reach2 = reach * reach * 1.000001;
  const far = R + reach;
  const twoSig2 = 2 * sigmaS * sigmaS;
  const minValid = MCC.minVC * CELLS.n;
  const bitsAll = new Uint32Array(nm * CW);
  const maskAll = new Uint32Array(nm * LW);
  const keep: number[] = [];
  const nbr = new Int32Array(nm);
  const cd = new Float64Array(nm * ND);
  const used = new Uint8Array(nm);
  const sums = new Float64Array(ND);
  const sd = sigmaD * Math.SQRT2;
  for (let a = 0; a < nm; a++) {
    const m = ms[a]!;
    const cos = Math.cos(m.angle), sin = Math.sin(m.angle);
    let nn = 0;
    for (let b = 0; b < nm; b++) if (b !== a && Math.hypot(mx[b]! - mx[a]!, my[b]! - my[a]!) <= far) nbr[nn++] = b;
    if (nn < MCC.minM) continue;
    for (let q = 0; q < nn; q++) {
      const dth = angleDiff(m.angle, ms[nbr[q]!]!.angle);
      // A neighbour whose direction is known only up to π also contributes at dth + π (mcc.ts BUILD_DEFAULTS).
      const rw = reversibleType(ms[nbr[q]!]!.type) ? BUILD_DEFAULTS.reversedNeighbourWeight : 0;
      for (let k = 0; k < ND; k++) {
        const phik = -Math.PI + (k + 0.5) * dd;
        const alpha = angleDiff(phik, dth);
        const g = 0.5 * (erf((alpha + dd / 2) / sd) - erf((alpha - dd / 2) / sd));
        if (rw > 0) {
          const beta = angleDiff(phik, dth + Math.PI);
          cd[q * ND + k] = g + rw * 0.5 * (erf((beta + dd / 2) / sd) - erf((beta - dd / 2) / sd));
        } else cd[q * ND + k] = g;
      }
      used[q] = 0;
    }
    const slot = keep.length;
    const bo = slot * CW, mo = slot * LW;
    let valid = 0;
    for (let c = 0; c < CELLS.n; c++) {
      const u = CELLS.u[c]!, v = CELLS.v[c]!;
      const px = mx[a]! + cos * u - sin * v;
      const py = my[a]! + sin * u + cos * v;
      if (!nearHull(px, py)) continue;
      const cell = CELLS.cell[c]!;
      maskAll[mo + (cell >> 5)] = (maskAll[mo + (cell >> 5)]! | (1 << (cell & 31))) >>> 0;
      valid++;
      sums.fill(0);
      for (let q = 0; q < nn; q++) {
        const b = nbr[q]!;
        const dx = mx[b]! - px, dy = my[b]! - py;
        if (dx * dx + dy * dy > reach2) continue;
        const d = Math.hypot(dx, dy);
        if (d > reach) continue;
        used[q] = 1;
        const gs = gsNorm * Math.exp(-(d * d) / twoSig2);
        const o = q * ND;
        for (let k = 0; k < ND; k++) sums[k]! += gs * cd[o + k]!;
      }
      for (let k = 0; k < ND; k++) {
        if (sums[k]! >= muPsi) {
          const w = bo + k * LW + (cell >> 5);
          bitsAll[w] = (bitsAll[w]! | (1 << (cell & 31))) >>> 0;
        }
      }
    }
    let contributing = 0;
    for (let q = 0; q < nn; q++) contributing += used[q]!;
    if (valid < minValid || contributing < MCC.minM) {
      bitsAll.fill(0, bo, bo + CW);
      maskAll.fill(0, mo, mo + LW);
      continue;
    }
    keep.push(a);
  }
  const n = keep.length;
  const buf = new ArrayBuffer(n * (CW + LW) * 4);
  const bits = new Uint32Array(buf, 0, n * CW);
  const mask = new Uint32Array(buf, n * CW * 4, n * LW);
  bits.set(bitsAll.subarray(0, n * CW));
  mask.set(maskAll.subarray(0, n * LW));
  const kept = keep.map((a) => ms[a]!);
  return withGeometry(n, kept.map((m) => m.x), kept.map((m) => m.y), kept.map((m) => m.angle), bits, mask, kept.map((m) => (reversibleType(m.type) ? 1 : 0)));
}
