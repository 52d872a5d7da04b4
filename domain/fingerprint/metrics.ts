/**
 * Verification error rates from genuine and impostor score lists (higher score = more similar), as
 * defined by the FVC protocol (Maio, Maltoni, Cappelli, Wayman, Jain, "FVC2002: Second Fingerprint
 * Verification Competition", ICPR 2002): FMR(t) = share of impostor scores ≥ t, FNMR(t) = share of
 * genuine scores < t; EER where they cross (mean of the two at the closest threshold);
 * FMR100 / FMR1000 = lowest FNMR with FMR ≤ 1% / 0.1%; ZeroFMR = lowest FNMR with FMR = 0.
 */
export interface ErrorRates {
  eer: number;
  fmr100: number;
  fmr1000: number;
  zeroFmr: number;
  /** Threshold at the EER. */
  eerThreshold: number;
}

export function errorRates(genuine: readonly number[], impostor: readonly number[]): ErrorRates {
  const thresholds = [...new Set([...genuine, ...impostor, Infinity])].sort((a, b) => a - b);
  const g = [...genuine].sort((a, b) => a - b);
  const im = [...impostor].sort((a, b) => a - b);
  const below = (arr: number[], t: number) => {
    let lo = 0, hi = arr.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (arr[mid]! < t) lo = mid + 1; else hi = mid; }
    return lo;
  };
  let eer = 1, eerT = 0, bestGap = Infinity;
  let fmr100 = 1, fmr1000 = 1, zeroFmr = 1;
  for (const t of thresholds) {
    const fnmr = below(g, t) / g.length;
    const fmr = (im.length - below(im, t)) / im.length;
    const gap = Math.abs(fnmr - fmr);
    if (gap < bestGap) { bestGap = gap; eer = (fnmr + fmr) / 2; eerT = t; }
    if (fmr <= 0.01) fmr100 = Math.min(fmr100, fnmr);
    if (fmr <= 0.001) fmr1000 = Math.min(fmr1000, fnmr);
    if (fmr === 0) zeroFmr = Math.min(zeroFmr, fnmr);
  }
  return { eer, fmr100, fmr1000, zeroFmr, eerThreshold: eerT };
}

/** ROC points (FMR, FNMR) over every distinct threshold. */
export function rocPoints(genuine: readonly number[], impostor: readonly number[]): Array<{ fmr: number; fnmr: number; t: number }> {
  const ts = [...new Set([...genuine, ...impostor])].sort((a, b) => a - b);
  return ts.map((t) => ({ t, fmr: impostor.filter((s) => s >= t).length / impostor.length, fnmr: genuine.filter((s) => s < t).length / genuine.length }));
}
