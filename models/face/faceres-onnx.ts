/**
 * Human's `faceres` (HSE FaceRes, `@vladmandic/human/models/faceres.json`) run by `onnxruntime-node`
 * instead of tfjs-backend-wasm: the same weights, converted in memory at load
 * (`models/face/tfjs-to-onnx.ts`; nothing is downloaded or written to disk), pruned to the 1024-d
 * `global_pooling/Mean` output (the age and gender heads are not computed).
 *
 * Why: faceres was the heaviest net of a `face.descriptor` job, about 105 ms of CPU per image on the wasm
 * backend (SIMD, one thread) against about 12 ms in onnxruntime's native kernels on this machine; the
 * outputs agree to about 2e-6 (float32 summation order), see `test/unit/face/faceres-onnx.test.ts`.
 * One session per worker thread, one intra-op thread (the worker pool provides the parallelism).
 */
import path from 'node:path';
import { openFaceSession } from './onnx-session.ts';
import { encodeOnnxModel } from './onnx-proto.ts';
import { humanModelDir } from './tf.ts';
import { tfjsGraphToOnnx } from './tfjs-to-onnx.ts';

/** faceres input side (px): the input is `[1, 224, 224, 3]`, RGB 0-255, NHWC. */
export const FACERES_SIZE = 224;
/** The output used: global average pooling of the last MobileNet block, 1024 floats, not normalised. */
export const FACERES_OUTPUT = 'global_pooling/Mean';

/** A loaded faceres session. */
export interface FaceresSession {
  /**
   * The 1024-d embedding of one aligned crop.
   * @param rgb224 224*224*3 floats, RGB 0-255, HWC (as `alignFace` gives)
   * @throws Error when the input length is wrong
   */
  embed(rgb224: Float32Array): Promise<Float32Array>;
}

let session: Promise<FaceresSession> | null = null;

/** The ONNX bytes of faceres (the converted graph), for tests and the session below. */
export function faceresOnnxBytes(): Uint8Array {
  const model = tfjsGraphToOnnx(path.join(humanModelDir(), 'faceres.json'),
    { name: 'input_1', shape: [1, FACERES_SIZE, FACERES_SIZE, 3] }, [FACERES_OUTPUT]);
  return encodeOnnxModel(model);
}

/** Loads the session once per thread (a failed load is retried on the next call). */
export function loadFaceres(): Promise<FaceresSession> {
  session ??= (async () => {
    const { ort, session: s } = await openFaceSession(faceresOnnxBytes());
    const n = FACERES_SIZE * FACERES_SIZE * 3;
    return {
      async embed(rgb224: Float32Array): Promise<Float32Array> {
        if (rgb224.length !== n) throw new Error(`faceres: input has ${rgb224.length} values, ${n} expected`);
        const out = await s.run({ input_1: new ort.Tensor('float32', rgb224, [1, FACERES_SIZE, FACERES_SIZE, 3]) });
        return Float32Array.from(out[FACERES_OUTPUT]!.data as Float32Array);
      },
    };
  })();
  session.catch(() => { session = null; });
  return session;
}
