/**
 * Minutiae extraction from a greyscale fingerprint image at 500 ppi (pure computation, no IO).
 *
 * The classic pipeline of Maltoni, Maio, Jain and Prabhakar, "Handbook of Fingerprint Recognition"
 * (2nd ed., Springer 2009), chapter 3, in these steps:
 * 1. Orientation field: least-squares gradient method (Kass and Witkin 1987; Bazen and Gerez, IEEE TPAMI
 *    24(7) 2002) on 8×8 blocks, averaged over 5×5 blocks (40×40 px) as doubled-angle vectors; the
 *    coherence (|Σ doubled-angle vector| / Σ gradient energy) is the local quality.
 * 2. Segmentation: block gradient energy against a fraction of the print's 95th percentile, cleaned by
 *    morphology on the block grid (largest component, holes filled).
 * 3. Grey levels normalised per block (NORM_R); ridge period: x-signature of Hong, Wan and Jain (IEEE TPAMI
 *    20(8) 1998) on 32×16 oriented windows.
 * 4. Contextual enhancement: an oriented Gabor filter (Hong et al. 1998) applied separably as a Gaussian
 *    along the ridge (σ = 4 px, Hong's σ) and an even-symmetric Gabor profile across it
 *    (σ = 0.3 × period, frequency 1/period), each sampled with 16 quantised orientations.
 * 5. Binarisation (sign of the filtered image) and thinning (Zhang and Suen, CACM 27(3) 1984), made
 *    8-minimal by deleting staircase corners (see removeStaircases).
 * 6. Minutiae by crossing number (Rutovitz 1966); direction from the smoothed orientation field, its sense
 *    from ridge tracing (12 px) for endings and from the binarised image along the ridge axis for
 *    bifurcations (the stem side); quality from the local coherence and the distance to the print's border.
 * 7. False-minutiae removal (Handbook §3.8; Ratha, Chen and Jain, Pattern Recognition 28(11) 1995):
 *    border minutiae, spurs, short ridges, broken ridges, bridges, and clusters.
 *
 * The numeric thresholds are tuned on FVC2002 DB1-DB4 B subsets (docs/fingerprint.md, with
 * scripts/fingerprint-eval.ts and scripts/fingerprint-diagnose.ts).
 */
import { normAngle, type FingerprintTemplate, type Minutia } from './template.ts';

const TWO_PI = 2 * Math.PI;

/** A greyscale image, row major, 0-255 (dark ridges on a light background). */
export interface GrayImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Measurements of the extraction, used for the quality score and to refuse non-fingerprints. */
export interface ExtractionStats {
  /** Foreground area in pixels. */
  foregroundPixels: number;
  /** Mean orientation coherence (0-1) over foreground blocks. */
  meanCoherence: number;
  /** Median ridge period in pixels (500 ppi prints: about 8-11). */
  ridgePeriod: number;
  /** Share (0-1) of foreground blocks where a ridge period was measured. */
  periodCoverage: number;
  /** Standard deviation of the grey levels over the whole image. */
  contrast: number;
}

export interface ExtractionResult {
  template: FingerprintTemplate;
  stats: ExtractionStats;
}

/** Block side in pixels of the orientation field and the segmentation. */
export const BLOCK = 8;
const NA = 16; // quantised orientations of the filters
/** Minutiae closer than this many blocks (16 px) to the background are dropped (tuned: 1 block doubled the EER on DB1). */
const BORDER = 2;
/**
 * Minutiae in the outermost kept ring of blocks (BORDER blocks from the background) need at least this
 * orientation coherence (tuned on FVC2002 DB1-DB3 with scripts/fingerprint-diagnose.ts: 87-97% of the
 * minutiae there had no ISO-template counterpart; ext. EER average 3.93 → 3.22%, 0.5 gave 3.57%, dropping
 * the whole ring 3.57%).
 */
const BORDER_COH = 0.7;
/** Endings whose ridge would run out of the print within this many pixels are border cuts (tuned on FVC2002 DB1). */
const EXTEND = 32;
/** σ of the Gaussian along the ridge, px (Hong, Wan, Jain 1998: σ = 4). */
const SIG_ALONG = 4;
/** Orientation smoothing radius in blocks (5 × 5 blocks = 40 × 40 px). */
const ORI_R = 2;
/** σ of the Gabor profile across the ridge as a share of the ridge period (tuned: 0.3 beat 0.25 and 0.35 with the speck clean-up, 0.35 beat 0.5 before; Hong's ≈0.44). */
const SIG_ACROSS = 0.3;
/**
 * Binary components (ridge specks, or pores and holes inside ridges) of at most this many pixels are flipped
 * before thinning, so they give no short ridges or loop bifurcations (tuned on FVC2002: DB1 ext. EER
 * 11.78 → 8.93%, DB3 20.72 → 19.28%; 20 and 50 px within 0.4 point).
 */
const SPECK = 30;
/**
 * Radius in blocks of the window of the local grey-level normalisation (0: each 8×8 block by its own mean and
 * standard deviation). Tuned on FVC2002 B with the extended protocol: 0 against 1 (3×3 blocks, 24 px) lowered
 * the EER on DB1 / DB2 / DB3 / DB4 from 2.50 / 3.22 / 5.72 / 3.96% to 2.50 / 1.39 / 4.28 / 1.80%; 2 (40 px) gave
 * 1.50 / 2.50 / 5.72 / 2.90%. A small window follows the contrast of wet (dark, smudged) and dry areas.
 */
const NORM_R = 0;
/** Two minutiae closer than this (px) are both dropped as a cluster (tuned on FVC2002 DB1/DB3: 4 beat 2, 6 and 9). */
const CLUSTER = 4;

/** Intermediate images for diagnosis (scripts/fingerprint-diagnose.ts): filled in when passed. */
export interface ExtractionDebug {
  /** Thinned ridges and the binarised image, w × h, 1 = ridge. */
  skel?: Uint8Array;
  bin?: Uint8Array;
  /** Block grid (side BLOCK px, `bw` blocks a row): foreground mask, distance to the background in blocks, coherence 0-1. */
  bw?: number;
  mask?: Uint8Array;
  bdist?: Float32Array;
  coh?: Float32Array;
  /** Ridge orientation per block as its doubled-angle unit vector (cos 2θ, sin 2θ), θ in image coordinates (y down). */
  vcos?: Float32Array;
  vsin?: Float32Array;
  counts?: Record<string, number>;
  /** Every crossing-number candidate; `why` names the false-minutiae rule that dropped it. */
  cands?: Array<{ x: number; y: number; keep: boolean; type: string; why?: string }>;
}

