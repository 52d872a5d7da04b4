/**
 * The 512-d face-matching template and its similarity scale.
 *
 * Template (`fuse-v1`): a weighted fusion of the face group's two descriptors (`models/face/jobs.ts`,
 * job `face.descriptor`):
 * - `descriptor128`: face-api.js (dlib-style ResNet-34) 128-d descriptor, compared by Euclidean distance;
 * - `descriptor1024`: Human `faceres` 1024-d descriptor on the ArcFace-aligned 224x224 crop.
 *
 *   t = [ sqrt(w) * n(d128)  ,  sqrt(1 - w) * n(P * n(d1024)) ]          (128 + 384 = 512 components)
 *
 * where n() is L2 normalisation and P is a fixed 384x1024 matrix with orthonormal rows (a seeded Gaussian
 * matrix, Gram-Schmidt orthonormalised; a Johnson-Lindenstrauss projection, Johnson & Lindenstrauss 1984,
 * Dasgupta & Gupta 2003). Since |t| = 1, cos(t_a, t_b) = w cos(d128_a, d128_b) + (1 - w) cos(P d1024_a,
 * P d1024_b): the template's cosine is the weighted sum of the two descriptors' cosines (the second one
 * through a 384-d random subspace, which preserves cosines up to ~1/sqrt(384) noise).
 * The weight w and the calibration below were chosen on `../shared/data/faces` by
 * `scripts/face-matching-eval.ts`; `docs/face-matching.md` publishes the figures.
 *
 * Similarity: the index scores templates by cosine c in [-1, 1]. The API's `similarity` is a calibrated
 * logistic map s(c) = 1 / (1 + exp(-(A (c - C_EER) + logit(0.6)))), so that s = 0.6 at C_EER, the cosine of
 * the measured equal-error (balanced) operating point, and higher s is more similar. A is set so that the
 * median genuine pair maps to s = 0.9, which spreads the spec's 0.4-0.8 threshold range over the region
 * between the impostor and genuine score distributions. (A class-balanced logistic regression, Platt 1999,
 * was tried: on the near-separable shared set its slope is so steep that 0.4-0.8 collapse onto almost one
 * cosine, so thresholds would lose their meaning; the script prints it for reference.)
 */
import { mulberry32 } from '../shared/mulberry32.ts';

/** Dimension of the stored template (spec "Face embedding": `embeddingDimension` is always 512). */
export const TEMPLATE_DIMENSION = 512;
/** Version tag stored with every enrolled template; a new fusion gets a new tag. */
export const TEMPLATE_VERSION = 'fuse-v1';
const D128 = 128;
const D1024 = 1024;
const PROJECTED = TEMPLATE_DIMENSION - D128; // 384

/** Weight w of the 128-d descriptor's cosine in the template cosine (the 1024-d one gets 1 - w). */
export const FUSION_WEIGHT_128 = 0.8;

/**
 * Calibration of cosine -> similarity: `C_EER` is the template cosine at the equal-error operating point,
 * `A` the logistic slope (per unit cosine). Measured by `scripts/face-matching-eval.ts` on
 * `../shared/data/faces` with {@link FUSION_WEIGHT_128}.
 */
export const CALIBRATION = { A: 31.13, C_EER: 0.8453 } as const;

/** The balanced operating point on the similarity scale (spec: "0.6 recommended and balanced"). */
export const BALANCED_THRESHOLD = 0.6;

/** Descriptors of one face as the face group's `face.descriptor` job returns them. */
export interface FaceDescriptors {
  descriptor128: readonly number[] | Float32Array;
  descriptor1024: readonly number[] | Float32Array;
}

/** Raised when a descriptor has the wrong length or holds non-finite values. */
export class InvalidDescriptorError extends Error {
  override readonly name = 'InvalidDescriptorError';
}

function normalised(v: readonly number[] | Float32Array, expected: number, name: string): Float64Array {
  if (!v || v.length !== expected) throw new InvalidDescriptorError(`${name} must have ${expected} components, got ${v?.length ?? 0}`);
  const out = new Float64Array(expected);
  let n = 0;
  for (let i = 0; i < expected; i++) {
    const x = v[i] as number;
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new InvalidDescriptorError(`${name}[${i}] is not a finite number`);
    out[i] = x;
    n += x * x;
  }
  if (!(n > 0)) throw new InvalidDescriptorError(`${name} is a zero vector`);
  const inv = 1 / Math.sqrt(n);
  for (let i = 0; i < expected; i++) out[i] = (out[i] as number) * inv;
  return out;
}

