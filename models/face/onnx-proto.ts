/**
 * A minimal writer of ONNX model files (protobuf wire format), enough for the graphs that
 * `models/face/tfjs-to-onnx.ts` builds: nodes with int/float/ints attributes, float32/int64 initializers,
 * fully static float32 inputs and outputs. No protobuf library ships with this project's packages, and
 * none is needed for so few message types.
 *
 * Field numbers are those of `onnx/onnx.proto` (ONNX 1.x): ModelProto {ir_version 1, producer_name 2,
 * graph 7, opset_import 8}, GraphProto {node 1, name 2, initializer 5, input 11, output 12}, NodeProto
 * {input 1, output 2, name 3, op_type 4, attribute 5}, AttributeProto {name 1, f 2, i 3, s 4, ints 8,
 * type 20}, TensorProto {dims 1, data_type 2, name 8, raw_data 9}, ValueInfoProto {name 1, type 2},
 * TypeProto {tensor_type 1}, TypeProto.Tensor {elem_type 1, shape 2}, TensorShapeProto {dim 1},
 * Dimension {dim_value 1}, OperatorSetIdProto {domain 1, version 2}.
 */

/** An attribute value: a number is an INT unless listed in `floats`; a number[] is INTS; a string is STRING. */
export type OnnxAttr = number | number[] | string | { float: number };

/** One ONNX node. */
export interface OnnxNode { op: string; name: string; inputs: string[]; outputs: string[]; attrs?: Record<string, OnnxAttr> }

/** One initializer (a constant tensor): float32 or int64 values, row major. */
export interface OnnxInitializer { name: string; dims: number[]; data: Float32Array | BigInt64Array }

/** A graph input or output: float32, with a static shape when `dims` is given (else left to shape inference). */
export interface OnnxValue { name: string; dims?: number[] }

/** A whole model: one graph, default-domain opset `opset`. */
export interface OnnxModel {
  name: string; opset: number; nodes: OnnxNode[]; initializers: OnnxInitializer[];
  inputs: OnnxValue[]; outputs: OnnxValue[];
}

/** ONNX `TensorProto.DataType` codes used here. */
const FLOAT = 1, INT64 = 7;
/** ONNX `AttributeProto.AttributeType` codes used here. */
const ATTR_FLOAT = 1, ATTR_INT = 2, ATTR_STRING = 3, ATTR_INTS = 7;

/** Growable byte buffer with protobuf primitives. */
class Writer {
  private buf = new Uint8Array(1024);
  private len = 0;

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  /** Unsigned varint; values must be non-negative integers below 2^53. */
  varint(v: number): this {
    if (!Number.isSafeInteger(v) || v < 0) throw new Error(`onnx-proto: varint out of range: ${v}`);
    this.reserve(10);
    while (v >= 0x80) { this.buf[this.len++] = (v % 0x80) | 0x80; v = Math.floor(v / 0x80); }
    this.buf[this.len++] = v;
    return this;
  }

  private key(field: number, wire: number): this { return this.varint(field * 8 + wire); }

  int(field: number, v: number): this { return this.key(field, 0).varint(v); }

  float(field: number, v: number): this {
    this.key(field, 5).reserve(4);
    new DataView(this.buf.buffer).setFloat32(this.len, v, true);
    this.len += 4;
    return this;
  }

  bytes(field: number, b: Uint8Array): this {
    this.key(field, 2).varint(b.byteLength).reserve(b.byteLength);
    this.buf.set(b, this.len);
    this.len += b.byteLength;
    return this;
  }

  string(field: number, s: string): this { return this.bytes(field, new TextEncoder().encode(s)); }

  message(field: number, fill: (w: Writer) => void): this {
    const w = new Writer();
    fill(w);
    return this.bytes(field, w.finish());
  }

  finish(): Uint8Array { return this.buf.subarray(0, this.len); }
}

function attribute(w: Writer, name: string, v: OnnxAttr): void {
  w.string(1, name);
  if (typeof v === 'string') w.bytes(4, new TextEncoder().encode(v)).int(20, ATTR_STRING);
  else if (Array.isArray(v)) { for (const x of v) w.int(8, x); w.int(20, ATTR_INTS); }
  else if (typeof v === 'object') w.float(2, v.float).int(20, ATTR_FLOAT);
  else w.int(3, v).int(20, ATTR_INT);
}

function valueInfo(w: Writer, v: OnnxValue): void {
  w.string(1, v.name).message(2, (t) => t.message(1, (tt) => {
    tt.int(1, FLOAT);
    if (v.dims) tt.message(2, (shape) => { for (const d of v.dims!) shape.message(1, (dim) => dim.int(1, d)); });
  }));
}

/**
 * Serialises a model to ONNX protobuf bytes (IR version 8), for `InferenceSession.create(bytes)`.
 * @throws Error on a negative or non-integer dimension or attribute integer
 */