/**
 * Extracts the minutiae of a 500 ppi print.
 * @returns the template (minutiae in image pixels, ISO angle convention) and extraction statistics.
 */
export function extractMinutiae(img: GrayImage, debug?: ExtractionDebug): ExtractionResult {
  const { width: w, height: h } = img;
  const bw = Math.ceil(w / BLOCK);
  const bh = Math.ceil(h / BLOCK);
  const nb = bw * bh;
  const { f, contrast } = toFloat(img);

  // 1. Gradients and block sums.
  const { bxx, bxy, bee, bsum, bsq, bcnt } = blockGradients(f, w, h, bw, nb);
  // Smoothed fields.
  const sxx = boxBlocks(bxx, bw, bh, ORI_R);
  const sxy = boxBlocks(bxy, bw, bh, ORI_R);
  const see = boxBlocks(bee, bw, bh, ORI_R);
  const coh = new Float32Array(nb);
  for (let b = 0; b < nb; b++) coh[b] = (see[b] as number) > 1e-6 ? Math.hypot(sxx[b] as number, sxy[b] as number) / (see[b] as number) : 0;

  // 2. Segmentation.
  const energy = boxBlocks(bee, bw, bh, 1);
  const sorted = Float32Array.from(energy).sort();
  const p95 = sorted[Math.floor(0.95 * (nb - 1))] as number;
  const cohS = boxBlocks(coh, bw, bh, 1);
  let mask: Uint8Array = new Uint8Array(nb);
  for (let b = 0; b < nb; b++) mask[b] = (energy[b] as number) > 0.06 * p95 && p95 > 200 && (cohS[b] as number) > 0.12 ? 1 : 0;
  mask = cleanMask(mask, bw, bh);
  const bdist = blockDistance(mask, bw, bh);

  // Ridge orientation per block (image coordinates, y down): gradient angle + 90°.
  const vcos = new Float32Array(nb);
  const vsin = new Float32Array(nb);
  for (let b = 0; b < nb; b++) {
    const t = 0.5 * Math.atan2(sxy[b] as number, sxx[b] as number) + Math.PI / 2;
    vcos[b] = Math.cos(2 * t);
    vsin[b] = Math.sin(2 * t);
  }

  // Local normalisation: over 3×3 blocks for the ridge period (and the period coverage that refuses
  // non-fingerprints), over (2·NORM_R+1)² blocks for the enhancement.
  const norm = normalise(f, w, h, bw, bh, bsum, bsq, bcnt, mask, 1);
  const normE = normalise(f, w, h, bw, bh, bsum, bsq, bcnt, mask, NORM_R);

  // 3. Ridge period per block, measured on the enhancement's normalisation; the coverage statistic that
  // refuses non-fingerprints (models/fingerprint/jobs.ts) is measured on the 3×3-block one it was set on.
  const { period, periods, fgBlocks, count2: coverage } = ridgePeriods(normE, norm, w, h, bw, bh, mask, vcos, vsin);
  periods.sort((a, b) => a - b);
  const medianPeriod = periods.length ? (periods[periods.length >> 1] as number) : 9;
  // Fill and smooth: mean of measured periods over 5×5 blocks, else the median.
  const pSmooth = smoothPeriods(period, bw, bh, medianPeriod);

  // 4. Enhancement: oriented Gaussian along the ridge, then Gabor profile across it. Only the pixels of
  // foreground blocks are filtered (the rest stay 0), block by block.
  const { bin, ofield } = enhance(normE, w, h, bw, bh, mask, vcos, vsin, pSmooth);

  // 5. Thinning, after removing specks and filling pores (small components of either colour).
  { dropSmall(bin, w, h, 1, SPECK); dropSmall(bin, w, h, 0, SPECK); }
  const skel = thin(bin, w, h);
  removeStaircases(skel, w, h);
  if (debug) Object.assign(debug, { skel, bin, bw, mask, bdist, coh, vcos, vsin });

  // 6. Minutiae by crossing number, away from the image edge.
  const cands = crossingCandidates(skel, w, h, bw, bdist, coh);
  const isMin = new Int32Array(w * h).fill(-1);
  cands.forEach((c, k) => (isMin[c.i] = k));

  // Directions by tracing, and trace-based false-minutiae rules.
  for (let k = 0; k < cands.length; k++) {
    const c = cands[k] as Cand;
    if (c.type === 'ending') {
      const tr = trace(skel, w, h, c.i, -1, 12, isMin);
      if (tr.hit >= 0 && tr.len < 14) {
        // Spur (ending to bifurcation) or short ridge (ending to ending).
        drop(c, 'spur');
        drop(cands[tr.hit] as Cand, 'spur');
        continue;
      }
      const ex = tr.last % w, ey = (tr.last / w) | 0;
      c.angle = Math.atan2(-(c.y - ey), c.x - ex); // away from the ridge body
      if (tr.len < 4) drop(c, 'short');
    } else {
      const nbrs = neighbours(skel, c.i, w);
      if (nbrs.length !== 3) { drop(c, 'branches'); continue; }
      const vecs: Array<[number, number]> = [];
      let bad = false;
      for (const n of nbrs) {
        const tr = trace(skel, w, h, n, c.i, 12, isMin);
        if (tr.hit >= 0 && tr.hit !== k && tr.len < 10) {
          drop(c, 'bridge');
          drop(cands[tr.hit] as Cand, 'bridge');
          bad = true;
        }
        const ex = tr.last % w, ey = (tr.last / w) | 0;
        vecs.push([ex - c.x, ey - c.y]);
      }
      if (bad) continue;
      const ang = vecs.map(([dx, dy]) => Math.atan2(-dy, dx));
      // The two branches closest in angle are the fork; the bifurcation points along them.
      let best = 0, bestD = Infinity;
      for (let a = 0; a < 3; a++) {
        const d = Math.abs(angDiff(ang[a] as number, ang[(a + 1) % 3] as number));
        if (d < bestD) { bestD = d; best = a; }
      }
      const a1 = ang[best] as number, a2 = ang[(best + 1) % 3] as number;
      c.angle = Math.atan2(Math.sin(a1) + Math.sin(a2), Math.cos(a1) + Math.cos(a2));
    }
  }
  // Broken ridges: two facing endings close together; clusters of minutiae.
  for (let a = 0; a < cands.length; a++) {
    const A = cands[a] as Cand;
    for (let b = a + 1; b < cands.length; b++) {
      const B = cands[b] as Cand;
      const dx = B.x - A.x, dy = B.y - A.y;
      const d2 = dx * dx + dy * dy;
      if (d2 > 16 * 16) continue;
      if (d2 < CLUSTER * CLUSTER) { drop(A, 'cluster'); drop(B, 'cluster'); continue; }
      if (A.type === 'ending' && B.type === 'ending' && Math.abs(angDiff(A.angle, B.angle)) > (2 * Math.PI) / 3) {
        // A points towards B (angle of A→B close to A's direction).
        const ab = Math.atan2(-dy, dx);
        if (Math.abs(angDiff(ab, A.angle)) < Math.PI / 3) { drop(A, 'broken'); drop(B, 'broken'); }
      }
    }
  }
  if (debug) { const cnt: Record<string, number> = { cands: cands.length, kept: cands.filter((c) => c.keep).length }; debug.counts = cnt; debug.cands = cands.map((c) => ({ x: c.x, y: c.y, keep: c.keep, type: c.type, why: c.why })); }
  const minutiae: Minutia[] = [];
  for (const c of cands) {
    if (!c.keep) continue;
    // Direction: the smoothed orientation field (accurate to a few degrees), with the traced direction
    // choosing between its two senses.
    const fieldIso = -(ofield[c.y * w + c.x] as number);
    // A bifurcation points along its stem, into the ridge body (the sense of the FVC2002 ISO/IEC 19794-2
    // templates after iso.ts's turn by π, as for endings), the sense chosen from the binarised image, with the traced fork as the fallback: this agrees
    // with the FVC2002 ISO templates for 91% of paired bifurcations within 15° (was 27%, 68% opposite).
    if (c.type === 'bifurcation') {
      const side = stemSide(bin, w, h, c.x, c.y, fieldIso);
      const fork = Math.abs(angDiff(fieldIso, c.angle)) <= Math.PI / 2 ? fieldIso : fieldIso + Math.PI;
      c.angle = side > 0 ? fieldIso : side < 0 ? fieldIso + Math.PI : fork + Math.PI;
    } else c.angle = Math.abs(angDiff(fieldIso, c.angle)) <= Math.PI / 2 ? fieldIso : fieldIso + Math.PI;
    // An ending whose ridge would continue into the background within EXTEND px was cut by the print's
    // border (or the segmentation), not ended by the finger: drop it.
    if (c.type === 'ending' && runsOut(mask, bw, bh, c.x, c.y, c.angle, EXTEND)) continue;
    const b = ((c.y / BLOCK) | 0) * bw + ((c.x / BLOCK) | 0);
    const border = Math.min(1, (bdist[b] as number) / 4);
    const q = Math.round(100 * Math.min(1, (coh[b] as number) * 1.25) * border);
    minutiae.push({ x: c.x, y: c.y, angle: normAngle(c.angle), type: c.type, quality: Math.max(1, q) });
  }
  minutiae.sort((a, b) => b.quality - a.quality);
  if (minutiae.length > MAX_MINUTIAE) minutiae.length = MAX_MINUTIAE;

  let cohSum = 0;
  for (let b = 0; b < nb; b++) if (mask[b]) cohSum += coh[b] as number;
  const meanCoherence = fgBlocks ? cohSum / fgBlocks : 0;
  const foregroundPixels = fgBlocks * BLOCK * BLOCK;
  const stats: ExtractionStats = { foregroundPixels, meanCoherence, ridgePeriod: medianPeriod, periodCoverage: fgBlocks ? coverage / fgBlocks : 0, contrast };
  return { template: { width: w, height: h, minutiae, quality: qualityScore(stats, minutiae.length) }, stats };
}

