/**
 * Converts a TensorFlow.js graph model (a `model.json` + weight shards, as shipped in npm packages) into
 * an ONNX model in memory, for `onnxruntime-node`. Used for Human's `faceres` (a MobileNet v1 at 224x224,
 * the heaviest net of a verify job): onnxruntime's native kernels run it several times faster than
 * tfjs-backend-wasm on the same weights (docs/face.md, "CPU per image").
 *
 * Scope: the ops of such convolutional graphs - `Placeholder`, `Const`, `Conv2D`,
 * `DepthwiseConv2dNative`, `Add`/`AddV2`/`BiasAdd`, `Mul`, `Relu`, `Relu6`, `Minimum`, `Maximum`, `Mean`,
 * `_FusedMatMul` (BiasAdd, optional Relu), `Sigmoid`, `Softmax`; any other op throws, so a model outside
 * this scope is refused rather than converted wrongly. Only the nodes the requested outputs depend on
 * are converted.
 *
 * Layout: the tfjs graph is NHWC; the ONNX graph takes the same NHWC input, transposes it once to NCHW
 * and keeps every 4-D activation in NCHW (ONNX `Conv`'s layout); per-channel constants are reshaped to
 * `[C,1,1]`, kernels transposed HWIO -> OIHW (depthwise: `[kh,kw,C,m]` -> `[C*m,1,kh,kw]`, `group` C),
 * `Mean` axes mapped NHWC -> NCHW. TF `SAME` padding is ONNX `SAME_UPPER` (the odd pixel at the end).
 * `Relu` followed by `Minimum(6)` then `Maximum(0)` (Keras' ReLU6 as exported) becomes one `Clip(0, 6)`:
 * the same value for every non-NaN input.
 *
 * Weights: float32, int32, or float16-quantized (`quantization.dtype: 'float16'`, decoded exactly, as
 * tfjs' `decodeWeights` does); other quantizations throw.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { OnnxInitializer, OnnxModel, OnnxNode } from './onnx-proto.ts';

interface TfNode { name: string; op: string; input?: string[]; attr?: Record<string, TfAttr> }
interface TfAttr { s?: string; i?: string; f?: number; b?: boolean; list?: { i?: string[]; s?: string[] } }
interface WeightSpec { name: string; shape: number[]; dtype: string; quantization?: { dtype: string } }

/** A decoded constant: shape and values (float32, or int32 for index tensors). */
export interface TfConst { shape: number[]; data: Float32Array | Int32Array }

/** Exact IEEE 754 half -> single conversion (subnormals, infinities and NaN included). */
export function float16ToFloat32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

let halfTable: Float32Array | null = null;
/** All 65,536 half-precision values as float32 (built once, 256 KB). */
function float16Table(): Float32Array {
  if (!halfTable) {
    halfTable = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) halfTable[h] = float16ToFloat32(h);
  }
  return halfTable;
}

/**
 * Reads a tfjs graph model from disk: its nodes and every weight decoded.
 * @throws Error on a weight dtype or quantization this module does not decode
 */
