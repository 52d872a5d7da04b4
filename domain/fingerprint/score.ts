/**
 * Calibrated score 0-100 from the matcher's raw similarity (0-1): a piecewise-linear map through the raw
 * similarities at which the false match rate on the FVC2002 DB1-DB3 extended impostor comparisons (8,640
 * pairs, scripts/fingerprint-eval.ts) is 10%, 1%, 0.1% and 1/8,640 (the highest impostor score seen), placed
 * at 20, 40, 60, 80. So a threshold of 40 means "about 1% FMR", 60 "about 0.1% FMR" (docs/fingerprint.md).
 * Two maps, as the two raw scores differ in scale:
 * - `CALIBRATION`: both templates carry an orientation field (ours, extracted from images): the MCC score
 *   fused with the fields (field.ts `matchTemplates`), derived 2026-11-25 23:47 UTC;
 * - `CALIBRATION_MINUTIAE`: either is an ISO import (no field): `matchCylinders` with its defaults (LSA-R,
 *   δθ = π/3, the geometric verification of mcc-verify.ts), derived 2026-11-25 23:20 UTC.
 * Re-derive them when the extractor or the matcher changes.
 */
export const CALIBRATION: ReadonlyArray<readonly [raw: number, score: number]> = [
  [0, 0],
  [0.0068, 20],
  [0.0102, 40],
  [0.0143, 60],
  [0.0197, 80],
  [0.3, 100],
];

export const CALIBRATION_MINUTIAE: ReadonlyArray<readonly [raw: number, score: number]> = [
  [0, 0],
  [0.0105, 20],
  [0.0138, 40],
  [0.0195, 60],
  [0.0227, 80],
  [0.3, 100],
];

/** Default decision threshold: FMR about 0.1% (FVC's FMR1000 operating point). */
export const DEFAULT_THRESHOLD = 60;

/**
 * Raw similarity (0-1) → calibrated score (0-100, two decimals). `withField`: both templates had an
 * orientation field (the fused score); false (the default) for the minutiae score alone.
 */
export function calibratedScore(raw: number, withField = false): number {
  const c = withField ? CALIBRATION : CALIBRATION_MINUTIAE;
  if (!(raw > 0)) return 0;
  for (let i = 1; i < c.length; i++) {
    const [r1, s1] = c[i]!;
    const [r0, s0] = c[i - 1]!;
    if (raw <= r1) return Math.round((s0 + ((raw - r0) / (r1 - r0)) * (s1 - s0)) * 100) / 100;
  }
  return 100;
}
