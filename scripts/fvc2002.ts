/**
 * Where the FVC2002 B subsets are and at which resolution each database was scanned, for the evaluation
 * (scripts/fingerprint-eval.ts), the diagnosis (scripts/fingerprint-diagnose.ts) and the 1:N benchmark's
 * gallery (bench/fingerprint-gallery.ts).
 */

/** The shared data beside the checkout (`../shared/data/fingerprint/fvc2002/`), or `FVC_ROOT` (a worktree elsewhere). */
export const FVC_ROOT = process.env.FVC_ROOT ?? new URL('../../shared/data/fingerprint/fvc2002/', import.meta.url).pathname;

/**
 * Resolution per database in pixels per inch: DB2 was captured at 569 ppi, the others at 500 (Maio et al.,
 * "FVC2002: Second Fingerprint Verification Competition", ICPR 2002, Table 1). Declared so DB2 is resampled to 500.
 */
export const FVC_PPI: Record<string, number> = { DB1_B: 500, DB2_B: 569, DB3_B: 500, DB4_B: 500 };