export function readTfjsGraph(modelJsonPath: string): { nodes: TfNode[]; consts: Map<string, TfConst>; inputShape: Map<string, number[]> } {
  const json = JSON.parse(readFileSync(modelJsonPath, 'utf8')) as {
    modelTopology: { node: TfNode[] }; weightsManifest: { paths: string[]; weights: WeightSpec[] }[];
  };
  const consts = new Map<string, TfConst>();
  for (const group of json.weightsManifest) {
    const bytes = Buffer.concat(group.paths.map((p) => readFileSync(path.join(path.dirname(modelJsonPath), p))));
    let off = 0;
    for (const w of group.weights) {
      const n = w.shape.reduce((a, b) => a * b, 1);
      const q = w.quantization?.dtype;
      if (q === 'float16' && w.dtype === 'float32') {
        const data = new Float32Array(n), table = float16Table();
        const halves = new Uint16Array(bytes.buffer.slice(bytes.byteOffset + off, bytes.byteOffset + off + 2 * n)); // little-endian host
        for (let i = 0; i < n; i++) data[i] = table[halves[i]!]!;
        consts.set(w.name, { shape: w.shape, data }); off += 2 * n;
      } else if (!q && (w.dtype === 'float32' || w.dtype === 'int32')) {
        const raw = bytes.buffer.slice(bytes.byteOffset + off, bytes.byteOffset + off + 4 * n); // little-endian host
        const data = w.dtype === 'float32' ? new Float32Array(raw) : new Int32Array(raw);
        consts.set(w.name, { shape: w.shape, data }); off += 4 * n;
      } else {
        throw new Error(`tfjs-to-onnx: weight ${w.name}: dtype ${w.dtype} quantized as ${q ?? 'none'} is not supported`);
      }
    }
  }
  const inputShape = new Map<string, number[]>();
  for (const n of json.modelTopology.node) {
    if (n.op !== 'Placeholder') continue;
    const dims = (n.attr?.shape as unknown as { shape?: { dim?: { size: string }[] } } | undefined)?.shape?.dim ?? [];
    inputShape.set(n.name, dims.map((d) => Number(d.size)));
  }
  return { nodes: json.modelTopology.node, consts, inputShape };
}

const str = (a: TfAttr | undefined) => (a?.s ? Buffer.from(a.s, 'base64').toString('utf8') : undefined);
const ints = (a: TfAttr | undefined) => (a?.list?.i ?? []).map(Number);
/** The tensor name of a node input (`name:0` and `^control` forms). */
const ref = (s: string) => s.replace(/^\^/, '').replace(/:0$/, '');

/** NHWC axis -> NCHW axis. */
const NCHW_AXIS = [0, 2, 3, 1];

/**
 * Builds the ONNX model of a tfjs graph for the given input (its static NHWC shape, batch included) and
 * outputs. Output tensors keep the names of the tfjs nodes.
 * @throws Error on an op, attribute or layout outside the scope described above
 */
