/**
 * Passive single-image liveness (presentation-attack detection, ISO/IEC 30107-1 terms: a "bona fide"
 * face vs a print or screen replay presented to the camera).
 *
 * Signals, each 0-1 with 1 = looks live:
 * - `texture_analysis`: Human's `antispoof` CNN (128x128 face crop) - skin/print/screen texture;
 * - `depth_analysis`: Human's `liveness` CNN (32x32 crop): a single RGB image has no depth channel,
 *   this model scores the cues a flat presentation leaves (flat shading, no parallax-consistent
 *   background); it measures no depth directly;
 * - `motion_analysis`: a single still image carries no motion. The field reports the recapture signal
 *   below (1 - {@link screenArtefactScore}): the traces a filmed display or a photographed print leave
 *   in one frame, periodic pixel-grid / moire peaks in the frequency spectrum and the loss of fine
 *   (high-frequency) detail.
 * `anti_spoofing_score` = weighted mean of the three ({@link LIVENESS_WEIGHTS}); `is_live` =
 * score >= threshold; `confidence` = |score - threshold| scaled to 0.5-1 (confidence in the decision).
 */

/** Raw inputs to the liveness decision. */
export interface LivenessSignals {
  /** Human antispoof CNN output 0-1 (1 = real). */
  antispoof: number;
  /** Human liveness CNN output 0-1 (1 = live). */
  liveness: number;
  /** Screen/print artefact score 0-1 (1 = strong periodic artefacts). */
  screen: number;
}

/** The liveness result of the spec (without `processing_time`). */
export interface LivenessResult {
  is_live: boolean;
  confidence: number;
  anti_spoofing_score: number;
  threshold: number;
  checks: { texture_analysis: number; depth_analysis: number; motion_analysis: number };
}

/**
 * Weights of the three checks in `anti_spoofing_score`. On the seven `faces/antispoofing` samples the
 * two CNNs did not separate live from attack (P(live > spoof) 0.17 and 0.58) while the recapture signal
 * did, so it carries most of the weight (docs/face.md, "Liveness").
 */
export const LIVENESS_WEIGHTS = { texture: 0.25, depth: 0.15, motion: 0.6 } as const;

/** Combines the signals into the spec's liveness result at `threshold` (0-1). */
export function livenessDecision(s: LivenessSignals, threshold = 0.5): LivenessResult {
  const c = (v: number) => Math.min(1, Math.max(0, Number.isFinite(v) ? v : 0));
  const texture = c(s.antispoof), depth = c(s.liveness), motion = c(1 - s.screen);
  const W = LIVENESS_WEIGHTS;
  const score = (W.texture * texture + W.depth * depth + W.motion * motion) / (W.texture + W.depth + W.motion);
  const r = (v: number) => Math.round(v * 10000) / 10000;
  const margin = score >= threshold ? (score - threshold) / Math.max(1e-9, 1 - threshold) : (threshold - score) / Math.max(1e-9, threshold);
  return {
    is_live: score >= threshold,
    confidence: r(0.5 + 0.5 * Math.min(1, margin)),
    anti_spoofing_score: r(score),
    threshold,
    checks: { texture_analysis: r(texture), depth_analysis: r(depth), motion_analysis: r(motion) },
  };
}

/** In-place radix-2 complex FFT (Cooley-Tukey); `re.length` must be a power of two. */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) { [re[i], re[j]] = [re[j]!, re[i]!]; [im[i], im[j]] = [im[j]!, im[i]!]; }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    const wr = Math.cos(ang), wi = Math.sin(ang);
    for (let i = 0; i < n; i += len) {
      let cr = 1, ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = i + k, b = a + len / 2;
        const tr = re[b]! * cr - im[b]! * ci, ti = re[b]! * ci + im[b]! * cr;
        re[b] = re[a]! - tr; im[b] = im[a]! - ti;
        re[a] = re[a]! + tr; im[a] = im[a]! + ti;
        const ncr = cr * wr - ci * wi; ci = cr * wi + ci * wr; cr = ncr;
      }
    }
  }
}

/** Magnitude spectrum of an n x n real grid (Hann-windowed, mean removed), row major, DC at [0]. */
export function magnitudeSpectrum(g: Float64Array, n: number): Float64Array {
  let mean = 0;
  for (const v of g) mean += v;
  mean /= g.length;
  const re = new Float64Array(n * n), im = new Float64Array(n * n);
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1));
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) re[y * n + x] = (g[y * n + x]! - mean) * w[y]! * w[x]!;
  const rr = new Float64Array(n), ri = new Float64Array(n);
  for (let y = 0; y < n; y++) {
    rr.set(re.subarray(y * n, y * n + n)); ri.set(im.subarray(y * n, y * n + n));
    fft(rr, ri);
    re.set(rr, y * n); im.set(ri, y * n);
  }
  for (let x = 0; x < n; x++) {
    for (let y = 0; y < n; y++) { rr[y] = re[y * n + x]!; ri[y] = im[y * n + x]!; }
    fft(rr, ri);
    for (let y = 0; y < n; y++) { re[y * n + x] = rr[y]!; im[y * n + x] = ri[y]!; }
  }
  const mag = new Float64Array(n * n);
  for (let i = 0; i < n * n; i++) mag[i] = Math.hypot(re[i]!, im[i]!);
  return mag;
}

