/**
 * The verification decision rule for `POST /v1/face/verify` (one rule, calibrated on
 * `../shared/data/faces/labels.csv` by `scripts/face-eval.ts`; figures in docs/face.md).
 *
 * distance  = fused distance, the mean of each descriptor's distance divided by its reference scale:
 *             ( euclidean(face-api 128-d) / 0.55 + cosine(faceres 1024-d, ArcFace-aligned) / 0.5 ) / 2
 *             (each term is about 1 where its own model separates same from different people)
 * verified  = distance <= threshold
 * confidence = 1 / (1 + exp(-|threshold - distance| / VERIFY_RULE.scale)): 0.5 at the threshold,
 *              towards 1 the further the distance lies from it on either side (confidence in the
 *              decision taken, whichever it is).
 */
export interface VerifyDecision {
  verified: boolean;
  /** Decision confidence 0-1 (see module doc). */
  confidence: number;
  /** Distance between the faces (lower = more similar). */
  distance: number;
  /** Threshold used. */
  threshold: number;
  /** Which descriptors/metric produced `distance`. */
  model: string;
  /** The two component distances (audit): face-api 128-d Euclidean, faceres 1024-d cosine. */
  components: { faceapi128_euclidean: number; faceres1024_cosine: number };
}

/** Calibrated operating point (see docs/face.md, "Verification"). */
export const VERIFY_RULE = {
  model: 'fused:faceapi128-euclidean+faceres1024-cosine',
  /** Reference scale of the 128-d Euclidean distance (dlib/face-api's usual 0.6 region, measured 0.55-0.62). */
  scale128: 0.55,
  /** Reference scale of the 1024-d cosine distance (measured gap 0.43-0.49). */
  scale1024: 0.5,
  /**
   * Fused threshold. On the labelled set the genuine pairs end at 0.97 and the impostors start at 1.13;
   * the threshold sits near the genuine end of that gap, because a false accept costs more than a
   * retry in KYC and a hard impostor pair outside the set (two women in heavy make-up, one head tilted,
   * from face-api's demo photo) measured 1.02-1.08.
   */
  threshold: 1.0,
  /** Logistic scale of {@link decisionConfidence}: 0.95 confidence 0.15 away from the threshold. */
  scale: 0.05,
} as const;

/** The fused distance of two face's descriptors (see module doc). */
export function fusedDistance(d128: number, cos1024: number): number {
  return (d128 / VERIFY_RULE.scale128 + cos1024 / VERIFY_RULE.scale1024) / 2;
}

/** Euclidean distance; throws a RangeError on different lengths. */
export function euclidean(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError('descriptor lengths differ');
  let s = 0;
  for (let i = 0; i < a.length; i++) { const d = a[i]! - b[i]!; s += d * d; }
  return Math.sqrt(s);
}

/** Cosine distance 1 - cos(a, b) in [0, 2]; throws a RangeError on different lengths. */
export function cosineDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError('descriptor lengths differ');
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) { dot += a[i]! * b[i]!; na += a[i]! * a[i]!; nb += b[i]! * b[i]!; }
  return 1 - dot / (Math.sqrt(na * nb) || 1);
}

/** Decision confidence for a distance against a threshold (see module doc). */
export function decisionConfidence(distance: number, threshold: number, scale: number = VERIFY_RULE.scale): number {
  return 1 / (1 + Math.exp(-Math.abs(threshold - distance) / scale));
}

/** Applies {@link VERIFY_RULE} to two faces' descriptors. */
export function compareDescriptors(
  a: { descriptor128: ArrayLike<number>; descriptor1024: ArrayLike<number> },
  b: { descriptor128: ArrayLike<number>; descriptor1024: ArrayLike<number> },
): VerifyDecision {
  const d128 = euclidean(a.descriptor128, b.descriptor128);
  const cos = cosineDistance(a.descriptor1024, b.descriptor1024);
  const distance = fusedDistance(d128, cos);
  const r4 = (v: number) => Math.round(v * 10000) / 10000;
  return {
    verified: distance <= VERIFY_RULE.threshold,
    confidence: r4(decisionConfidence(distance, VERIFY_RULE.threshold)),
    distance: r4(distance),
    threshold: VERIFY_RULE.threshold,
    model: VERIFY_RULE.model,
    components: { faceapi128_euclidean: r4(d128), faceres1024_cosine: r4(cos) },
  };
}
