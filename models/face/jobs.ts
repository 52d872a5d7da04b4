/**
 * Face job handlers for the inference workers (the face manifest, `apps/capabilities/face.ts`, has the worker import this module lazily).
 * Inputs carry image bytes as `Uint8Array`; outputs are plain structured-clone-able objects. Domain
 * failures are thrown as coded errors (`domain/face/errors.ts`) that the job-queue port turns into
 * `JobFailedError.code/details`.
 *
 * Job names and shapes (stable; `docs/face.md` documents them for the face-matching group):
 * - `face.detect`     {image, minConfidence?, imageName?}            -> DetectJobOutput
 * - `face.descriptor` {image, imageName?, liveness?: {threshold?}}   -> DescriptorJobOutput (+ `liveness` when asked)
 * - `face.verify`     {image1, image2}                               -> VerifyJobOutput
 * - `face.analyze`    {image, attributes?}                           -> AnalyzeJobOutput
 * - `face.landmarks`  {image, model?: '68_point'|'5_point'}          -> LandmarksJobOutput
 * - `face.liveness`   {image, threshold?}                            -> LivenessJobOutput
 * - `face.warmup`     {}                                             -> {threadId, alreadyLoaded, loadMs} (loads the core models)
 */
import { threadId } from 'node:worker_threads';
import { faceError, NO_FACE_SUGGESTIONS } from '../../domain/face/errors.ts';
import { MIN_FACE_SIDE } from '../../domain/face/image-format.ts';
import { lumaCrop, measureQuality, type QualityReport } from '../../domain/face/quality.ts';
import { compareDescriptors, type VerifyDecision } from '../../domain/face/verify.ts';
import { livenessDecision, screenArtefactScore, type LivenessResult } from '../../domain/face/liveness.ts';
import { landmarksFrom5, landmarksFrom68, type LandmarkSet } from '../../domain/face/landmarks.ts';
import { decodeImage } from './image.ts';
import { FaceImage, faceModelsLoaded, loadFaceModels, setDefaultDetector, type Box, type DetectedFace, type DetectorName, type FaceAttributes, type RaceClass } from './engine.ts';
import type { Point } from './align.ts';

/** Default detector score cut-off when the caller gives none. */
export const DEFAULT_MIN_CONFIDENCE = 0.5;
/**
 * A second face counts as "another person in the picture" when its box area is at least this share of
 * the largest face's area; smaller faces (posters, passers-by far behind) are ignored by the
 * single-face operations.
 */
export const SECONDARY_FACE_AREA_RATIO = 0.25;

/** Output of `face.detect`. */
export interface DetectJobOutput {
  width: number; height: number;
  faces: { id: number; region: Box; confidence: number }[];
}

/** Output of `face.descriptor`: one face's descriptors, for verification and face-matching templates. */
export interface DescriptorJobOutput {
  width: number; height: number;
  /** The face the descriptors describe (the only, or only sizeable, face). */
  face: { region: Box; confidence: number; landmarks5: Point[] };
  /** face-api 128-d descriptor, raw (compare with Euclidean distance). */
  descriptor128: number[];
  /** Human faceres 1024-d descriptor on the ArcFace-aligned 224x224 crop, L2-normalised (compare with cosine). */
  descriptor1024: number[];
  quality: QualityReport;
  /**
   * Present when the input asked for it: the `face.liveness` result for the same face, from the same
   * decoded image and detection (so a caller needing both decodes and detects the image once).
   */
  liveness?: LivenessJobOutput;
}

/** Output of `face.verify` (the route adds `processing_time`). */
export interface VerifyJobOutput extends VerifyDecision { face1_detected: boolean; face2_detected: boolean }

/** Output of `face.analyze`. */
export interface AnalyzeJobOutput {
  age?: number;
  gender?: { prediction: string; confidence: number };
  emotion?: { dominant_emotion: string; emotions: FaceAttributes['emotions'] };
  race?: { dominant_race: string; races: Record<RaceClass, number> };
  region: Box;
}

/** Output of `face.landmarks`. */
export interface LandmarksJobOutput { landmarks: LandmarkSet; face_region: Box; model: '68_point' | '5_point' }

/** Output of `face.liveness`. */
export type LivenessJobOutput = LivenessResult & { region: Box };

function bytesOf(v: unknown, name: string): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  throw faceError('unsupported_format', `${name} is missing or not a file`, { image: name });
}

