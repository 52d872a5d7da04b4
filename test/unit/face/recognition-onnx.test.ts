/**
 * face-api's 128-d recognition net on onnxruntime-node (`models/face/recognition-onnx.ts`) against
 * face-api's own tfjs forward pass, on real face crops (the demo photo face-api ships).
 */
import { describe, expect, it } from 'vitest';
import { faceCrop } from '../../api/face/fixtures.ts';
import { decodeImage } from '../../../models/face/image.ts';
import { FaceImage, loadFaceModels } from '../../../models/face/engine.ts';
import { createRecognitionSession, recognitionNetOnnx } from '../../../models/face/recognition-onnx.ts';
import { faceApiModelDir } from '../../../models/face/tf.ts';

describe('face-api recognition net on onnxruntime-node', () => {
  it('gives face-api\'s 128-d descriptor within float32 rounding on real crops', async () => {
    const { tf, faceapi } = await loadFaceModels();
    // a tfjs copy of the net (the engine's own copy is freed once converted)
    const reference = new faceapi.FaceRecognitionNet();
    await reference.loadFromDisk(faceApiModelDir());
    const session = await createRecognitionSession(reference.params);
    const seen: Float32Array[] = [];
    for (const [which, margin] of [['a', 0.6], ['b', 0.35], ['c', 0.5]] as const) {
      const fi = await FaceImage.from(await decodeImage(await faceCrop(which, margin), 'image'));
      try {
        const face = (await fi.detect(0.5))[0]!;
        const crop = fi.faceCropData(face);
        const t = tf.tensor3d(crop, [150, 150, 3], 'float32');
        const want = Float32Array.from(await reference.computeFaceDescriptor(t) as Float32Array);
        tf.dispose(t);
        const got = await session.describe(crop);
        expect(got).toHaveLength(128);
        let maxDiff = 0;
        for (let i = 0; i < 128; i++) maxDiff = Math.max(maxDiff, Math.abs(got[i]! - want[i]!));
        expect(maxDiff).toBeLessThan(1e-5);
        // the engine's own path gives the same descriptor
        expect(Array.from(await fi.descriptor128(face))).toEqual(Array.from(got));
        seen.push(got);
      } finally { fi.dispose(); }
    }
    // three different people: the descriptors differ (an all-zero or constant output would not)
    const dist = (a: Float32Array, b: Float32Array) => Math.hypot(...Array.from(a, (v, i) => v - b[i]!));
    expect(dist(seen[0]!, seen[1]!)).toBeGreaterThan(0.3);
    reference.dispose();
    await expect(session.describe(new Float32Array(3))).rejects.toThrow(/67500 expected/);
  }, 120_000);

  it('refuses params whose shapes do not chain', () => {
    const w = (shape: number[]) => ({ shape, dataSync: () => new Float32Array(shape.reduce((a, b) => a * b, 1)) });
    const conv = (k: number, cin: number, cout: number) => ({ conv: { filters: w([k, k, cin, cout]), bias: w([cout]) }, scale: { weights: w([cout]), biases: w([cout]) } });
    expect(() => recognitionNetOnnx({ conv32_down: conv(7, 4, 32), fc: w([256, 128]) })).toThrow(/expects 4 channels/);
  });
});