// The per-pixel passes of extractMinutiae, each in its own function so that V8 optimises each small hot loop
// on its own (as one function, the first extractions ran several times slower: every optimised entry into
// the long function met code without type feedback further down and was thrown away).

/** The image as floats, and the standard deviation of its grey levels. */
function toFloat(img: GrayImage): { f: Float32Array; contrast: number } {
  const { width: w, height: h } = img;
  const f = new Float32Array(w * h);
  let gsum = 0;
  let gsq = 0;
  for (let i = 0; i < w * h; i++) {
    const v = img.data[i] as number;
    f[i] = v;
    gsum += v;
    gsq += v * v;
  }
  const gmean = gsum / (w * h);
  const contrast = Math.sqrt(Math.max(0, gsq / (w * h) - gmean * gmean));
  return { f, contrast };
}

/**
 * Per block: the sums of grey levels and of their squares and the pixel count, and the means of the Sobel
 * gradient's doubled-angle moments (gx² − gy², 2 gx gy) and energy (gx² + gy²).
 */
function blockGradients(f: Float32Array, w: number, h: number, bw: number, nb: number): { bxx: Float32Array; bxy: Float32Array; bee: Float32Array; bsum: Float32Array; bsq: Float32Array; bcnt: Float32Array } {
  const bxx = new Float32Array(nb);
  const bxy = new Float32Array(nb);
  const bee = new Float32Array(nb);
  const bsum = new Float32Array(nb);
  const bsq = new Float32Array(nb);
  const bcnt = new Float32Array(nb);
  for (let y = 0; y < h; y++) {
    const by = (y / BLOCK) | 0;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const b = by * bw + ((x / BLOCK) | 0);
      const v = f[i] as number;
      bsum[b]! += v;
      bsq[b]! += v * v;
      bcnt[b]! += 1;
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) continue;
      const a = f[i - w - 1] as number, bb = f[i - w] as number, c = f[i - w + 1] as number;
      const d = f[i - 1] as number, e = f[i + 1] as number;
      const g = f[i + w - 1] as number, hh = f[i + w] as number, k = f[i + w + 1] as number;
      const gx = c + 2 * e + k - a - 2 * d - g;
      const gy = g + 2 * hh + k - a - 2 * bb - c;
      bxx[b]! += gx * gx - gy * gy;
      bxy[b]! += 2 * gx * gy;
      bee[b]! += gx * gx + gy * gy;
    }
  }
  for (let b = 0; b < nb; b++) {
    const n = bcnt[b] as number;
    bee[b] = (bee[b] as number) / n;
    bxx[b] = (bxx[b] as number) / n;
    bxy[b] = (bxy[b] as number) / n;
  }
  return { bxx, bxy, bee, bsum, bsq, bcnt };
}