function area(b: Box): number { return b.w * b.h; }

/**
 * Decodes, detects and picks the single face of an image, checking its quality.
 * @throws `unsupported_format`, `image_too_small`, `image_too_large`, `no_face_detected`,
 *   `multiple_faces_detected`, `insufficient_quality`
 */
async function singleFace(bytes: Uint8Array, imageName: string): Promise<{ fi: FaceImage; face: DetectedFace; quality: QualityReport }> {
  const img = await decodeImage(bytes, imageName);
  const fi = await FaceImage.from(img);
  try {
    const faces = await fi.detect(DEFAULT_MIN_CONFIDENCE);
    if (faces.length === 0) {
      throw faceError('no_face_detected', `No face detected in ${imageName}`, { image: imageName, suggestions: [...NO_FACE_SUGGESTIONS] });
    }
    const largest = faces.reduce((a, b) => (area(b.box) > area(a.box) ? b : a));
    const sizeable = faces.filter((f) => area(f.box) >= SECONDARY_FACE_AREA_RATIO * area(largest.box));
    if (sizeable.length > 1) {
      throw faceError('multiple_faces_detected', `${sizeable.length} faces detected in ${imageName}; exactly one is expected`, {
        image: imageName, faces_detected: sizeable.length,
        regions: sizeable.map((f) => f.box),
      });
    }
    const quality = measureQuality(lumaCrop(img.data, img.width, img.height, largest.box), Math.min(largest.box.w, largest.box.h));
    if (quality.failures.length) {
      throw faceError('insufficient_quality', `Face in ${imageName} fails the quality check: ${quality.failures.join(', ')}`, {
        image: imageName, failures: quality.failures, quality,
        limits: { min_face_side: MIN_FACE_SIDE },
      });
    }
    return { fi, face: largest, quality };
  } catch (err) {
    fi.dispose();
    throw err;
  }
}

function l2normalise(v: Float32Array): number[] {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n) || 1;
  const out = new Array<number>(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / n;
  return out;
}

/**
 * Descriptors of the single face of an image (see {@link DescriptorJobOutput}), decoded and detected
 * once. With `options.liveness` the liveness result of the same face is added (threshold default 0.5).
 */
export async function describeFace(bytes: Uint8Array, imageName = 'image', options: { liveness?: { threshold?: number } } = {}): Promise<DescriptorJobOutput> {
  const { fi, face, quality } = await singleFace(bytes, imageName);
  try {
    const d128 = await fi.descriptor128(face);
    const d1024 = await fi.descriptor1024(face);
    const out: DescriptorJobOutput = {
      width: fi.img.width, height: fi.img.height,
      face: { region: face.box, confidence: face.score, landmarks5: face.landmarks5 },
      descriptor128: Array.from(d128),
      descriptor1024: l2normalise(d1024),
      quality,
    };
    if (options.liveness) out.liveness = await livenessOf(fi, face, options.liveness.threshold ?? 0.5);
    return out;
  } finally { fi.dispose(); }
}

/** The `face.liveness` result for `face` of `fi` (models, screen artefacts, decision at `threshold`). */
async function livenessOf(fi: FaceImage, face: DetectedFace, threshold: number): Promise<LivenessJobOutput> {
  const models = await fi.livenessModels(face);
  const screen = screenArtefactScore(fi.img.data, fi.img.width, fi.img.height, face.box);
  return { ...livenessDecision({ ...models, screen }, threshold), region: face.box };
}

const round = (v: number, d = 4) => Math.round(v * 10 ** d) / 10 ** d;

/**
 * Applies the validated configuration to this worker's face models (called once per worker before the
 * first job): `FACE_DETECTOR` picks the detector of the single-face operations.
 */
export function configure(config: { FACE_DETECTOR: DetectorName }): void {
  setDefaultDetector(config.FACE_DETECTOR);
}

