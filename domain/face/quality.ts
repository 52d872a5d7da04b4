/**
 * Face image quality measure behind `insufficient_quality` (spec "Errors > Face").
 *
 * Computed on the face box only, converted to luma (ITU-R BT.601 weights 0.299/0.587/0.114) and
 * resampled to a fixed 112x112 grid so the numbers do not depend on the photo's resolution:
 * - `face_size`: the smaller side of the face box in original pixels; under 80 px fails (spec Limits);
 * - `sharpness`: variance of the 4-neighbour Laplacian (Pech-Pacheco et al. 2000, "Diatom autofocusing
 *   in brightfield microscopy", the usual variance-of-Laplacian focus measure), luma 0-255; under
 *   {@link QUALITY_LIMITS.minSharpness} fails as blurred;
 * - `brightness`: mean luma 0-255; outside [minBrightness, maxBrightness] fails as under/over-exposed;
 * - `clipped`: share of pixels at luma <= 5 or >= 250; above maxClipped fails as badly exposed.
 * `score` (0-1) summarises the four as the minimum of their margins, for `quality_score`-style use.
 */
export interface QualityReport {
  face_size: number;
  sharpness: number;
  brightness: number;
  clipped: number;
  /** 0-1; 0 when any check fails. */
  score: number;
  /** The failed checks: `face_too_small`, `blurred`, `underexposed`, `overexposed`. */
  failures: string[];
}

/**
 * Limits of the quality measure. Measured by `scripts/face-eval.ts` on the 75 labelled faces of
 * `../shared/data/faces` (grey 150x150 crops included): their sharpness runs from 39 (p5 86, median
 * 614), so 12 passes all of them, while the same faces blurred on the grid by a Gaussian of sigma 1 px
 * fail in 1/75 cases, of sigma 2 px in 63/75 and of sigma 3 px in 75/75 (docs/face.md, "Quality").
 */
export const QUALITY_LIMITS = {
  minFaceSide: 80,
  minSharpness: 12,
  minBrightness: 35,
  maxBrightness: 225,
  maxClipped: 0.35,
} as const;

/** Size of the luma grid the measure runs on. */
export const QUALITY_GRID = 112;

/** BT.601 luma of the RGB pixel at byte offset `o`. */
function luma(rgb: Uint8Array, o: number): number {
  return 0.299 * rgb[o]! + 0.587 * rgb[o + 1]! + 0.114 * rgb[o + 2]!;
}

/**
 * Resamples the box of an RGB image (HWC, 3 channels) into a `size`x`size` luma grid (bilinear).
 */
export function lumaCrop(
  rgb: Uint8Array, width: number, height: number,
  box: { x: number; y: number; w: number; h: number }, size = QUALITY_GRID,
): Float32Array {
  const out = new Float32Array(size * size);
  const sx = box.w / size, sy = box.h / size;
  for (let j = 0; j < size; j++) {
    const fy = Math.min(height - 1, Math.max(0, box.y + (j + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy), y1 = Math.min(height - 1, y0 + 1), dy = fy - y0;
    for (let i = 0; i < size; i++) {
      const fx = Math.min(width - 1, Math.max(0, box.x + (i + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx), x1 = Math.min(width - 1, x0 + 1), dx = fx - x0;
      // the four taps' luma, written out: a closure here was allocated once per grid point (4 MB of
      // garbage per image, measured with the sampling heap profiler), same arithmetic and order
      const l00 = luma(rgb, (y0 * width + x0) * 3), l10 = luma(rgb, (y0 * width + x1) * 3);
      const l01 = luma(rgb, (y1 * width + x0) * 3), l11 = luma(rgb, (y1 * width + x1) * 3);
      out[j * size + i] = (1 - dy) * ((1 - dx) * l00 + dx * l10) + dy * ((1 - dx) * l01 + dx * l11);
    }
  }
  return out;
}

/** Variance of the 4-neighbour Laplacian over the interior of a square luma grid. */
export function laplacianVariance(g: Float32Array, size: number): number {
  let s = 0, s2 = 0, n = 0;
  for (let y = 1; y < size - 1; y++) {
    for (let x = 1; x < size - 1; x++) {
      const i = y * size + x;
      const v = g[i - 1]! + g[i + 1]! + g[i - size]! + g[i + size]! - 4 * g[i]!;
      s += v; s2 += v * v; n++;
    }
  }
  const m = s / n;
  return s2 / n - m * m;
}

/**
 * Measures a face's quality from its luma grid and box size.
 * @param luma output of {@link lumaCrop} (size `QUALITY_GRID`)
 * @param faceSide smaller side of the face box in original-image pixels
 */
export function measureQuality(luma: Float32Array, faceSide: number, size = QUALITY_GRID): QualityReport {
  const L = QUALITY_LIMITS;
  let sum = 0, clipped = 0;
  for (let i = 0; i < luma.length; i++) { const v = luma[i]!; sum += v; if (v <= 5 || v >= 250) clipped++; }
  const brightness = sum / luma.length;
  const clip = clipped / luma.length;
  const sharpness = laplacianVariance(luma, size);
  const failures: string[] = [];
  if (faceSide < L.minFaceSide) failures.push('face_too_small');
  if (sharpness < L.minSharpness) failures.push('blurred');
  if (brightness < L.minBrightness || (clip > L.maxClipped && brightness < 128)) failures.push('underexposed');
  if (brightness > L.maxBrightness || (clip > L.maxClipped && brightness >= 128)) failures.push('overexposed');
  const margins = [
    Math.min(1, faceSide / (2 * L.minFaceSide)),
    Math.min(1, sharpness / (4 * L.minSharpness)),
    Math.min(1, Math.max(0, 1 - Math.abs(brightness - 130) / 130)),
    Math.max(0, 1 - clip / L.maxClipped),
  ];
  const score = failures.length ? 0 : Math.round(Math.min(...margins) * 1000) / 1000;
  return {
    face_size: Math.round(faceSide), sharpness: Math.round(sharpness * 10) / 10,
    brightness: Math.round(brightness * 10) / 10, clipped: Math.round(clip * 1000) / 1000, score, failures,
  };
}