/** Ridge periods filled and smoothed: mean of the measured periods over 5×5 blocks (at least 3), else `medianPeriod`. */
function smoothPeriods(period: Float32Array, bw: number, bh: number, medianPeriod: number): Float32Array {
  const nb = bw * bh;
  const pSmooth = new Float32Array(nb);
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      let s = 0, n = 0;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) {
          const x = bx + dx, y = by + dy;
          if (x < 0 || y < 0 || x >= bw || y >= bh) continue;
          const p = period[y * bw + x] as number;
          if (p > 0) { s += p; n++; }
        }
      }
      pSmooth[by * bw + bx] = n >= 3 ? s / n : medianPeriod;
    }
  }
  return pSmooth;
}

/**
 * Oriented Gaussian along the ridge, then Gabor profile across it, on the foreground blocks of the normalised
 * image; returns the binarised result (1 = ridge) and the interpolated ridge orientation (radians, [0, π/2] or
 * [3π/2, 2π), valid on foreground blocks).
 */
function enhance(normE: Float32Array, w: number, h: number, bw: number, bh: number, mask: Uint8Array, vcos: Float32Array, vsin: Float32Array, pSmooth: Float32Array): { bin: Uint8Array; ofield: Float32Array } {
  const P = 10;
  const pw = w + 2 * P, ph = h + 2 * P;
  const padded = new Float32Array(pw * ph);
  for (let y = 0; y < h; y++) padded.set(normE.subarray(y * w, y * w + w), (y + P) * pw + P);
  const obin = new Uint8Array(w * h);
  const ofield = new Float32Array(w * h);
  // Bilinear interpolation of the doubled-angle field between block centres: the cells and weights of
  // each column and row.
  const ix0 = new Int32Array(w), ix1 = new Int32Array(w), iax = new Float64Array(w);
  for (let x = 0; x < w; x++) {
    const fx = Math.min(bw - 1, Math.max(0, (x - BLOCK / 2) / BLOCK));
    const x0 = Math.floor(fx);
    ix0[x] = x0; ix1[x] = Math.min(bw - 1, x0 + 1); iax[x] = fx - x0;
  }
  const iy0 = new Int32Array(h), iy1 = new Int32Array(h), iay = new Float64Array(h);
  for (let y = 0; y < h; y++) {
    const fy = Math.min(bh - 1, Math.max(0, (y - BLOCK / 2) / BLOCK));
    const y0 = Math.floor(fy);
    iy0[y] = y0; iy1[y] = Math.min(bh - 1, y0 + 1); iay[y] = fy - y0;
  }
  const along = alongKernels(pw);
  const alongOff = along.map((k) => k.off), alongWt = along.map((k) => Float64Array.from(k.wt));
  const p = padded;
  const pass1 = new Float32Array(pw * ph);
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      if (!mask[by * bw + bx]) continue;
      const xe = Math.min(w, bx * BLOCK + BLOCK), ye = Math.min(h, by * BLOCK + BLOCK);
      for (let y = by * BLOCK; y < ye; y++) {
        const ay = iay[y] as number, r0 = (iy0[y] as number) * bw, r1 = (iy1[y] as number) * bw;
        for (let x = bx * BLOCK; x < xe; x++) {
          const ax = iax[x] as number;
          const b00 = r0 + (ix0[x] as number), b01 = r0 + (ix1[x] as number), b10 = r1 + (ix0[x] as number), b11 = r1 + (ix1[x] as number);
          const c = (1 - ay) * ((1 - ax) * (vcos[b00] as number) + ax * (vcos[b01] as number)) + ay * ((1 - ax) * (vcos[b10] as number) + ax * (vcos[b11] as number));
          const s = (1 - ay) * ((1 - ax) * (vsin[b00] as number) + ax * (vsin[b01] as number)) + ay * ((1 - ax) * (vsin[b10] as number) + ax * (vsin[b11] as number));
          // normAngle of a half angle in [−π/2, π/2]: the remainder by 2π is the angle itself.
          const a = 0.5 * Math.atan2(s, c);
          const t = a < 0 ? a + TWO_PI : a;
          const o = Math.round((t / Math.PI) * NA) % NA;
          obin[y * w + x] = o;
          ofield[y * w + x] = t;
          const ao = alongOff[o] as Int32Array, aw = alongWt[o] as Float64Array;
          const b = (y + P) * pw + x + P;
          // The 17 taps summed left to right from 0, as the loop over the kernel did.
          pass1[b] = 0 + p[b + (ao[0] as number)]! * (aw[0] as number) + p[b + (ao[1] as number)]! * (aw[1] as number) + p[b + (ao[2] as number)]! * (aw[2] as number) + p[b + (ao[3] as number)]! * (aw[3] as number) + p[b + (ao[4] as number)]! * (aw[4] as number) + p[b + (ao[5] as number)]! * (aw[5] as number) + p[b + (ao[6] as number)]! * (aw[6] as number) + p[b + (ao[7] as number)]! * (aw[7] as number) + p[b + (ao[8] as number)]! * (aw[8] as number) + p[b + (ao[9] as number)]! * (aw[9] as number) + p[b + (ao[10] as number)]! * (aw[10] as number) + p[b + (ao[11] as number)]! * (aw[11] as number) + p[b + (ao[12] as number)]! * (aw[12] as number) + p[b + (ao[13] as number)]! * (aw[13] as number) + p[b + (ao[14] as number)]! * (aw[14] as number) + p[b + (ao[15] as number)]! * (aw[15] as number) + p[b + (ao[16] as number)]! * (aw[16] as number);
        }
      }
    }
  }
  const across = acrossKernels(pw);
  const bin = new Uint8Array(w * h);
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      const b = by * bw + bx;
      if (!mask[b]) continue;
      const period = Math.max(5, Math.min(15, Math.round(pSmooth[b] as number)));
      const xe = Math.min(w, bx * BLOCK + BLOCK), ye = Math.min(h, by * BLOCK + BLOCK);
      for (let y = by * BLOCK; y < ye; y++) {
        for (let x = bx * BLOCK; x < xe; x++) {
          const o = obin[y * w + x] as number;
          const k = across[o * 16 + period] ?? (across[o * 16 + period] = acrossKernel(pw, o, period));
          const off = k.off, wt = k.wt;
          const base = (y + P) * pw + x + P;
          let s = 0;
          for (let j = 0; j < off.length; j++) s += (pass1[base + (off[j] as number)] as number) * (wt[j] as number);
          bin[y * w + x] = s > 0 ? 1 : 0;
        }
      }
    }
  }
  return { bin, ofield };
}

