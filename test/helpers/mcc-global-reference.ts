/**
 * The global stage of the MCC matcher (domain/fingerprint/mcc.ts `globalScore`: greedy LSA-R or LSS-R
 * pair selection, relaxation, efficiency top-nP, geometric verification of mcc-verify.ts) as it was at
 * commit 1f28577 (2026-11-25), before its speed-up: the reference the faster code must equal (===) on
 * every pair (test/unit/fingerprint/mcc-global.test.ts) and is timed against (bench/fingerprint-global.bench.ts).
 * Frozen: do not optimise. Same inputs as `globalScore` (the local similarities of `localPairs`).
 */
import { MCC, type CylinderSet, type LocalPairs, type MatchOptions } from '../../domain/fingerprint/mcc.ts';
import { convexHull } from '../../domain/fingerprint/hull.ts';

const PI = Math.PI;
const TWO_PI = 2 * Math.PI;

function adiff(a: number, b: number): number {
  let d = a - b;
  if (d > PI) { d -= TWO_PI; if (d > PI) d -= TWO_PI; } else if (d <= -PI) { d += TWO_PI; if (d <= -PI) d += TWO_PI; }
  return d;
}

function sigmoid(v: number, mu: number, tau: number): number {
  return 1 / (1 + Math.exp(-tau * (v - mu)));
}

let selTmp = new Float32Array(1024);
let sel = new Int32Array(1024);
let pi = new Int32Array(64), pj = new Int32Array(64);
let pAng = new Float64Array(64), pBng = new Float64Array(64);
let lam = new Float32Array(64), lam0 = new Float32Array(64), nxt = new Float32Array(64), eff = new Float32Array(64);
let rho = new Float32Array(64 * 64);
let usedA = new Uint8Array(64), usedB = new Uint8Array(64);
let pSel = new Int32Array(64);
let poolVal = new Float32Array(1024), poolPos = new Int32Array(1024);
let sortKey = new Float64Array(256);
const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);

function growPairs(total: number): void {
  if (poolVal.length >= total) return;
  const n = total * 2;
  poolVal = new Float32Array(n); poolPos = new Int32Array(n); selTmp = new Float32Array(n); sel = new Int32Array(n);
}
function growRelax(n: number): void {
  if (pi.length >= n) return;
  const m = n * 2;
  pi = new Int32Array(m); pj = new Int32Array(m); pSel = new Int32Array(m); pAng = new Float64Array(m); pBng = new Float64Array(m);
  lam = new Float32Array(m); lam0 = new Float32Array(m); nxt = new Float32Array(m); eff = new Float32Array(m);
  rho = new Float32Array(m * m);
}

function before(v: Float32Array, p: number, q: number): boolean {
  return v[p]! > v[q]! || (v[p]! === v[q]! && p < q);
}

function topK(v: Float32Array, n: number, k: number, out: Int32Array): number {
  if (k > n) k = n;
  if (k <= 0) return 0;
  const t = selTmp;
  for (let i = 0; i < n; i++) t[i] = v[i]!;
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
  if (sortKey.length < m) sortKey = new Float64Array(m * 2);
  for (let i = 0; i < m; i++) { f32[0] = v[out[i]!]!; sortKey[i] = u32[0]! * 1048576 + (1048575 - out[i]!); }
  const keys = sortKey.subarray(0, m).sort();
  for (let i = 0; i < m; i++) out[i] = 1048575 - (keys[m - 1 - i]! % 1048576);
  return m;
}

function greedyAssignment(val: Float32Array, idx: Int32Array, cnt: number, nA: number, nB: number, k: number, out: Int32Array): number {
  if (usedA.length < nA) usedA = new Uint8Array(nA * 2);
  if (usedB.length < nB) usedB = new Uint8Array(nB * 2);
  usedA.fill(0, 0, nA); usedB.fill(0, 0, nB);
  let m = 0;
  let n = cnt;
  for (let t = 0; t < n; t++) { poolVal[t] = val[t]!; poolPos[t] = t; }
  while (m < k && n > 0) {
    const got = topK(poolVal, n, Math.min(n, 4 * (k - m)), sel);
    for (let r = 0; r < got && m < k; r++) {
      const t = poolPos[sel[r]!]!;
      const i = (idx[t]! / nB) | 0, j = idx[t]! - i * nB;
      if (usedA[i] || usedB[j]) continue;
      usedA[i] = 1; usedB[j] = 1;
      out[m++] = t;
    }
    if (got === n) break;
    let w = 0;
    for (let r = 0; r < n; r++) {
      const t = poolPos[r]!;
      const i = (idx[t]! / nB) | 0, j = idx[t]! - i * nB;
      if (usedA[i] || usedB[j]) continue;
      poolVal[w] = poolVal[r]!; poolPos[w] = t; w++;
    }
    n = w;
  }
  return m;
}

