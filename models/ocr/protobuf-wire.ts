/**
 * The protobuf wire format (https://protobuf.dev/programming-guides/encoding/), as much of it as the OCR
 * engines' load-time model rewrites need (`onnx-fuse.ts` reads and rewrites graphs, `rec-model.ts` appends
 * outputs): varints, length-delimited, 32-bit and 64-bit fields; no schema, the callers name ONNX's field
 * numbers themselves. No protobuf library ships with this project's packages.
 */

/** One field of a message, as read by {@link fields}. */
export interface Field {
  field: number;
  wire: number;
  /** varint value (wire 0) */
  int: number;
  /** bytes of a length-delimited or fixed field */
  bytes: Uint8Array;
  /** the whole field as encoded (key included) */
  raw: Uint8Array;
}

/** The varint at `at` of `b` and the offset after it (values up to 2^53). */
function readVarint(b: Uint8Array, at: number): [number, number] {
  let v = 0;
  let mul = 1;
  let i = at;
  for (;;) {
    const c = b[i++]!;
    v += (c & 0x7f) * mul;
    if (c < 0x80) return [v, i];
    mul *= 128;
  }
}

/**
 * The fields of message `b`, in order (sub-messages are not decoded: their `bytes` are).
 * @throws Error on a wire type other than 0, 1, 2 or 5 (groups are not supported)
 */
export function fields(b: Uint8Array): Field[] {
  const out: Field[] = [];
  let i = 0;
  while (i < b.length) {
    const start = i;
    const [key, a] = readVarint(b, i);
    i = a;
    const field = Math.floor(key / 8);
    const wire = key & 7;
    let int = 0;
    let bytes: Uint8Array = new Uint8Array(0);
    if (wire === 0) [int, i] = readVarint(b, i);
    else if (wire === 2) {
      const [len, c] = readVarint(b, i);
      bytes = b.subarray(c, c + len);
      i = c + len;
    } else if (wire === 5) {
      bytes = b.subarray(i, i + 4);
      i += 4;
    } else if (wire === 1) {
      bytes = b.subarray(i, i + 8);
      i += 8;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
    out.push({ field, wire, int, bytes, raw: b.subarray(start, i) });
  }
  return out;
}

/** The varint encoding of a non-negative integer below 2^53. */
function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

/** A length-delimited field (wire 2): bytes, a string or a sub-message. */
export const lenField = (field: number, body: Uint8Array): Uint8Array => Buffer.concat([Buffer.from([...varint(field * 8 + 2), ...varint(body.length)]), body]);
/** A UTF-8 string field. */
export const textField = (field: number, s: string): Uint8Array => lenField(field, Buffer.from(s, 'utf8'));
/** A varint field (wire 0): an integer, enum or bool. */
export const intField = (field: number, v: number): Uint8Array => Buffer.from([...varint(field * 8), ...varint(v)]);
/** A float field (wire 5, little-endian float32). */
export const floatField = (field: number, v: number): Uint8Array => {
  const b = Buffer.alloc(4);
  b.writeFloatLE(v);
  return Buffer.concat([Buffer.from(varint(field * 8 + 5)), b]);
};
/** A UTF-8 string's text from its field bytes. */
export const decodeText = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
