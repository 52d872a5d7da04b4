/**
 * face-api's 68-point landmark net (`FaceLandmark68Net`: the `FaceFeatureExtractor` of four dense blocks
 * and a fully connected layer) as an ONNX graph for `onnxruntime-node`, built in memory from the weights
 * face-api has already loaded, layer by layer after face-api's sources (v1.7:
 * `src/faceFeatureExtractor/FaceFeatureExtractor.ts`, `denseBlock.ts`, `src/common/depthwiseSeparableConv.ts`,
 * `src/faceProcessor/FaceProcessor.ts`, `src/common/fullyConnectedLayer.ts`):
 *
 * - input: face-api's 112x112 batch tensor (the face crop padded to a centred square, resized), float32
 *   0-255, NHWC, minus the mean `[122.782, 117.001, 104.298]`, divided by 255;
 * - dense block (x4, each halving the side): `out1 = relu(conv0(x))` (a plain 3x3 conv + bias in the
 *   first block, else a separable conv + bias, stride 2, TF `same`), `out2 = sep(out1)`,
 *   `out3 = sep(relu(out1 + out2))`, `out4 = sep(relu(out1 + (out2 + out3)))`,
 *   result `relu(out1 + (out2 + (out3 + out4)))`;
 * - average pool 7x7 stride 2 `valid` (7x7 -> 1x1), flattened, `x * fc.weights + fc.bias` (136 values).
 *
 * {@link useOnnxLandmarkNet} replaces only the net's `detectLandmarks`: face-api's own pre-processing and
 * `postProcess` (scaling the 136 outputs to the crop) still run.
 */
import { openFaceSession } from './onnx-session.ts';
import { FACE_API_MEAN_RGB } from './recognition-onnx.ts';
import { encodeOnnxModel, GraphBuilder, type OnnxModel, type WeightTensor } from './onnx-proto.ts';
import type { Tf } from './tf.ts';

interface ConvParams { filters: WeightTensor; bias: WeightTensor }
interface SeparableParams { depthwise_filter: WeightTensor; pointwise_filter: WeightTensor; bias: WeightTensor }
interface DenseBlockParams { conv0: ConvParams | SeparableParams; conv1: SeparableParams; conv2: SeparableParams; conv3: SeparableParams }
/** face-api's `FaceFeatureExtractor.params`. */
export interface FeatureExtractorParams { dense0: DenseBlockParams; dense1: DenseBlockParams; dense2: DenseBlockParams; dense3: DenseBlockParams }

/** Input side (px) of the landmark net. */
export const LANDMARK_SIZE = 112;

/**
 * Builds the ONNX model of the landmark net (output `landmarks`: `[1, 136]`, before face-api's
 * `postProcess`).
 * @throws Error when a param is missing
 */
export function landmarkNetOnnx(extractor: FeatureExtractorParams, fc: { weights: WeightTensor; bias: WeightTensor }): OnnxModel {
  const g = new GraphBuilder();
  const sep = (x: string, p: SeparableParams, stride: number) => {
    const dw = g.conv(x, p.depthwise_filter, null, { stride, pad: 'same', depthwise: true });
    return g.conv(dw, p.pointwise_filter, p.bias, { pad: 'valid' });
  };
  const add = (a: string, b: string) => g.node('Add', [a, b]);
  const relu = (a: string) => g.node('Relu', [a]);
  const dense = (x: string, p: DenseBlockParams, first: boolean) => {
    const c0 = p.conv0 as ConvParams & SeparableParams;
    const out1 = relu(first ? g.conv(x, c0.filters, c0.bias, { stride: 2, pad: 'same' }) : sep(x, c0, 2));
    const out2 = sep(out1, p.conv1, 1);
    const out3 = sep(relu(add(out1, out2)), p.conv2, 1);
    const out4 = sep(relu(add(out1, add(out2, out3))), p.conv3, 1);
    return relu(add(out1, add(out2, add(out3, out4))));
  };
  let x = g.node('Transpose', ['input'], { perm: [0, 3, 1, 2] });
  x = g.node('Sub', [x, g.init('mean_rgb', [3, 1, 1], Float32Array.from(FACE_API_MEAN_RGB))]);
  x = g.node('Div', [x, g.init('scale255', [], Float32Array.of(255))]);
  x = dense(x, extractor.dense0, true);
  x = dense(x, extractor.dense1, false);
  x = dense(x, extractor.dense2, false);
  x = dense(x, extractor.dense3, false);
  x = g.node('AveragePool', [x], { kernel_shape: [7, 7], strides: [2, 2] });
  x = g.node('Flatten', [x], { axis: 1 });
  const [fin, fout] = fc.weights.shape as [number, number];
  x = g.node('MatMul', [x, g.init('fc_w', [fin, fout], Float32Array.from(fc.weights.dataSync()))]);
  g.node('Add', [x, g.init('fc_b', [fout], Float32Array.from(fc.bias.dataSync()))], undefined, 'landmarks');
  return {
    name: 'face_landmark_68_model', opset: 13, nodes: g.nodes, initializers: g.initializers,
    inputs: [{ name: 'input', dims: [1, LANDMARK_SIZE, LANDMARK_SIZE, 3] }],
    outputs: [{ name: 'landmarks', dims: [1, fout] }],
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/**
 * Makes a loaded face-api `FaceLandmark68Net` run on onnxruntime-node: its `detectLandmarks(input)` (one
 * face tensor, as face-api's `withFaceLandmarks` passes) gives the same `FaceLandmarks68`. A batch of
 * several inputs goes to face-api's own implementation. One session, one intra-op thread.
 */
export async function useOnnxLandmarkNet(tf: Tf, faceapi: Any, net: Any): Promise<void> {
  const { ort, session: s } = await openFaceSession(encodeOnnxModel(landmarkNetOnnx(net.faceFeatureExtractor.params, net.params.fc)));
  const original = net.detectLandmarks.bind(net);
  net.detectLandmarks = async (input: Any) => {
    const netInput = await faceapi.toNetInput(input);
    if (netInput.isBatchInput || netInput.batchSize !== 1) return original(input);
    const batch = tf.tidy(() => tf.cast(netInput.toBatchTensor(LANDMARK_SIZE, true), 'float32'));
    let data: Float32Array;
    try { data = (await batch.data()) as Float32Array; } finally { batch.dispose(); }
    const out = (await s.run({ input: new ort.Tensor('float32', data, [1, LANDMARK_SIZE, LANDMARK_SIZE, 3]) })).landmarks!;
    const raw = tf.tensor2d(out.data as Float32Array, [1, out.dims[1]!], 'float32');
    const scaled = tf.tidy(() => net.postProcess(raw, netInput.inputSize, netInput.inputDimensions.map(([height, width]: number[]) => ({ height, width }))));
    const v = Array.from(scaled.dataSync() as Float32Array);
    tf.dispose([raw, scaled]);
    const points = Array.from({ length: 68 }, (_, i) => new faceapi.Point(v[2 * i]!, v[2 * i + 1]!));
    return new faceapi.FaceLandmarks68(points, { height: netInput.getInputHeight(0), width: netInput.getInputWidth(0) });
  };
  net.onnxForward = true;
}