function relax(A: CylinderSet, B: CylinderSet, nR: number): void {
  if (nR < 2) return;
  rho.fill(0, 0, nR * nR);
  for (let r = 0; r < nR; r++) {
    const ar = pi[r]!, br = pj[r]!;
    const axr = A.x[ar]!, ayr = A.y[ar]!, bxr = B.x[br]!, byr = B.y[br]!;
    const tar = pAng[r]!, tbr = pBng[r]!;
    for (let c = r + 1; c < nR; c++) {
      const ac = pi[c]!, bc = pj[c]!;
      const adx = A.x[ac]! - axr, ady = ayr - A.y[ac]!;
      const bdx = B.x[bc]! - bxr, bdy = byr - B.y[bc]!;
      const d1 = Math.abs(Math.sqrt(adx * adx + ady * ady) - Math.sqrt(bdx * bdx + bdy * bdy));
      if (d1 > 12) continue;
      const d2 = Math.abs(adiff(adiff(tar, pAng[c]!), adiff(tbr, pBng[c]!)));
      if (d2 > 0.6) continue;
      const d3 = Math.abs(adiff(adiff(tar, Math.atan2(ady, adx)), adiff(tbr, Math.atan2(bdy, bdx))));
      const v = sigmoid(d1, MCC.muRho1, MCC.tauRho1) * sigmoid(d2, MCC.muRho2, MCC.tauRho2) * sigmoid(d3, MCC.muRho3, MCC.tauRho3);
      rho[r * nR + c] = v;
      rho[c * nR + r] = v;
    }
  }
  for (let it = 0; it < MCC.nRel; it++) {
    for (let r = 0; r < nR; r++) {
      let s = 0;
      const row = r * nR;
      for (let c = 0; c < nR; c++) s += rho[row + c]! * lam[c]!;
      nxt[r] = MCC.wR * lam[r]! + ((1 - MCC.wR) * s) / (nR - 1);
    }
    for (let r = 0; r < nR; r++) lam[r] = nxt[r]!;
  }
}

/* mcc-verify.ts at 1f28577 (VERIFY constants inlined: hypotheses 5, distance 15, angle π/6, margin 10, minOverlap 8). */
interface SetGeometry { edges: Float32Array; xs: Float32Array; ord: Uint16Array }
const geometryCache = new WeakMap<CylinderSet, SetGeometry>();
function geometry(S: CylinderSet): SetGeometry {
  let g = geometryCache.get(S);
  if (g) return g;
  const pts: Array<[number, number]> = [];
  for (let i = 0; i < S.n; i++) pts.push([S.x[i]!, -S.y[i]!]);
  const h = convexHull(pts);
  const edges = new Float32Array(h.length >= 3 ? 4 * h.length : 0);
  if (h.length >= 3) {
    for (let i = 0; i < h.length; i++) {
      const a = h[i]!, b = h[(i + 1) % h.length]!;
      const ex = b[0] - a[0], ey = b[1] - a[1], l = Math.hypot(ex, ey) || 1;
      edges[4 * i] = a[0]; edges[4 * i + 1] = a[1]; edges[4 * i + 2] = -ey / l; edges[4 * i + 3] = ex / l;
    }
  }
  const ord = Uint16Array.from({ length: S.n }, (_, i) => i).sort((a, b) => S.x[a]! - S.x[b]! || a - b);
  g = { edges, xs: Float32Array.from(ord, (i) => S.x[i]!), ord };
  geometryCache.set(S, g);
  return g;
}