export function encodeOnnxModel(m: OnnxModel): Uint8Array {
  const w = new Writer();
  w.int(1, 8).string(2, 'sello tfjs-to-onnx');
  w.message(7, (g) => {
    for (const n of m.nodes) {
      g.message(1, (nw) => {
        for (const i of n.inputs) nw.string(1, i);
        for (const o of n.outputs) nw.string(2, o);
        nw.string(3, n.name).string(4, n.op);
        for (const [k, v] of Object.entries(n.attrs ?? {})) nw.message(5, (a) => attribute(a, k, v));
      });
    }
    g.string(2, m.name);
    for (const t of m.initializers) {
      g.message(5, (tw) => {
        for (const d of t.dims) tw.int(1, d);
        tw.int(2, t.data instanceof Float32Array ? FLOAT : INT64).string(8, t.name);
        // raw_data is little-endian, as on every platform Node runs on here
        tw.bytes(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
      });
    }
    for (const v of m.inputs) g.message(11, (vw) => valueInfo(vw, v));
    for (const v of m.outputs) g.message(12, (vw) => valueInfo(vw, v));
  });
  w.message(8, (o) => o.string(1, '').int(2, m.opset));
  return w.finish();
}

/** A weight tensor as face-api holds it: shape and values (`dataSync()` of a tfjs tensor). */
export interface WeightTensor { shape: number[]; dataSync(): Float32Array | Int32Array | Uint8Array }

/**
 * Builds an ONNX graph node by node, naming tensors uniquely; used to write face-api's nets (whose
 * layers are code, not a graph file) from their loaded weights. Activations are NCHW.
 */
export class GraphBuilder {
  readonly nodes: OnnxNode[] = [];
  readonly initializers: OnnxInitializer[] = [];
  private uid = 0;

  private id(base: string): string { return `${base}_${this.uid++}`; }

  /** Adds a float32 (or int64) constant; returns its name. */
  init(base: string, dims: number[], data: Float32Array | BigInt64Array): string {
    const n = this.id(base);
    this.initializers.push({ name: n, dims, data });
    return n;
  }

  /** Adds a node with one output; returns the output's name (`name` if given). */
  node(op: string, inputs: string[], attrs?: OnnxNode['attrs'], name?: string): string {
    const out = name ?? this.id(op.toLowerCase());
    this.nodes.push({ op, name: out, inputs, outputs: [out], attrs });
    return out;
  }

  /** A per-channel constant `[C,1,1]` (broadcasts over NCHW) from a 1-D weight. */
  perChannel(t: WeightTensor, base: string): string {
    return this.init(base, [t.shape[0]!, 1, 1], Float32Array.from(t.dataSync()));
  }

  /** An int64 `pads` constant for `Pad` (begins of every axis, then ends, NCHW). */
  pads(pads: number[]): string {
    return this.init('pads', [pads.length], BigInt64Array.from(pads.map(BigInt)));
  }

  /**
   * A tfjs-layout convolution as ONNX `Conv`: kernel HWIO `[kh,kw,cin,cout]` -> OIHW, or with
   * `depthwise` `[kh,kw,C,1]` -> `[C,1,kh,kw]` with `group` C. `pad`: 'same' (TF SAME = `SAME_UPPER`),
   * 'valid', or explicit `[top, left, bottom, right]`.
   */
  conv(x: string, filters: WeightTensor, bias: WeightTensor | null, opts: { stride?: number; pad: 'same' | 'valid' | number[]; depthwise?: boolean }): string {
    const [kh, kw, cin, m] = filters.shape as [number, number, number, number];
    const w = filters.dataSync(), t = new Float32Array(w.length);
    const depthwise = opts.depthwise ?? false;
    if (depthwise && m !== 1) throw new Error(`GraphBuilder.conv: depthwise multiplier ${m} not supported`);
    for (let y = 0; y < kh; y++) for (let xx = 0; xx < kw; xx++) for (let c = 0; c < cin; c++) for (let o = 0; o < m; o++) {
      const v = w[((y * kw + xx) * cin + c) * m + o]!;
      if (depthwise) t[(c * kh + y) * kw + xx] = v;
      else t[((o * cin + c) * kh + y) * kw + xx] = v;
    }
    const cout = depthwise ? cin : m;
    const inputs = [x, this.init('filters', depthwise ? [cin, 1, kh, kw] : [cout, cin, kh, kw], t)];
    if (bias) inputs.push(this.init('bias', [cout], Float32Array.from(bias.dataSync())));
    const s = opts.stride ?? 1;
    const padAttr: Record<string, OnnxAttr> = Array.isArray(opts.pad)
      ? { pads: [opts.pad[0]!, opts.pad[1]!, opts.pad[2]!, opts.pad[3]!] }
      : { auto_pad: opts.pad === 'same' ? 'SAME_UPPER' : 'VALID' };
    return this.node('Conv', inputs, { kernel_shape: [kh, kw], strides: [s, s], ...padAttr, ...(depthwise ? { group: cin } : {}) });
  }
}