export function tfjsGraphToOnnx(modelJsonPath: string, input: { name: string; shape: number[] }, outputs: string[]): OnnxModel {
  const { nodes, consts } = readTfjsGraph(modelJsonPath);
  const byName = new Map(nodes.map((n) => [n.name, n]));
  // nodes needed by the outputs, in dependency order
  const order: TfNode[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const n = byName.get(name);
    if (!n) throw new Error(`tfjs-to-onnx: unknown node ${name}`);
    for (const i of n.input ?? []) if (!i.startsWith('^')) visit(ref(i));
    order.push(n);
  };
  outputs.forEach(visit);

  const onnxNodes: OnnxNode[] = [];
  const inits: OnnxInitializer[] = [];
  const rank = new Map<string, number>(); // rank of every activation; 4-D ones are NCHW in the ONNX graph
  const consumers = new Map<string, TfNode[]>();
  for (const n of order) for (const i of n.input ?? []) consumers.set(ref(i), [...(consumers.get(ref(i)) ?? []), n]);
  const skip = new Set<string>(); // nodes folded into an earlier one (ReLU6 as Clip)
  const alias = new Map<string, string>(); // tfjs name -> ONNX tensor name for folded nodes
  const name = (s: string) => alias.get(ref(s)) ?? ref(s);
  let uid = 0;
  const init = (base: string, dims: number[], data: Float32Array | BigInt64Array): string => {
    const n = `${base}__${uid++}`;
    inits.push({ name: n, dims, data });
    return n;
  };
  const constOf = (s: string): TfConst => {
    const c = consts.get(ref(s));
    if (!c) throw new Error(`tfjs-to-onnx: ${s} is not a constant`);
    return c;
  };
  const scalarConst = (s: string): number | null => {
    const c = consts.get(ref(s));
    return c && c.data.length === 1 ? c.data[0]! : null;
  };
  /** A constant operand of an element-wise op whose other operand has rank `r`. */
  const operand = (s: string, r: number): string => {
    const c = consts.get(ref(s));
    if (!c) return name(s);
    const data = Float32Array.from(c.data);
    if (r !== 4 || c.data.length === 1) return init(ref(s), c.data.length === 1 ? [] : c.shape, data);
    const C = c.shape.at(-1)!;
    if (c.data.length !== C) throw new Error(`tfjs-to-onnx: constant ${s} of shape [${c.shape}] cannot be broadcast per channel`);
    return init(ref(s), [C, 1, 1], data);
  };

  const inNchw = `${input.name}__nchw`;
  onnxNodes.push({ op: 'Transpose', name: inNchw, inputs: [input.name], outputs: [inNchw], attrs: { perm: [0, 3, 1, 2] } });
  alias.set(input.name, inNchw);
  rank.set(input.name, input.shape.length);

  for (const n of order) {
    if (skip.has(n.name)) continue;
    const ins = (n.input ?? []).filter((i) => !i.startsWith('^'));
    const out = n.name;
    const r0 = ins.length ? rank.get(ref(ins[0]!)) : undefined;
    switch (n.op) {
      case 'Const': break;
      case 'Placeholder':
        if (n.name !== input.name) throw new Error(`tfjs-to-onnx: unexpected input ${n.name}`);
        break;
      case 'Conv2D':
      case 'DepthwiseConv2dNative': {
        if ((str(n.attr?.data_format) ?? 'NHWC') !== 'NHWC') throw new Error(`tfjs-to-onnx: ${n.name}: only NHWC`);
        const pad = str(n.attr?.padding);
        if (pad !== 'SAME' && pad !== 'VALID') throw new Error(`tfjs-to-onnx: ${n.name}: padding ${pad} not supported`);
        const w = constOf(ins[1]!);
        const [kh, kw, cin, m] = w.shape as [number, number, number, number];
        const s = ints(n.attr?.strides), d = ints(n.attr?.dilations);
        const depthwise = n.op === 'DepthwiseConv2dNative';
        const cout = depthwise ? cin * m : m;
        const t = new Float32Array(w.data.length);
        // HWIO -> OIHW; depthwise [kh,kw,C,m] -> [C*m,1,kh,kw] with output channel c*m + j
        for (let y = 0; y < kh; y++) for (let x = 0; x < kw; x++) for (let c = 0; c < cin; c++) for (let j = 0; j < m; j++) {
          const v = w.data[((y * kw + x) * cin + c) * m + j]!;
          if (depthwise) t[((c * m + j) * kh + y) * kw + x] = v;
          else t[((j * cin + c) * kh + y) * kw + x] = v;
        }
        onnxNodes.push({
          op: 'Conv', name: out, inputs: [name(ins[0]!), init(ref(ins[1]!), depthwise ? [cout, 1, kh, kw] : [cout, cin, kh, kw], t)], outputs: [out],
          attrs: {
            kernel_shape: [kh, kw], strides: [s[1] ?? 1, s[2] ?? 1], dilations: [d[1] ?? 1, d[2] ?? 1],
            auto_pad: pad === 'SAME' ? 'SAME_UPPER' : 'VALID', ...(depthwise ? { group: cin } : {}),
          },
        });
        rank.set(out, 4);
        break;
      }
      case 'Add': case 'AddV2': case 'BiasAdd': case 'Mul': case 'Minimum': case 'Maximum': {
        const r = Math.max(...ins.map((i) => rank.get(ref(i)) ?? 0));
        const next = consumers.get(out);
        // ReLU6 exported as Relu -> Minimum(6) -> Maximum(0): one Clip
        if (n.op === 'Minimum' && byName.get(ref(ins[0]!))?.op === 'Relu' && next?.length === 1 && next[0]!.op === 'Maximum') {
          const hi = scalarConst(ins[1]!), lo = scalarConst(next[0]!.input![1]!);
          if (hi !== null && lo === 0 && hi >= 0) {
            const relu = byName.get(ref(ins[0]!))!;
            const x = name(relu.input![0]!);
            // the Relu node was already emitted; the Clip reads the Relu's input and replaces both
            const idx = onnxNodes.findIndex((o) => o.name === relu.name);
            if (idx >= 0 && (consumers.get(relu.name)?.length ?? 0) === 1) onnxNodes.splice(idx, 1);
            onnxNodes.push({ op: 'Clip', name: next[0]!.name, inputs: [x, init('clip_lo', [], Float32Array.of(0)), init('clip_hi', [], Float32Array.of(hi))], outputs: [next[0]!.name] });
            skip.add(next[0]!.name);
            rank.set(next[0]!.name, r);
            break;
          }
        }
        const op = { Add: 'Add', AddV2: 'Add', BiasAdd: 'Add', Mul: 'Mul', Minimum: 'Min', Maximum: 'Max' }[n.op]!;
        onnxNodes.push({ op, name: out, inputs: ins.map((i) => operand(i, r)), outputs: [out] });
        rank.set(out, r);
        break;
      }
      case 'Relu': case 'Sigmoid':
        onnxNodes.push({ op: n.op, name: out, inputs: [name(ins[0]!)], outputs: [out] });
        rank.set(out, r0 ?? 0);
        break;
      case 'Relu6':
        onnxNodes.push({ op: 'Clip', name: out, inputs: [name(ins[0]!), init('clip_lo', [], Float32Array.of(0)), init('clip_hi', [], Float32Array.of(6))], outputs: [out] });
        rank.set(out, r0 ?? 0);
        break;
      case 'Softmax':
        if (r0 !== 2) throw new Error(`tfjs-to-onnx: ${n.name}: Softmax only on rank 2`);
        onnxNodes.push({ op: 'Softmax', name: out, inputs: [name(ins[0]!)], outputs: [out], attrs: { axis: 1 } });
        rank.set(out, 2);
        break;
      case 'Mean': {
        const axes = Array.from(constOf(ins[1]!).data).map((a) => (a < 0 ? a + (r0 ?? 0) : a));
        const keep = n.attr?.keep_dims?.b ? 1 : 0;
        if (r0 !== 4 || (!keep && axes.join() !== '1,2')) throw new Error(`tfjs-to-onnx: ${n.name}: Mean over [${axes}] of rank ${r0} not supported`);
        onnxNodes.push({ op: 'ReduceMean', name: out, inputs: [name(ins[0]!)], outputs: [out], attrs: { axes: axes.map((a) => NCHW_AXIS[a]!), keepdims: keep } });
        rank.set(out, keep ? 4 : 2);
        break;
      }
      case '_FusedMatMul': {
        const fused = (n.attr?.fused_ops?.list?.s ?? []).map((s) => Buffer.from(s, 'base64').toString('utf8'));
        if (r0 !== 2 || fused[0] !== 'BiasAdd' || fused.length > 2 || (fused[1] && fused[1] !== 'Relu')) {
          throw new Error(`tfjs-to-onnx: ${n.name}: _FusedMatMul [${fused}] on rank ${r0} not supported`);
        }
        const w = constOf(ins[1]!), b = constOf(ins[2]!);
        const gemm = fused[1] ? `${out}__gemm` : out;
        onnxNodes.push({
          op: 'Gemm', name: gemm, outputs: [gemm],
          inputs: [name(ins[0]!), init(ref(ins[1]!), w.shape, Float32Array.from(w.data)), init(ref(ins[2]!), b.shape, Float32Array.from(b.data))],
          attrs: { transA: n.attr?.transpose_a?.b ? 1 : 0, transB: n.attr?.transpose_b?.b ? 1 : 0 },
        });
        if (fused[1]) onnxNodes.push({ op: 'Relu', name: out, inputs: [gemm], outputs: [out] });
        rank.set(out, 2);
        break;
      }
      default:
        throw new Error(`tfjs-to-onnx: op ${n.op} (${n.name}) is not supported`);
    }
  }
  const outs = outputs.map((o) => {
    if (rank.get(o) !== 2) throw new Error(`tfjs-to-onnx: output ${o} must be rank 2 (an NCHW output would need a transpose back)`);
    return o;
  });
  return {
    name: path.basename(modelJsonPath, '.json'), opset: 13, nodes: onnxNodes, initializers: inits,
    inputs: [{ name: input.name, dims: input.shape }],
    outputs: outs.map((o) => ({ name: o })), // shapes left to the runtime's inference
  };
}
