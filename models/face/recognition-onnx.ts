/**
 * face-api's 128-d recognition net (`FaceRecognitionNet`, a dlib-style ResNet-34 at 150x150) as an ONNX
 * graph for `onnxruntime-node`, built in memory from the weights face-api has already loaded (its
 * `params` tensors), layer by layer after face-api's own `forwardInput` (`src/faceRecognitionNet/
 * FaceRecognitionNet.ts`, `convLayer.ts`, `residualLayer.ts`, `scaleLayer.ts`, v1.7):
 *
 * - input: the 150x150 RGB crop (0-255, NHWC; face-api's `toBatchTensor(150)` leaves a 150x150 square
 *   crop as it is), minus the mean `[122.782, 117.001, 104.298]`, divided by 255;
 * - conv layer: conv + bias, then the scale layer (x * weights + biases), then ReLU unless "no relu";
 *   `same` padding for stride 1, `valid` for the stride-2 "down" convolutions;
 * - `conv32_down` (7x7, stride 2), max-pool 3 stride 2 valid;
 * - residual: conv, conv no relu, + input, ReLU; residual down: conv down, conv no relu, and the input
 *   average-pooled 2 stride 2 valid, zero-padded on the channel axis to the new width (and the conv
 *   branch zero-padded by one row and column at the end when the sizes differ), added, ReLU;
 * - global mean over the spatial axes, then the 256x128 `fc` matrix (no bias).
 *
 * Why: the net took about 28 ms of CPU per image on tfjs-backend-wasm; the same graph in onnxruntime's
 * native kernels takes a fraction of that, with the same descriptor to float32 rounding
 * (`test/unit/face/recognition-onnx.test.ts` compares both on real crops).
 */
import { openFaceSession } from './onnx-session.ts';
import { encodeOnnxModel, GraphBuilder, type OnnxModel, type WeightTensor } from './onnx-proto.ts';

interface ConvParams { conv: { filters: WeightTensor; bias: WeightTensor }; scale: { weights: WeightTensor; biases: WeightTensor } }
interface ResidualParams { conv1: ConvParams; conv2: ConvParams }
/** face-api's `FaceRecognitionNet.params`. */
export interface RecognitionParams extends Record<string, unknown> { fc: WeightTensor }

/** Input side (px) of the net. */
export const RECOGNITION_SIZE = 150;
/**
 * face-api's mean RGB of its feature extractors (`normalize` in the recognition and 68-point landmark nets),
 * subtracted before the division by 255.
 */
export const FACE_API_MEAN_RGB = [122.782, 117.001, 104.298] as const;

/**
 * Builds the ONNX model of face-api's recognition net from its loaded params.
 * @throws Error when a param is missing or has an unexpected shape
 */
