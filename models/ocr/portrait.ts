/**
 * Face detector for the portrait area of an identity document (the `face_in_photo_area` signal).
 *
 * Model: face-api's Tiny Face Detector (`@vladmandic/face-api/model/tiny_face_detector_model.*`, a
 * Tiny-YOLOv2-style single-shot detector, 190 KB of weights), on the tfjs wasm backend the face
 * group already uses (`models/face/tf.ts`); weights read from `node_modules`, loaded on first use and
 * kept for the worker's later jobs. Only this one net is loaded (no landmarks, no recognition net).
 */
import { faceApiModelDir, loadFaceApi, loadTf, type Tf } from '../face/tf.ts';
import type { RgbImage } from './raster.ts';

/** Input side of the detector (face-api accepts multiples of 32; 224 is its documented fast setting). */
export const PORTRAIT_DETECTOR_INPUT = 224;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let loaded: Promise<{ tf: Tf; faceapi: any }> | null = null;

function load(): Promise<{ tf: Tf; faceapi: any }> {
  loaded ??= (async () => {
    const tf = await loadTf();
    const faceapi = loadFaceApi();
    if (!faceapi.nets.tinyFaceDetector.isLoaded) await faceapi.nets.tinyFaceDetector.loadFromDisk(faceApiModelDir());
    return { tf, faceapi };
  })();
  loaded.catch(() => {
    loaded = null;
  });
  return loaded;
}

/**
 * Best face score in an upright crop of the portrait area.
 * @param crop RGB crop (any size; the detector letterboxes it to {@link PORTRAIT_DETECTOR_INPUT})
 * @returns `score` 0..1 of the most confident detection (0 when none above 0.05), its box in crop
 *   pixels, and the time spent in ms (the first call includes loading the model, about 0.8 s)
 */
export async function portraitFaceScore(crop: RgbImage): Promise<{ score: number; box: { x: number; y: number; w: number; h: number } | null; ms: number }> {
  const t0 = performance.now();
  const { tf, faceapi } = await load();
  const x = tf.tensor3d(crop.data, [crop.height, crop.width, 3], 'int32');
  try {
    const res: { score: number; box: { x: number; y: number; width: number; height: number } }[] = await faceapi.detectAllFaces(
      x,
      new faceapi.TinyFaceDetectorOptions({ inputSize: PORTRAIT_DETECTOR_INPUT, scoreThreshold: 0.05 }),
    );
    const best = res.sort((a, b) => b.score - a.score)[0];
    return {
      score: best?.score ?? 0,
      box: best ? { x: best.box.x, y: best.box.y, w: best.box.width, h: best.box.height } : null,
      ms: performance.now() - t0,
    };
  } finally {
    tf.dispose(x);
  }
}