/** Frequency features of a native-resolution luma patch. */
export interface SpectrumFeatures {
  /** Peak-to-median ratio (log10) of the strongest isolated peak in the 0.15-0.5 cycles/px band. */
  peak: number;
  /** Share of the non-DC spectral energy above 0.25 cycles/px. */
  highFreq: number;
}

/**
 * Computes {@link SpectrumFeatures} of an n x n luma grid. A peak is a bin at least as strong as its 8
 * neighbours; its strength is measured against the median magnitude of its frequency ring (+-0.02),
 * so the natural 1/f fall-off of photographs does not count as a peak.
 */
export function spectrumFeatures(g: Float64Array, n: number): SpectrumFeatures {
  const mag = magnitudeSpectrum(g, n);
  const f = (i: number) => (i <= n / 2 ? i : i - n) / n; // cycles per pixel
  const rings = new Map<number, number[]>();
  const ringOf = (r: number) => Math.round(r / 0.02);
  let total = 0, high = 0;
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) {
    if (x === 0 && y === 0) continue;
    const r = Math.hypot(f(x), f(y));
    const e = mag[y * n + x]! ** 2;
    total += e; if (r > 0.25) high += e;
    const k = ringOf(r);
    let arr = rings.get(k); if (!arr) { arr = []; rings.set(k, arr); } arr.push(mag[y * n + x]!);
  }
  const medians = new Map<number, number>();
  for (const [k, arr] of rings) { arr.sort((a, b) => a - b); medians.set(k, arr[arr.length >> 1]! || 1e-9); }
  let peak = 0;
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) {
    const fx = f(x), fy = f(y);
    const r = Math.hypot(fx, fy);
    if (r < 0.15 || r > 0.5) continue;
    // skip the two axes: windowed image borders and JPEG block edges put energy there in any photo
    if (Math.abs(fx) < 2 / n || Math.abs(fy) < 2 / n) continue;
    const v = mag[y * n + x]!;
    let isMax = true;
    for (let dy = -1; dy <= 1 && isMax; dy++) for (let dx = -1; dx <= 1; dx++) {
      if (!dx && !dy) continue;
      if (mag[((y + dy + n) % n) * n + ((x + dx + n) % n)]! > v) { isMax = false; break; }
    }
    if (!isMax) continue;
    const ratio = Math.log10(v / medians.get(ringOf(r))!);
    if (ratio > peak) peak = ratio;
  }
  return { peak, highFreq: total > 0 ? high / total : 0 };
}

/** Side of the native-resolution patch analysed (power of two). */
export const SCREEN_PATCH = 128;

/**
 * Logistic mapping of the FFT peak ratio (log10) to 0-1. Centre between the live/print images
 * (0.60-0.71) and the screen replay (1.06) of `faces/antispoofing` (docs/face.md, "Liveness").
 */
export const SCREEN_PEAK_MAP = { centre: 0.9, slope: 0.05 } as const;
/**
 * Logistic mapping of log10(high-frequency share) to a recapture score (lower share = more likely a
 * recaptured print or screen, which loses fine detail). Centre log10(0.0008): between the live images
 * (0.0009-0.017) and three of the four attacks (0.0003-0.0004) of `faces/antispoofing`.
 */
export const SCREEN_HF_MAP = { centre: Math.log10(0.0008), slope: 0.12 } as const;

/**
 * Screen / print (recapture) artefact score 0-1 of the face region: the luma of a native-resolution
 * (not resampled, so moire and pixel-grid frequencies survive) square patch centred on the face box,
 * side {@link SCREEN_PATCH} (or the largest power of two inside the box), through
 * {@link spectrumFeatures}; the larger of the periodic-peak score ({@link SCREEN_PEAK_MAP}) and the
 * missing-detail score ({@link SCREEN_HF_MAP}).
 */
export function screenArtefactScore(
  rgb: Uint8Array, width: number, height: number, box: { x: number; y: number; w: number; h: number },
): number {
  const f = screenFeatures(rgb, width, height, box);
  const peak = 1 / (1 + Math.exp(-(f.peak - SCREEN_PEAK_MAP.centre) / SCREEN_PEAK_MAP.slope));
  const hf = 1 / (1 + Math.exp((Math.log10(Math.max(1e-9, f.highFreq)) - SCREEN_HF_MAP.centre) / SCREEN_HF_MAP.slope));
  return Math.max(peak, hf);
}

/** The raw {@link SpectrumFeatures} behind {@link screenArtefactScore}. */
export function screenFeatures(
  rgb: Uint8Array, width: number, height: number, box: { x: number; y: number; w: number; h: number },
): SpectrumFeatures {
  let n = SCREEN_PATCH;
  while (n > 16 && (n > box.w || n > box.h)) n >>= 1;
  const cx = Math.round(box.x + box.w / 2), cy = Math.round(box.y + box.h / 2);
  const x0 = Math.max(0, Math.min(width - n, cx - n / 2)), y0 = Math.max(0, Math.min(height - n, cy - n / 2));
  const g = new Float64Array(n * n);
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) {
    const xx = Math.min(width - 1, x0 + x), yy = Math.min(height - 1, y0 + y);
    const o = (yy * width + xx) * 3;
    g[y * n + x] = 0.299 * rgb[o]! + 0.587 * rgb[o + 1]! + 0.114 * rgb[o + 2]!;
  }
  return spectrumFeatures(g, n);
}
