/**
 * The convolutional body of face-api's Tiny Face Detector as an ONNX graph for `onnxruntime-node`,
 * built in memory from the weights face-api has already loaded, layer by layer after face-api's
 * `TinyYolov2Base.forwardInput` / `runMobilenet` (`src/tinyYolov2/`, v1.7, with the Tiny Face Detector's
 * config: separable convolutions, first layer a plain conv, mean RGB `[117.001, 114.697, 97.404]`):
 *
 * - input: face-api's batch tensor (the image padded to a square at the end and resized to the input
 *   size, float32 0-255, NHWC), minus the mean, divided by 255;
 * - `conv0`: 3x3 conv `valid` + bias, leaky ReLU (alpha 0.1);
 * - `conv1`..`conv5` (and `conv6`, `conv7` when present): zero pad 1, depthwise 3x3 + pointwise 1x1
 *   (`separableConv2d`, `valid`), + bias, leaky ReLU; max-pool 2x2 stride 2 `same` after conv0..conv4,
 *   stride 1 `same` after conv5;
 * - `conv8`: 1x1 conv + bias; the output is transposed back to NHWC (`[1, S/32, S/32, 25]`).
 *
 * face-api writes leaky ReLU as `relu(x - 0.1x) + 0.1x`; here it is ONNX `LeakyRelu(0.1)`, the same up to
 * the last bit of the positive branch. Box decoding, non-maximum suppression and scaling stay face-api's
 * own: {@link useOnnxTinyDetector} replaces only the net's `forwardInput`.
 */
import { openFaceSession } from './onnx-session.ts';
import { encodeOnnxModel, GraphBuilder, type OnnxModel, type WeightTensor } from './onnx-proto.ts';
import type { Tf } from './tf.ts';

interface SeparableParams { depthwise_filter: WeightTensor; pointwise_filter: WeightTensor; bias: WeightTensor }
/** face-api's `TinyFaceDetector.params` (mobilenet variant). */
export interface TinyDetectorParams {
  conv0: { filters: WeightTensor; bias: WeightTensor };
  conv1: SeparableParams; conv2: SeparableParams; conv3: SeparableParams; conv4: SeparableParams; conv5: SeparableParams;
  conv6?: SeparableParams; conv7?: SeparableParams;
  conv8: { filters: WeightTensor; bias: WeightTensor };
}

/** The Tiny Face Detector's mean RGB (`src/tinyFaceDetector/const.ts`). */
export const TINY_MEAN_RGB = [117.001, 114.697, 97.404] as const;
/** face-api's leaky ReLU slope (`src/tinyYolov2/leaky.ts`, 0.1 as float32). */
const LEAKY_ALPHA = 0.10000000149011612;

/**
 * Builds the ONNX model of the detector's body for a square input of side `inputSize` (a multiple of 32).
 * @throws Error when a param is missing
 */
export function tinyDetectorOnnx(params: TinyDetectorParams, inputSize: number): OnnxModel {
  const g = new GraphBuilder();
  const leaky = (x: string) => g.node('LeakyRelu', [x], { alpha: { float: LEAKY_ALPHA } });
  const pool = (x: string, stride: number) => g.node('MaxPool', [x], { kernel_shape: [2, 2], strides: [stride, stride], auto_pad: 'SAME_UPPER' });
  const separable = (x: string, p: SeparableParams) => {
    const dw = g.conv(x, p.depthwise_filter, null, { pad: [1, 1, 1, 1], depthwise: true });
    return leaky(g.conv(dw, p.pointwise_filter, p.bias, { pad: 'valid' }));
  };
  let x = g.node('Transpose', ['input'], { perm: [0, 3, 1, 2] });
  x = g.node('Sub', [x, g.init('mean_rgb', [3, 1, 1], Float32Array.from(TINY_MEAN_RGB))]);
  x = g.node('Div', [x, g.init('scale255', [], Float32Array.of(255))]);
  x = leaky(g.conv(x, params.conv0.filters, params.conv0.bias, { pad: 'valid' }));
  x = pool(x, 2);
  for (const k of ['conv1', 'conv2', 'conv3', 'conv4'] as const) x = pool(separable(x, params[k]), 2);
  x = pool(separable(x, params.conv5), 1);
  if (params.conv6) x = separable(x, params.conv6);
  if (params.conv7) x = separable(x, params.conv7);
  x = g.conv(x, params.conv8.filters, params.conv8.bias, { pad: 'valid' });
  g.node('Transpose', [x], { perm: [0, 2, 3, 1] }, 'output');
  return {
    name: 'tiny_face_detector_model', opset: 13, nodes: g.nodes, initializers: g.initializers,
    inputs: [{ name: 'input', dims: [1, inputSize, inputSize, 3] }],
    outputs: [{ name: 'output' }],
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/**
 * Makes a loaded face-api `TinyFaceDetector` run its body on onnxruntime-node: its `forwardInput(input,
 * inputSize)` becomes an async function giving the same `[1, S/32, S/32, 25]` tfjs tensor (face-api's
 * `detect` awaits it). One session per input size, created on first use; one intra-op thread.
 * @throws Error (from the replaced method) on a batch of more than one image
 */
export function useOnnxTinyDetector(tf: Tf, net: Any): void {
  const params = net.params as TinyDetectorParams;
  const sessions = new Map<number, ReturnType<typeof openFaceSession>>();
  const session = (size: number) => {
    let s = sessions.get(size);
    if (!s) {
      s = openFaceSession(encodeOnnxModel(tinyDetectorOnnx(params, size)));
      s.catch(() => sessions.delete(size));
      sessions.set(size, s);
    }
    return s;
  };
  net.forwardInput = async (input: Any, inputSize: number) => {
    if (input.batchSize !== 1) throw new Error(`tiny detector: batches of ${input.batchSize} are not supported`);
    const batch = tf.tidy(() => tf.cast(input.toBatchTensor(inputSize, false), 'float32'));
    let data: Float32Array;
    try { data = (await batch.data()) as Float32Array; } finally { batch.dispose(); }
    const { ort, session: s } = await session(inputSize);
    const out = (await s.run({ input: new ort.Tensor('float32', data, [1, inputSize, inputSize, 3]) })).output!;
    return tf.tensor4d(out.data as Float32Array, out.dims as number[], 'float32');
  };
  net.onnxForward = true;
}