export function recognitionNetOnnx(params: RecognitionParams): OnnxModel {
  const g = new GraphBuilder();
  let size = RECOGNITION_SIZE; // spatial side of the current activation
  let channels = 3;

  /** conv + bias, scale layer, optional ReLU (face-api's `convLayer`). */
  const convLayer = (x: string, p: ConvParams, stride: 1 | 2, relu: boolean): string => {
    const [kh, , cin, cout] = p.conv.filters.shape as [number, number, number, number];
    if (cin !== channels) throw new Error(`recognition net: conv expects ${cin} channels, has ${channels}`);
    let out = g.conv(x, p.conv.filters, p.conv.bias, { stride, pad: stride === 1 ? 'same' : 'valid' });
    out = g.node('Mul', [out, g.perChannel(p.scale.weights, 'scale_w')]);
    out = g.node('Add', [out, g.perChannel(p.scale.biases, 'scale_b')]);
    size = stride === 1 ? size : Math.floor((size - kh) / stride) + 1;
    channels = cout;
    return relu ? g.node('Relu', [out]) : out;
  };
  const residual = (x: string, p: ResidualParams): string => {
    let out = convLayer(x, p.conv1, 1, true);
    out = convLayer(out, p.conv2, 1, false);
    return g.node('Relu', [g.node('Add', [out, x])]);
  };
  const residualDown = (x: string, p: ResidualParams): string => {
    const inSize = size, inChannels = channels;
    let out = convLayer(x, p.conv1, 2, true);
    out = convLayer(out, p.conv2, 1, false);
    let pooled = g.node('AveragePool', [x], { kernel_shape: [2, 2], strides: [2, 2] });
    const pooledSize = Math.floor((inSize - 2) / 2) + 1;
    if (pooledSize !== size) {
      // face-api appends one zero row and one zero column to the conv branch
      out = g.node('Pad', [out, g.pads([0, 0, 0, 0, 0, 0, 1, 1])]);
      size += 1;
      if (size !== pooledSize) throw new Error(`recognition net: sizes ${size} and ${pooledSize} do not match`);
    }
    if (inChannels !== channels) pooled = g.node('Pad', [pooled, g.pads([0, 0, 0, 0, 0, channels - inChannels, 0, 0])]);
    return g.node('Relu', [g.node('Add', [pooled, out])]);
  };

  const p = params as unknown as Record<string, ResidualParams & ConvParams> & { fc: WeightTensor };
  let x = g.node('Transpose', ['input'], { perm: [0, 3, 1, 2] });
  x = g.node('Sub', [x, g.init('mean_rgb', [3, 1, 1], Float32Array.from(FACE_API_MEAN_RGB))]);
  x = g.node('Div', [x, g.init('scale255', [], Float32Array.of(255))]);
  x = convLayer(x, p.conv32_down!, 2, true);
  x = g.node('MaxPool', [x], { kernel_shape: [3, 3], strides: [2, 2] });
  size = Math.floor((size - 3) / 2) + 1;
  for (const k of ['conv32_1', 'conv32_2', 'conv32_3']) x = residual(x, p[k]!);
  x = residualDown(x, p.conv64_down!);
  for (const k of ['conv64_1', 'conv64_2', 'conv64_3']) x = residual(x, p[k]!);
  x = residualDown(x, p.conv128_down!);
  for (const k of ['conv128_1', 'conv128_2']) x = residual(x, p[k]!);
  x = residualDown(x, p.conv256_down!);
  for (const k of ['conv256_1', 'conv256_2']) x = residual(x, p[k]!);
  x = residualDown(x, p.conv256_down_out!);
  x = g.node('ReduceMean', [x], { axes: [2, 3], keepdims: 0 });
  const [fin, fout] = p.fc.shape as [number, number];
  if (fin !== channels) throw new Error(`recognition net: fc expects ${fin} inputs, has ${channels}`);
  g.node('MatMul', [x, g.init('fc', [fin, fout], Float32Array.from(p.fc.dataSync()))], undefined, 'descriptor');
  return {
    name: 'face_recognition_model', opset: 13, nodes: g.nodes, initializers: g.initializers,
    inputs: [{ name: 'input', dims: [1, RECOGNITION_SIZE, RECOGNITION_SIZE, 3] }],
    outputs: [{ name: 'descriptor', dims: [1, fout] }],
  };
}

/** A loaded recognition-net session. */
export interface RecognitionSession {
  /**
   * The 128-d descriptor of one crop.
   * @param rgb150 150*150*3 floats, RGB 0-255, HWC (face-api's padded square crop)
   * @throws Error when the input length is wrong
   */
  describe(rgb150: Float32Array): Promise<Float32Array>;
}

/** Creates an onnxruntime session of the net (one intra-op thread: the worker pool gives the parallelism). */
export async function createRecognitionSession(params: RecognitionParams): Promise<RecognitionSession> {
  const { ort, session: s } = await openFaceSession(encodeOnnxModel(recognitionNetOnnx(params)));
  const n = RECOGNITION_SIZE * RECOGNITION_SIZE * 3;
  return {
    async describe(rgb150: Float32Array): Promise<Float32Array> {
      if (rgb150.length !== n) throw new Error(`recognition net: input has ${rgb150.length} values, ${n} expected`);
      const out = await s.run({ input: new ort.Tensor('float32', rgb150, [1, RECOGNITION_SIZE, RECOGNITION_SIZE, 3]) });
      return Float32Array.from(out.descriptor!.data as Float32Array);
    },
  };
}