/** The job handlers, keyed by job type. */
export const handlers = {
  'face.detect': async (input: { image: Uint8Array; minConfidence?: number; imageName?: string }): Promise<DetectJobOutput> => {
    const name = input.imageName ?? 'image';
    const img = await decodeImage(bytesOf(input.image, name), name);
    const fi = await FaceImage.from(img);
    try {
      const min = input.minConfidence ?? DEFAULT_MIN_CONFIDENCE;
      // detect lists every face: SSD's better recall is worth its cost here
      const all = await fi.detect(min, 'ssd');
      const faces = all.filter((f) => Math.min(f.box.w, f.box.h) >= MIN_FACE_SIDE);
      if (all.length === 0) {
        throw faceError('no_face_detected', `No face detected in ${name}`, { image: name, suggestions: [...NO_FACE_SUGGESTIONS] });
      }
      if (faces.length === 0) {
        throw faceError('insufficient_quality', `Every face in ${name} is smaller than ${MIN_FACE_SIDE}x${MIN_FACE_SIDE} px`, {
          image: name, failures: ['face_too_small'], limits: { min_face_side: MIN_FACE_SIDE },
        });
      }
      return {
        width: img.width, height: img.height,
        faces: faces.map((f, i) => ({ id: i + 1, region: f.box, confidence: round(f.score) })),
      };
    } finally { fi.dispose(); }
  },

  'face.descriptor': async (input: { image: Uint8Array; imageName?: string; liveness?: { threshold?: number } }): Promise<DescriptorJobOutput> => {
    const name = input.imageName ?? 'image';
    return describeFace(bytesOf(input.image, name), name, { liveness: input.liveness });
  },

  'face.verify': async (input: { image1: Uint8Array; image2: Uint8Array }): Promise<VerifyJobOutput> => {
    const a = await describeFace(bytesOf(input.image1, 'image1'), 'image1');
    const b = await describeFace(bytesOf(input.image2, 'image2'), 'image2');
    return { ...compareDescriptors(a, b), face1_detected: true, face2_detected: true };
  },

  'face.analyze': async (input: { image: Uint8Array; attributes?: string[] }): Promise<AnalyzeJobOutput> => {
    const want = new Set(input.attributes?.length ? input.attributes : ['age', 'gender', 'emotion', 'race']);
    const { fi, face } = await singleFace(bytesOf(input.image, 'image'), 'image');
    try {
      const out: AnalyzeJobOutput = { region: face.box };
      if (want.has('age') || want.has('gender') || want.has('emotion')) {
        const at = await fi.attributes(face);
        if (want.has('age')) out.age = Math.round(at.age);
        if (want.has('gender')) out.gender = { prediction: at.gender.prediction === 'male' ? 'Man' : 'Woman', confidence: round(at.gender.confidence) };
        if (want.has('emotion')) {
          const e = at.emotions;
          const emotions = {
            happy: round(e.happy), neutral: round(e.neutral), surprise: round(e.surprise), sad: round(e.sad),
            angry: round(e.angry), disgust: round(e.disgust), fear: round(e.fear),
          };
          const dominant = Object.entries(at.emotions).reduce((a, b) => (b[1] > a[1] ? b : a))[0];
          out.emotion = { dominant_emotion: dominant, emotions };
        }
      }
      if (want.has('race')) {
        const r = await fi.race(face);
        if (r) out.race = r;
      }
      return out;
    } finally { fi.dispose(); }
  },

  'face.landmarks': async (input: { image: Uint8Array; model?: '68_point' | '5_point' }): Promise<LandmarksJobOutput> => {
    const model = input.model ?? '68_point';
    const { fi, face } = await singleFace(bytesOf(input.image, 'image'), 'image');
    try {
      const W = fi.img.width, H = fi.img.height;
      const landmarks = model === '5_point'
        ? landmarksFrom5(face.landmarks5, face.landmarks68, W, H)
        : landmarksFrom68(face.landmarks68, W, H);
      return { landmarks, face_region: face.box, model };
    } finally { fi.dispose(); }
  },

  /**
   * Loads this worker's core face models and runs their warm-up pass (`FACE_PRELOAD`): `alreadyLoaded` says
   * whether an earlier job had loaded them, `loadMs` how long this job waited for them (wall ms).
   */
  'face.warmup': async (_input: Record<string, never>): Promise<{ threadId: number; alreadyLoaded: boolean; loadMs: number }> => {
    const alreadyLoaded = faceModelsLoaded();
    const t = performance.now();
    await loadFaceModels();
    return { threadId, alreadyLoaded, loadMs: Math.round(performance.now() - t) };
  },

  'face.liveness': async (input: { image: Uint8Array; threshold?: number }): Promise<LivenessJobOutput> => {
    const { fi, face } = await singleFace(bytesOf(input.image, 'image'), 'image');
    try {
      return await livenessOf(fi, face, input.threshold ?? 0.5);
    } finally { fi.dispose(); }
  },
} satisfies Record<string, (input: never) => Promise<unknown>>;
