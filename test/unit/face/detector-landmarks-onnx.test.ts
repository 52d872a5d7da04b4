/**
 * face-api's Tiny Face Detector body and 68-point landmark net on onnxruntime-node
 * (`models/face/tiny-detector-onnx.ts`, `models/face/landmark-onnx.ts`) against face-api's own tfjs
 * forward passes, on real face crops (the demo photo face-api ships).
 */
import { describe, expect, it } from 'vitest';
import { faceCrop } from '../../api/face/fixtures.ts';
import { decodeImage } from '../../../models/face/image.ts';
import { loadFaceModels } from '../../../models/face/engine.ts';
import { faceApiModelDir } from '../../../models/face/tf.ts';
import { useOnnxTinyDetector } from '../../../models/face/tiny-detector-onnx.ts';
import { useOnnxLandmarkNet } from '../../../models/face/landmark-onnx.ts';

const CROPS = [['a', 0.6], ['b', 0.35], ['c', 0.5]] as const;

describe('face-api detector and landmark nets on onnxruntime-node', () => {
  it('the tiny detector gives face-api\'s output grid and the same detections', async () => {
    const { tf, faceapi } = await loadFaceModels();
    expect(faceapi.nets.tinyFaceDetector.onnxForward).toBe(true); // the engine's detector is the ONNX one
    const reference = new faceapi.TinyFaceDetector();
    await reference.loadFromDisk(faceApiModelDir());
    const onnx = new faceapi.TinyFaceDetector();
    await onnx.loadFromDisk(faceApiModelDir());
    useOnnxTinyDetector(tf, onnx);
    for (const [which, margin] of CROPS) {
      const img = await decodeImage(await faceCrop(which, margin), 'image');
      const t = tf.tensor3d(img.data, [img.height, img.width, 3], 'int32');
      try {
        const input = await faceapi.toNetInput(t);
        const a = reference.forwardInput(input, 416), b = await onnx.forwardInput(input, 416);
        expect(b.shape).toEqual(a.shape);
        const [av, bv] = [await a.data(), await b.data()] as Float32Array[];
        tf.dispose([a, b]);
        let maxDiff = 0, maxRef = 0;
        for (let i = 0; i < av!.length; i++) { maxDiff = Math.max(maxDiff, Math.abs(av![i]! - bv![i]!)); maxRef = Math.max(maxRef, Math.abs(av![i]!)); }
        expect(maxRef).toBeGreaterThan(1);
        expect(maxDiff).toBeLessThan(1e-5 * maxRef);
        const opts = new faceapi.TinyFaceDetectorOptions({ inputSize: 416, scoreThreshold: 0.5 });
        const da = await reference.locateFaces(t, opts), db = await onnx.locateFaces(t, opts);
        expect(db).toHaveLength(da.length);
        expect(da.length).toBeGreaterThan(0);
        da.forEach((d: { score: number; box: { x: number; width: number } }, i: number) => {
          expect(db[i].score).toBeCloseTo(d.score, 5);
          expect(db[i].box.x).toBeCloseTo(d.box.x, 3);
          expect(db[i].box.width).toBeCloseTo(d.box.width, 3);
        });
      } finally { t.dispose(); }
    }
    reference.dispose();
    onnx.dispose();
  }, 120_000);

  it('the landmark net gives face-api\'s 68 points', async () => {
    const { tf, faceapi } = await loadFaceModels();
    expect(faceapi.nets.faceLandmark68Net.onnxForward).toBe(true);
    const reference = new faceapi.FaceLandmark68Net();
    await reference.loadFromDisk(faceApiModelDir());
    const onnx = new faceapi.FaceLandmark68Net();
    await onnx.loadFromDisk(faceApiModelDir());
    await useOnnxLandmarkNet(tf, faceapi, onnx);
    for (const [which, margin] of CROPS) {
      const img = await decodeImage(await faceCrop(which, margin), 'image');
      const t = tf.tensor3d(img.data, [img.height, img.width, 3], 'int32');
      // a non-square face crop, as face-api's extractFaceTensors gives
      const face = tf.slice3d(t, [110, 160, 0], [260, 210, 3]);
      try {
        const a = await reference.detectLandmarks(face), b = await onnx.detectLandmarks(face);
        expect(b.positions).toHaveLength(68);
        expect(b.imageWidth).toBe(a.imageWidth);
        expect(b.imageHeight).toBe(a.imageHeight);
        a.positions.forEach((p: { x: number; y: number }, i: number) => {
          expect(Math.abs(b.positions[i].x - p.x)).toBeLessThan(1e-3);
          expect(Math.abs(b.positions[i].y - p.y)).toBeLessThan(1e-3);
        });
      } finally { tf.dispose([t, face]); }
    }
    reference.dispose();
    onnx.dispose();
  }, 120_000);
});
