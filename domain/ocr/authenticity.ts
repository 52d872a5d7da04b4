/**
 * Authenticity score of an identity document image: an explainable weighted vote of independent signals.
 *
 * Each signal is `true` (passed), `false` (failed) or `null` (not applicable: e.g. no MRZ on a bill).
 * `confidence = Σ weight(passed) / Σ weight(applicable)`. A document is `is_authentic` when confidence
 * >= 0.7, no *tampering* signal failed and no *presentation-attack* signal failed (screen, photocopy,
 * no face in the portrait area). Tampering signals are data contradictions a genuine card cannot
 * have (MRZ check digits, MRZ vs printed front, CURP vs printed data) and localized recompression
 * (error-level analysis). Weights reflect how hard each check is to pass by accident: checks over
 * printed data with check digits weigh most; image-forensics cues, which real phone photos sometimes
 * trip, weigh least.
 */

/** Names of the signals, each documented where it is computed. */
export type AuthenticitySignal =
  | 'mrz_check_digits'
  | 'mrz_matches_front'
  | 'curp_consistent'
  | 'expected_layout'
  | 'face_in_photo_area'
  | 'no_local_recompression'
  | 'not_screen_capture'
  | 'not_photocopy'
  | 'image_quality';

/** Weight of each signal in the confidence. */
export const SIGNAL_WEIGHTS: Record<AuthenticitySignal, number> = {
  mrz_check_digits: 3,
  mrz_matches_front: 3,
  curp_consistent: 2,
  expected_layout: 2,
  face_in_photo_area: 1.5,
  no_local_recompression: 1,
  not_screen_capture: 1,
  not_photocopy: 1,
  image_quality: 0.5,
};

/** Signals whose failure means tampering (not just a poor capture). */
const TAMPERING: ReadonlySet<AuthenticitySignal> = new Set(['mrz_check_digits', 'mrz_matches_front', 'curp_consistent', 'no_local_recompression']);

/**
 * Presentation-attack signals: a failure means the image is not a capture of the original document
 * (a photo of a screen, a black-and-white copy, a portrait area without a face). Not tampering (the
 * data may be true), but such an image is not authentic whatever the confidence. Each was measured at
 * 0 % false flags on 100 genuine degraded INE fronts (docs/ocr.md, "Authenticity").
 */
const PRESENTATION: ReadonlySet<AuthenticitySignal> = new Set(['not_screen_capture', 'not_photocopy', 'face_in_photo_area']);

/** Version of this scoring (part of `method`). */
export const AUTHENTICITY_VERSION = '1.1.0';

/** The spec's `validity_check` object (standalone endpoint adds `details`). */
export interface ValidityCheck {
  is_authentic: boolean;
  confidence: number;
  tampering_detected: boolean;
  quality_score: number;
  method: string;
  details: { validity_indicators: number; validity_processor_confidence: number; signals: Record<string, boolean | null> };
}

/**
 * Scores the signals.
 * @param signals signal -> passed / failed / not applicable
 * @param qualityScore 0..1 image quality (sharpness and resolution)
 * @param processor names the OCR processor and its version, e.g. `paddleocr-ppocrv4-onnx@1.4.2`
 */
export function scoreAuthenticity(signals: Partial<Record<AuthenticitySignal, boolean | null>>, qualityScore: number, processor: string): ValidityCheck {
  let num = 0;
  let den = 0;
  let passed = 0;
  let tampering = false;
  let presentation = false;
  const out: Record<string, boolean | null> = {};
  for (const [name, weight] of Object.entries(SIGNAL_WEIGHTS) as [AuthenticitySignal, number][]) {
    const v = signals[name] ?? null;
    out[name] = v;
    if (v === null) continue;
    den += weight;
    if (v) {
      num += weight;
      passed++;
    } else if (TAMPERING.has(name)) tampering = true;
    else if (PRESENTATION.has(name)) presentation = true;
  }
  const confidence = den ? Math.round((num / den) * 1000) / 1000 : 0;
  return {
    is_authentic: confidence >= 0.7 && !tampering && !presentation,
    confidence,
    tampering_detected: tampering,
    quality_score: Math.round(Math.max(0, Math.min(1, qualityScore)) * 1000) / 1000,
    method: `sello-authenticity@${AUTHENTICITY_VERSION} (${processor}; icao9303-mrz; renapo-curp; ela-jpeg90+jpeg-ghost; moire-spectrum; hasler-susstrunk-colourfulness; face-api-tiny-face-detector)`,
    details: { validity_indicators: passed, validity_processor_confidence: confidence, signals: out },
  };
}