/** Skeleton pixels with crossing number 1 (ending) or 3 (bifurcation), at least BORDER blocks inside the print. */
function crossingCandidates(skel: Uint8Array, w: number, h: number, bw: number, bdist: Float32Array, coh: Float32Array): Cand[] {
  const cands: Cand[] = [];
  for (let y = 2; y < h - 2; y++) {
    for (let x = 2; x < w - 2; x++) {
      const i = y * w + x;
      if (!skel[i]) continue;
      const b = ((y / BLOCK) | 0) * bw + ((x / BLOCK) | 0);
      if ((bdist[b] as number) < BORDER) continue;
      if ((bdist[b] as number) < BORDER + 1 && (coh[b] as number) < BORDER_COH) continue;
      const cn = crossingNumber(skel, i, w);
      if (cn === 1 || cn === 3) cands.push({ x, y, i, type: cn === 1 ? 'ending' : 'bifurcation', angle: 0, keep: true, q: 0 });
    }
  }
  return cands;
}

/** Most minutiae kept per template (best quality first); FVC prints carry 20-60. */
export const MAX_MINUTIAE = 100;

/**
 * NFIQ-style quality 0-100 (ours, not NIST NFIQ 2): the product of the mean orientation coherence
 * (0.25 → 0, 0.65 → 1), the foreground area (0 → 0, 60,000 px² ≈ a 250×250 px print → 1) and the
 * minutiae count (5 → 0, 25 → 1), each clamped to 0-1.
 */
export function qualityScore(s: ExtractionStats, minutiae: number): number {
  const c = clamp01((s.meanCoherence - 0.25) / 0.4);
  const a = clamp01(s.foregroundPixels / 60_000);
  const m = clamp01((minutiae - 5) / 20);
  return Math.round(100 * Math.cbrt(c * a * m));
}

/**
 * Which sense of the ridge axis at a bifurcation holds its stem: +1 the sense of ISO angle `a`, −1 the other,
 * 0 undecided. Along the axis the stem side is ridge and the fork side is the valley that ends at the
 * bifurcation, so the binarised image is summed at 2-8 px on either side.
 */
function stemSide(bin: Uint8Array, w: number, h: number, x: number, y: number, a: number): number {
  const dx = Math.cos(a), dy = -Math.sin(a);
  let s = 0;
  for (let t = 2; t <= 8; t++) {
    for (const sg of [1, -1]) {
      const px = Math.round(x + sg * t * dx), py = Math.round(y + sg * t * dy);
      if (px < 0 || py < 0 || px >= w || py >= h) continue;
      s += sg * (bin[py * w + px] as number);
    }
  }
  return Math.sign(s);
}

/** True when the ray from (x, y) at ISO angle `a` leaves the block mask within `len` px. */
function runsOut(mask: Uint8Array, bw: number, bh: number, x: number, y: number, a: number, len: number): boolean {
  const dx = Math.cos(a), dy = -Math.sin(a);
  for (let k = 4; k <= len; k += 4) {
    const bx = Math.floor((x + k * dx) / BLOCK), by = Math.floor((y + k * dy) / BLOCK);
    if (bx < 0 || by < 0 || bx >= bw || by >= bh || !mask[by * bw + bx]) return true;
  }
  return false;
}

function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

interface Cand { x: number; y: number; i: number; type: 'ending' | 'bifurcation'; angle: number; keep: boolean; q: number; why?: string }
/** Marks a candidate false, recording the first rule that dropped it (for diagnosis). */
function drop(c: Cand, why: string): void {
  if (c.keep) { c.keep = false; c.why = why; }
}
interface Kernel { off: Int32Array; wt: Float32Array }

function angDiff(a: number, b: number): number {
  let d = (a - b) % (2 * Math.PI);
  if (d <= -Math.PI) d += 2 * Math.PI;
  else if (d > Math.PI) d -= 2 * Math.PI;
  return d;
}

/**
 * Ridge period (px) per foreground block by the x-signature of Hong, Wan and Jain 1998 on a 32 × 16 px window
 * across and along the ridge (0 where none is found, or outside 4-16 px), from the normalised image `norm`;
 * `count` is the number of blocks where a period is found on a second normalised image `norm2` (sampled at
 * the same points in the same pass).
 */
function ridgePeriods(norm: Float32Array, norm2: Float32Array, w: number, h: number, bw: number, bh: number, mask: Uint8Array, vcos: Float32Array, vsin: Float32Array): { period: Float32Array; periods: number[]; fgBlocks: number; count2: number } {
  const nb = bw * bh;
  const period = new Float32Array(nb);
  const periods: number[] = [];
  let fgBlocks = 0, count2 = 0;
  const sig = new Float32Array(32);
  const sig2 = new Float32Array(32);
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      const b = by * bw + bx;
      if (!mask[b]) continue;
      fgBlocks++;
      const t = 0.5 * Math.atan2(vsin[b] as number, vcos[b] as number);
      const rc = Math.cos(t), rs = Math.sin(t); // along the ridge
      const nc = -rs, ns = rc; // across
      const cx = bx * BLOCK + BLOCK / 2, cy = by * BLOCK + BLOCK / 2;
      for (let k = 0; k < 32; k++) {
        let s = 0, s2 = 0;
        let n = 0;
        for (let t2 = -8; t2 < 8; t2++) {
          const x = Math.round(cx + (k - 16) * nc + t2 * rc);
          const y = Math.round(cy + (k - 16) * ns + t2 * rs);
          if (x < 0 || y < 0 || x >= w || y >= h) continue;
          s += norm[y * w + x] as number;
          s2 += norm2[y * w + x] as number;
          n++;
        }
        sig[k] = n ? s / n : 0;
        sig2[k] = n ? s2 / n : 0;
      }
      const p = signaturePeriod(sig);
      if (p > 0) {
        period[b] = p;
        periods.push(p);
      }
      if (signaturePeriod(sig2) > 0) count2++;
    }
  }
  return { period, periods, fgBlocks, count2 };
}