/** Seed of P for `fuse-v1`; changing it changes every template (new TEMPLATE_VERSION required). */
const PROJECTION_SEED = 0x5e110512;
let projection: Float64Array | null = null;

/** The 384x1024 projection with orthonormal rows (row-major), built once per process (~0.2 s). */
export function projectionMatrix(): Float64Array {
  if (projection) return projection;
  const rand = mulberry32(PROJECTION_SEED);
  const m = new Float64Array(PROJECTED * D1024);
  for (let i = 0; i < m.length; i++) {
    // Box-Muller; the sine branch is unused so each draw uses two uniforms (deterministic either way).
    m[i] = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  }
  // Modified Gram-Schmidt over the rows.
  for (let r = 0; r < PROJECTED; r++) {
    const ro = r * D1024;
    for (let p = 0; p < r; p++) {
      const po = p * D1024;
      let d = 0;
      for (let i = 0; i < D1024; i++) d += (m[ro + i] as number) * (m[po + i] as number);
      for (let i = 0; i < D1024; i++) m[ro + i] = (m[ro + i] as number) - d * (m[po + i] as number);
    }
    let n = 0;
    for (let i = 0; i < D1024; i++) n += (m[ro + i] as number) ** 2;
    const inv = 1 / Math.sqrt(n);
    for (let i = 0; i < D1024; i++) m[ro + i] = (m[ro + i] as number) * inv;
  }
  projection = m;
  return m;
}

/**
 * Builds the 512-d `fuse-v1` template (unit length) from one face's descriptors.
 * @param weight128 fusion weight w of the 128-d descriptor (default {@link FUSION_WEIGHT_128}).
 * @throws InvalidDescriptorError on a wrong length, non-finite or zero descriptor.
 */
export function buildTemplate(d: FaceDescriptors, weight128: number = FUSION_WEIGHT_128): Float32Array {
  if (!(weight128 >= 0 && weight128 <= 1)) throw new InvalidDescriptorError('fusion weight must be in [0, 1]');
  const a = normalised(d.descriptor128, D128, 'descriptor128');
  const b = normalised(d.descriptor1024, D1024, 'descriptor1024');
  const p = projectionMatrix();
  const proj = new Float64Array(PROJECTED);
  let n = 0;
  for (let r = 0; r < PROJECTED; r++) {
    let s = 0;
    const ro = r * D1024;
    for (let i = 0; i < D1024; i++) s += (p[ro + i] as number) * (b[i] as number);
    proj[r] = s;
    n += s * s;
  }
  const t = new Float32Array(TEMPLATE_DIMENSION);
  const wa = Math.sqrt(weight128);
  const wb = Math.sqrt(1 - weight128) / (Math.sqrt(n) || 1);
  for (let i = 0; i < D128; i++) t[i] = wa * (a[i] as number);
  for (let r = 0; r < PROJECTED; r++) t[D128 + r] = wb * (proj[r] as number);
  return t;
}

const logit = (p: number): number => Math.log(p / (1 - p));

/**
 * Maps a template cosine (from the vector index, in [-1, 1]) to the API's `similarity` in (0, 1),
 * rounded to 4 decimals. Monotone increasing; `similarityFromCosine(CALIBRATION.C_EER) = 0.6`.
 */
export function similarityFromCosine(cosine: number, cal: { A: number; C_EER: number } = CALIBRATION): number {
  const z = cal.A * (cosine - cal.C_EER) + logit(BALANCED_THRESHOLD);
  return Math.round((1 / (1 + Math.exp(-z))) * 1e4) / 1e4;
}

/**
 * The smallest cosine whose similarity reaches `threshold` (inverse of {@link similarityFromCosine}):
 * `-Infinity` for threshold 0, `+Infinity` for threshold 1.
 */
export function cosineForThreshold(threshold: number, cal: { A: number; C_EER: number } = CALIBRATION): number {
  if (threshold <= 0) return -Infinity;
  if (threshold >= 1) return Infinity;
  return cal.C_EER + (logit(threshold) - logit(BALANCED_THRESHOLD)) / cal.A;
}

/** Cosine of two equal-length vectors (not assumed unit length). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    s += x * y;
    na += x * x;
    nb += y * y;
  }
  return s / (Math.sqrt(na * nb) || 1);
}