function inHull(e: Float32Array, x: number, y: number, m: number): boolean {
  for (let k = 0; k < e.length; k += 4) if ((x - e[k]!) * e[k + 2]! + (y - e[k + 1]!) * e[k + 3]! < -m) return false;
  return true;
}

let taken = new Uint8Array(256);

function alignmentAgreement(A: CylinderSet, B: CylinderSet, hi: Int32Array, hj: Int32Array, hAngle: Float64Array, k: number, reversible = false): number {
  const nA = A.n, nB = B.n;
  if (taken.length < nB) taken = new Uint8Array(2 * nB);
  const gA = geometry(A), gB = geometry(B);
  const { xs, ord } = gB;
  const distance = 15, margin = 10, minOverlap = 8;
  const d2 = distance * distance, maxTurn = Math.PI / 6;
  let best = 0, bco = 1, bsi = 0, btx = 0, bty = 0;
  for (let h = 0; h < k; h++) {
    const i0 = hi[h]!, j0 = hj[h]!;
    const phi = B.angle[j0]! - hAngle[h]!;
    const co = Math.cos(phi), si = Math.sin(phi);
    const x0 = A.x[i0]!, y0 = -A.y[i0]!;
    const tx = B.x[j0]! - (co * x0 - si * y0), ty = -B.y[j0]! - (si * x0 + co * y0);
    taken.fill(0, 0, nB);
    let n = 0;
    for (let i = 0; i < nA && n + nA - i > best; i++) {
      const x = A.x[i]!, y = -A.y[i]!;
      const X = co * x - si * y + tx, Y = si * x + co * y + ty;
      const an = A.angle[i]! + phi;
      let lo = 0, hiq = nB;
      const left = X - distance;
      while (lo < hiq) { const mid = (lo + hiq) >> 1; if (xs[mid]! < left) lo = mid + 1; else hiq = mid; }
      let bj = -1, bd = d2;
      for (let q = lo; q < nB; q++) {
        const dx = xs[q]! - X;
        if (dx > distance) break;
        const j = ord[q]!;
        if (taken[j] === 1) continue;
        const dy = -B.y[j]! - Y, dd = dx * dx + dy * dy;
        if (dd > bd) continue;
        let d = B.angle[j]! - an;
        d -= TWO_PI * Math.round(d / TWO_PI);
        if (reversible && (A.flip[i] === 1 || B.flip[j] === 1)) d -= PI * Math.round(d / PI);
        if (d > maxTurn || d < -maxTurn) continue;
        bd = dd; bj = j;
      }
      if (bj >= 0) { taken[bj] = 1; n++; }
    }
    if (n > best) { best = n; bco = co; bsi = si; btx = tx; bty = ty; }
  }
  if (best === 0) return 0;
  let oA = 0, oB = 0;
  for (let i = 0; i < nA; i++) {
    const x = A.x[i]!, y = -A.y[i]!;
    if (inHull(gB.edges, bco * x - bsi * y + btx, bsi * x + bco * y + bty, margin)) oA++;
  }
  for (let j = 0; j < nB; j++) {
    const x = B.x[j]! - btx, y = -B.y[j]! - bty;
    if (inHull(gA.edges, bco * x + bsi * y, -bsi * x + bco * y, margin)) oB++;
  }
  return best / Math.max(minOverlap, Math.min(oA, oB));
}

/** The global score of 1f28577 on the local similarities `p` (= its matchCylinders(A, B, opts)). Not re-entrant. */
export function referenceGlobalScore(A: CylinderSet, B: CylinderSet, p: LocalPairs, opts: Readonly<MatchOptions>): number {
  const nA = A.n, nB = B.n, cnt = p.count, val = p.val, idx = p.idx, flip = p.turned;
  if (nA === 0 || nB === 0 || cnt === 0) return 0;
  growPairs(cnt);
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
  for (let r = 0; r < nR; r++) eff[r] = lam[r]! / lam0[r]!;
  const np = Math.min(nP, nR);
  const best = topK(eff, nR, np, order);
  let sum = 0;
  for (let r = 0; r < best; r++) sum += lam[order[r]!]!;
  if (!opts.verify) return sum / np;
  return (sum / np) * Math.sqrt(alignmentAgreement(A, B, pi, pj, pAng, Math.min(5, nR), opts.reversible));
}