/** The mean distance between the first and last peaks (above 0.1) of an x-signature, if 4-16 px, else 0. */
function signaturePeriod(sig: Float32Array): number {
  let first = -1, last = -1, peaks = 0;
  for (let k = 1; k < 31; k++) {
    const v = sig[k] as number;
    if (v > (sig[k - 1] as number) && v >= (sig[k + 1] as number) && v > 0.1) {
      if (first < 0) first = k;
      last = k;
      peaks++;
    }
  }
  if (peaks < 2) return 0;
  const p = (last - first) / (peaks - 1);
  return p >= 4 && p <= 16 ? p : 0;
}

/**
 * Grey levels normalised per block by the mean and standard deviation of the (2r+1)² blocks around it, ridges
 * positive, 0 outside the mask; w × h.
 */
function normalise(f: Float32Array, w: number, h: number, bw: number, bh: number, bsum: Float32Array, bsq: Float32Array, bcnt: Float32Array, mask: Uint8Array, r: number): Float32Array {
  const mS = boxBlocks(div(bsum, bcnt), bw, bh, r);
  const sqS = boxBlocks(div(bsq, bcnt), bw, bh, r);
  const norm = new Float32Array(w * h);
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      const b = by * bw + bx;
      if (!mask[b]) continue;
      const m = mS[b] as number;
      const sd = Math.sqrt(Math.max(1, (sqS[b] as number) - m * m));
      const xe = Math.min(w, bx * BLOCK + BLOCK), ye = Math.min(h, by * BLOCK + BLOCK);
      for (let y = by * BLOCK; y < ye; y++) for (let x = bx * BLOCK; x < xe; x++) norm[y * w + x] = (m - (f[y * w + x] as number)) / sd; // ridges positive
    }
  }
  return norm;
}

function div(a: Float32Array, b: Float32Array): Float32Array {
  const o = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) o[i] = (a[i] as number) / Math.max(1, b[i] as number);
  return o;
}

/** Mean over a (2r+1)² block neighbourhood, clipped at the grid's edges. */
function boxBlocks(a: Float32Array, bw: number, bh: number, r: number): Float32Array {
  const tmp = new Float32Array(a.length);
  const out = new Float32Array(a.length);
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      let s = 0, n = 0;
      for (let d = -r; d <= r; d++) {
        const xx = x + d;
        if (xx < 0 || xx >= bw) continue;
        s += a[y * bw + xx] as number;
        n++;
      }
      tmp[y * bw + x] = s / n;
    }
  }
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      let s = 0, n = 0;
      for (let d = -r; d <= r; d++) {
        const yy = y + d;
        if (yy < 0 || yy >= bh) continue;
        s += tmp[yy * bw + x] as number;
        n++;
      }
      out[y * bw + x] = s / n;
    }
  }
  return out;
}

/** Morphological clean-up of the block mask: opening, largest 4-connected component, holes filled. */
function cleanMask(m: Uint8Array, bw: number, bh: number): Uint8Array {
  const erode = (a: Uint8Array) => {
    const o = new Uint8Array(a.length);
    for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) {
      const i = y * bw + x;
      o[i] = a[i] && (x === 0 || a[i - 1]) && (x === bw - 1 || a[i + 1]) && (y === 0 || a[i - bw]) && (y === bh - 1 || a[i + bw]) ? 1 : 0;
    }
    return o;
  };
  const dilate = (a: Uint8Array) => {
    const o = new Uint8Array(a.length);
    for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) {
      const i = y * bw + x;
      o[i] = a[i] || (x > 0 && a[i - 1]) || (x < bw - 1 && a[i + 1]) || (y > 0 && a[i - bw]) || (y < bh - 1 && a[i + bw]) ? 1 : 0;
    }
    return o;
  };
  let a = dilate(erode(m));
  a = erode(dilate(a));
  // Largest component.
  const lab = new Int32Array(a.length);
  let bestLabel = 0, bestSize = 0, next = 0;
  const stack: number[] = [];
  for (let i = 0; i < a.length; i++) {
    if (!a[i] || lab[i]) continue;
    next++;
    let size = 0;
    stack.push(i);
    lab[i] = next;
    while (stack.length) {
      const j = stack.pop() as number;
      size++;
      const x = j % bw, y = (j / bw) | 0;
      const ns = [x > 0 ? j - 1 : -1, x < bw - 1 ? j + 1 : -1, y > 0 ? j - bw : -1, y < bh - 1 ? j + bw : -1];
      for (const n of ns) if (n >= 0 && a[n] && !lab[n]) { lab[n] = next; stack.push(n); }
    }
    if (size > bestSize) { bestSize = size; bestLabel = next; }
  }
  const out = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = lab[i] === bestLabel && bestLabel > 0 ? 1 : 0;
  // Fill holes: background not reachable from the grid's border.
  const outside = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const x = i % bw, y = (i / bw) | 0;
    if ((x === 0 || y === 0 || x === bw - 1 || y === bh - 1) && !out[i]) { outside[i] = 1; stack.push(i); }
  }
  while (stack.length) {
    const j = stack.pop() as number;
    const x = j % bw, y = (j / bw) | 0;
    const ns = [x > 0 ? j - 1 : -1, x < bw - 1 ? j + 1 : -1, y > 0 ? j - bw : -1, y < bh - 1 ? j + bw : -1];
    for (const n of ns) if (n >= 0 && !out[n] && !outside[n]) { outside[n] = 1; stack.push(n); }
  }
  for (let i = 0; i < a.length; i++) if (!outside[i]) out[i] = 1;
  return out;
}

/** City-block distance (in blocks) of each foreground block to the background or the grid's edge. */
function blockDistance(m: Uint8Array, bw: number, bh: number): Float32Array {
  const d = new Float32Array(m.length);
  const INF = 1e6;
  for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) {
    const i = y * bw + x;
    if (!m[i]) { d[i] = 0; continue; }
    const edge = x === 0 || y === 0 || x === bw - 1 || y === bh - 1;
    d[i] = edge ? 1 : Math.min(INF, (d[i - 1] as number) + 1, (d[i - bw] as number) + 1);
  }
  for (let y = bh - 1; y >= 0; y--) for (let x = bw - 1; x >= 0; x--) {
    const i = y * bw + x;
    if (!m[i]) continue;
    if (x < bw - 1) d[i] = Math.min(d[i] as number, (d[i + 1] as number) + 1);
    if (y < bh - 1) d[i] = Math.min(d[i] as number, (d[i + bw] as number) + 1);
  }
  return d;
}

