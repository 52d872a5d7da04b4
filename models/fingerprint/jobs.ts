/**
 * Fingerprint job handlers for the inference workers (declared by `apps/capabilities/fingerprint.ts`).
 * - `fingerprint.extract` {image, dpi?} -> {template, stats, format}: decode (PNG, JPEG, TIFF, BMP, WSQ),
 *   resample to 500 ppi, extract minutiae (domain/fingerprint/extract.ts), refuse blank, non-fingerprint
 *   and unusable prints with coded errors (domain/fingerprint/errors.ts).
 */
import { fingerprintJobError } from '../../domain/fingerprint/errors.ts';
import { extractMinutiae, type ExtractionDebug, type ExtractionStats } from '../../domain/fingerprint/extract.ts';
import { encodeFieldFromBlocks } from '../../domain/fingerprint/field.ts';
import type { FingerprintTemplate } from '../../domain/fingerprint/template.ts';
import { decodeFingerprint, type FingerprintFormat } from './image.ts';

/** Rejection rules (tuned on FVC2002 prints and the faces/ photos of ../shared/data; docs/fingerprint.md). */
export const REJECT = {
  /** Grey-level standard deviation under this: a uniform image. */
  minContrast: 6,
  /** Foreground under this many pixels (≈ 100 × 100 px at 500 ppi): no print. */
  minForeground: 10_000,
  /** Mean ridge-orientation coherence under this: no ridge pattern (FVC2002 prints: 0.25 and above; a face photo 0.58, so the period coverage below is what refuses faces). */
  minCoherence: 0.2,
  /** Share of foreground blocks with a measurable ridge period under this: no ridge pattern (measured: the 320 FVC2002 B prints 0.774 and above; 35 photos of ../shared/data/faces at most 0.74). */
  minPeriodCoverage: 0.76,
  /** Fewer minutiae than this: unusable. */
  minMinutiae: 8,
} as const;

export interface ExtractJobOutput {
  template: FingerprintTemplate;
  stats: ExtractionStats;
  format: FingerprintFormat;
}

/** Extracts and checks a print (see the module comment). */
export function checkExtraction(template: FingerprintTemplate, stats: ExtractionStats): void {
  if (stats.contrast < REJECT.minContrast || stats.foregroundPixels < REJECT.minForeground) {
    throw fingerprintJobError('blank_image', 'No fingerprint on the image (uniform or almost empty)', { contrast: round(stats.contrast), foreground_pixels: stats.foregroundPixels });
  }
  if (stats.meanCoherence < REJECT.minCoherence || stats.periodCoverage < REJECT.minPeriodCoverage) {
    throw fingerprintJobError('not_a_fingerprint', 'The image has no fingerprint ridge pattern', { coherence: round(stats.meanCoherence), period_coverage: round(stats.periodCoverage) });
  }
  if (template.minutiae.length < REJECT.minMinutiae) {
    throw fingerprintJobError('insufficient_quality', `Only ${template.minutiae.length} minutiae found; at least ${REJECT.minMinutiae} are required`, { minutiae_count: template.minutiae.length, quality_score: template.quality });
  }
}

function round(v: number): number {
  return Math.round(v * 1000) / 1000;
}

export const handlers = {
  'fingerprint.extract': async (input: { image: Uint8Array; dpi?: number }): Promise<ExtractJobOutput> => {
    if (!(input.image instanceof Uint8Array)) throw fingerprintJobError('missing_image', 'image is missing');
    const img = await decodeFingerprint(input.image, input.dpi);
    const dbg: ExtractionDebug = {};
    const { template, stats } = extractMinutiae(img, dbg);
    checkExtraction(template, stats);
    // The coarse orientation field stored with the template and fused with the minutiae score (field.ts).
    template.field = encodeFieldFromBlocks(dbg.bw!, Math.ceil(img.height / 8), dbg.mask!, dbg.coh!, dbg.vcos!, dbg.vsin!);
    return { template, stats, format: img.format };
  },
} satisfies Record<string, (input: never) => Promise<unknown>>;