const alongCache = new Map<number, Kernel[]>();
/** Gaussian along the ridge (σ = 4 px, ±8 px) for each quantised orientation, as offsets in a row stride `pw`. */
function alongKernels(pw: number): Kernel[] {
  const hit = alongCache.get(pw);
  if (hit) return hit;
  const ks: Kernel[] = [];
  for (let o = 0; o < NA; o++) {
    const t = (o / NA) * Math.PI;
    const c = Math.cos(t), s = Math.sin(t);
    const off: number[] = [], wt: number[] = [];
    let sum = 0;
    for (let k = -8; k <= 8; k++) {
      const g = Math.exp(-(k * k) / (2 * SIG_ALONG * SIG_ALONG));
      off.push(Math.round(k * s) * pw + Math.round(k * c));
      wt.push(g);
      sum += g;
    }
    ks.push({ off: Int32Array.from(off), wt: Float32Array.from(wt.map((v) => v / sum)) });
  }
  if (alongCache.size > 16) alongCache.clear();
  alongCache.set(pw, ks);
  return ks;
}

const acrossCache = new Map<number, Array<Kernel | undefined>>();
/**
 * The across-ridge kernels for a row stride `pw`, indexed by orientation × 16 + period (px, 5-15), filled
 * on first use by {@link acrossKernel}.
 */
function acrossKernels(pw: number): Array<Kernel | undefined> {
  const hit = acrossCache.get(pw);
  if (hit) return hit;
  const ks = new Array<Kernel | undefined>(NA * 16).fill(undefined);
  if (acrossCache.size > 16) acrossCache.clear();
  acrossCache.set(pw, ks);
  return ks;
}

/** Even Gabor profile across the ridge (frequency 1/period, σ = SIG_ACROSS × period), zero mean. */
function acrossKernel(pw: number, o: number, period: number): Kernel {
  const t = (o / NA) * Math.PI;
  const nc = -Math.sin(t), ns = Math.cos(t);
  const sigma = SIG_ACROSS * period;
  const r = Math.min(9, Math.ceil(2 * sigma));
  const off: number[] = [], wt: number[] = [];
  for (let k = -r; k <= r; k++) {
    off.push(Math.round(k * ns) * pw + Math.round(k * nc));
    wt.push(Math.exp(-(k * k) / (2 * sigma * sigma)) * Math.cos((2 * Math.PI * k) / period));
  }
  const mean = wt.reduce((a, b) => a + b, 0) / wt.length;
  return { off: Int32Array.from(off), wt: Float32Array.from(wt.map((v) => v - mean)) };
}

/**
 * Zhang and Suen's deletion test for each 3×3 neighbourhood, per sub-iteration: bit k − 2 of the index is
 * neighbour p_k (p2 north, then clockwise to p9 north-west). A pixel is deleted when it has 2-6 neighbours,
 * exactly one 0→1 transition around them, and p2·p4·p6 = p4·p6·p8 = 0 (first sub-iteration) or
 * p2·p4·p8 = p2·p6·p8 = 0 (second).
 */
const ZS_DELETE = [0, 1].map((step) => Uint8Array.from({ length: 256 }, (_, bits) => {
  const [p2, p3, p4, p5, p6, p7, p8, p9] = Array.from({ length: 8 }, (_, k) => (bits >> k) & 1) as [number, number, number, number, number, number, number, number];
  const B = p2 + p3 + p4 + p5 + p6 + p7 + p8 + p9;
  if (B < 2 || B > 6) return 0;
  const A = (+(!p2 && p3)) + (+(!p3 && p4)) + (+(!p4 && p5)) + (+(!p5 && p6)) + (+(!p6 && p7)) + (+(!p7 && p8)) + (+(!p8 && p9)) + (+(!p9 && p2));
  if (A !== 1) return 0;
  return (step === 0 ? p2 * p4 * p6 === 0 && p4 * p6 * p8 === 0 : p2 * p4 * p8 === 0 && p2 * p6 * p8 === 0) ? 1 : 0;
})) as [Uint8Array, Uint8Array];

/** Zhang-Suen thinning (CACM 27(3) 1984) of a binary image; returns the one-pixel-wide skeleton. */
function thin(src: Uint8Array, w: number, h: number): Uint8Array {
  const a = new Uint8Array(src);
  // Clear the image border so neighbourhoods never leave the image.
  for (let x = 0; x < w; x++) { a[x] = 0; a[(h - 1) * w + x] = 0; }
  for (let y = 0; y < h; y++) { a[y * w] = 0; a[y * w + w - 1] = 0; }
  // The set pixels (compacted after each iteration) and the deletions of a sub-iteration, as typed lists.
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i]) n++;
  const list = new Int32Array(n);
  n = 0;
  for (let i = 0; i < a.length; i++) if (a[i]) list[n++] = i;
  const del = new Int32Array(n);
  let changed = true;
  while (changed) {
    changed = false;
    for (let step = 0; step < 2; step++) {
      let nd = 0;
      const table = step === 0 ? ZS_DELETE[0] : ZS_DELETE[1];
      for (let li = 0; li < n; li++) {
        const i = list[li] as number;
        if (!a[i]) continue;
        const bits = (a[i - w] as number) | ((a[i - w + 1] as number) << 1) | ((a[i + 1] as number) << 2) | ((a[i + w + 1] as number) << 3)
          | ((a[i + w] as number) << 4) | ((a[i + w - 1] as number) << 5) | ((a[i - 1] as number) << 6) | ((a[i - w - 1] as number) << 7);
        if (table[bits]) del[nd++] = i;
      }
      for (let d = 0; d < nd; d++) a[del[d] as number] = 0;
      if (nd) changed = true;
    }
    let m = 0;
    for (let li = 0; li < n; li++) if (a[list[li] as number]) list[m++] = list[li] as number;
    n = m;
  }
  return a;
}

/**
 * Makes a Zhang-Suen skeleton 8-minimal: a pixel with two or more skeleton neighbours that all stay
 * 8-connected to each other without it (a staircase corner, or a pixel of a 2×2 block) is deleted, in raster
 * order. Zhang-Suen leaves such corners, so its skeleton is not minimally 8-connected (Lam, Lee and Suen,
 * "Thinning methodologies: a comprehensive survey", IEEE TPAMI 14(9) 1992); they stopped ridge tracing
 * within 4 px on real endings (the `short` rule dropped 366 of DB1's ISO-paired minutiae before this pass).
 */
function removeStaircases(s: Uint8Array, w: number, h: number): void {
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      if (!s[i]) continue;
      // Neighbour ring in order; components of set pixels under 8-adjacency within the ring.
      let n = 0, bits = 0;
      for (let k = 0; k < 8; k++) if (s[i + (NB_DY[k] as number) * w + (NB_DX[k] as number)]) { n++; bits |= 1 << k; }
      if (n < 2) continue;
      if (RING_COMPONENTS[bits] === 1) s[i] = 0;
    }
  }
}

/** Number of 8-connected components among the set pixels of a 3×3 ring (bit k = neighbour k of NB_DX/NB_DY), the centre excluded. */
function ringComponents(bits: number): number {
  let seen = 0, comps = 0;
  for (let k = 0; k < 8; k++) {
    if (!(bits & (1 << k)) || seen & (1 << k)) continue;
    comps++;
    const stack = [k];
    seen |= 1 << k;
    while (stack.length) {
      const a = stack.pop() as number;
      for (let b = 0; b < 8; b++) {
        if (!(bits & (1 << b)) || seen & (1 << b)) continue;
        if (Math.abs((NB_DX[a] as number) - (NB_DX[b] as number)) <= 1 && Math.abs((NB_DY[a] as number) - (NB_DY[b] as number)) <= 1) { seen |= 1 << b; stack.push(b); }
      }
    }
  }
  return comps;
}

const NB_DX = [0, 1, 1, 1, 0, -1, -1, -1];
const NB_DY = [-1, -1, 0, 1, 1, 1, 0, -1];
/** {@link ringComponents} of each of the 256 rings. */
const RING_COMPONENTS = Uint8Array.from({ length: 256 }, (_, bits) => ringComponents(bits));

function crossingNumber(s: Uint8Array, i: number, w: number): number {
  let cn = 0;
  for (let k = 0; k < 8; k++) {
    const a = s[i + (NB_DY[k] as number) * w + (NB_DX[k] as number)] as number;
    const b = s[i + (NB_DY[(k + 1) % 8] as number) * w + (NB_DX[(k + 1) % 8] as number)] as number;
    cn += Math.abs(a - b);
  }
  return cn / 2;
}

/**
 * The skeleton neighbours of pixel `i` that start distinct branches: 4-neighbours first, and a diagonal
 * neighbour only when no chosen 4-neighbour touches it.
 */
function neighbours(s: Uint8Array, i: number, w: number): number[] {
  const four: number[] = [];
  const diag: number[] = [];
  for (let k = 0; k < 8; k++) {
    const j = i + (NB_DY[k] as number) * w + (NB_DX[k] as number);
    if (!s[j]) continue;
    if (k % 2 === 0) four.push(j);
    else diag.push(j);
  }
  const out = [...four];
  for (const d of diag) {
    const dx = d % w, dy = (d / w) | 0;
    if (!four.some((f) => Math.abs((f % w) - dx) <= 1 && Math.abs(((f / w) | 0) - dy) <= 1)) out.push(d);
  }
  return out;
}

/**
 * Follows the skeleton from `start` (coming from `prev`, −1 for none) for at most `maxLen` pixels.
 * Stops at a junction, a ridge end or another minutia (`hit`, its index in `isMin`).
 */
function trace(s: Uint8Array, w: number, h: number, start: number, prev: number, maxLen: number, isMin: Int32Array): { last: number; len: number; hit: number } {
  const visited = new Set<number>([start]);
  if (prev >= 0) visited.add(prev);
  const origin = prev >= 0 ? prev : start;
  let cur = start;
  let len = prev >= 0 ? 1 : 0;
  if (prev >= 0 && (isMin[start] as number) >= 0) return { last: start, len, hit: isMin[start] as number };
  while (len < maxLen) {
    const x = cur % w, y = (cur / w) | 0;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) break;
    const cand = neighbours(s, cur, w).filter((j) => !visited.has(j) && !isAdjacent(j, origin, w, prev >= 0 && len <= 1));
    if (cand.length !== 1) break;
    const nxt = cand[0] as number;
    // Mark every neighbour of the current pixel as seen so staircase corners are not revisited.
    for (let k = 0; k < 8; k++) visited.add(cur + (NB_DY[k] as number) * w + (NB_DX[k] as number));
    visited.delete(nxt);
    cur = nxt;
    visited.add(cur);
    len++;
    const m = isMin[cur] as number;
    if (m >= 0) return { last: cur, len, hit: m };
  }
  return { last: cur, len, hit: -1 };
}

function isAdjacent(j: number, origin: number, w: number, check: boolean): boolean {
  if (!check) return false;
  return Math.abs((j % w) - (origin % w)) <= 1 && Math.abs(((j / w) | 0) - ((origin / w) | 0)) <= 1;
}

/** Flips every 4-connected component of pixels equal to `v` smaller than `min` pixels to the other value. */
function dropSmall(a: Uint8Array, w: number, h: number, v: number, min: number): void {
  // A copy framed by one pixel of value 2 (neither colour), so the fill needs no bounds checks.
  const pw = w + 2;
  const p = new Uint8Array(pw * (h + 2)).fill(2);
  for (let y = 0; y < h; y++) p.set(a.subarray(y * w, y * w + w), (y + 1) * pw + 1);
  const stack = new Int32Array(w * h);
  const comp = new Int32Array(w * h);
  for (let i0 = 0; i0 < a.length; i0++) {
    const i = i0 + pw + 1 + 2 * ((i0 / w) | 0);
    if (p[i] !== v) continue;
    let nc = 0, ns = 0;
    stack[ns++] = i;
    p[i] = 3; // seen
    while (ns) {
      const j = stack[--ns] as number;
      comp[nc++] = j;
      if (p[j - 1] === v) { p[j - 1] = 3; stack[ns++] = j - 1; }
      if (p[j + 1] === v) { p[j + 1] = 3; stack[ns++] = j + 1; }
      if (p[j - pw] === v) { p[j - pw] = 3; stack[ns++] = j - pw; }
      if (p[j + pw] === v) { p[j + pw] = 3; stack[ns++] = j + pw; }
    }
    if (nc <= min) for (let c = 0; c < nc; c++) { const j = comp[c] as number; a[j - pw - 1 - 2 * (((j - pw) / pw) | 0)] = 1 - v; }
  }
}
