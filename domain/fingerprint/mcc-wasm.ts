/**
 * The MCC local-similarity stage of `matchCylinders` (mcc.ts) in WebAssembly: the kernel in
 * mcc-wasm.wat (its header gives the memory layout), compiled into mcc-wasm-binary.ts. Same arithmetic in
 * the same order as the JavaScript path, so the similarities, their order and hence every score are
 * identical (test/unit/fingerprint/mcc-wasm.test.ts compares the two on FVC2002 and generated templates).
 * It is faster because a pair of cylinders costs 24 loads, ANDs and `i64.popcnt` of 64 bits (plus as many
 * for the border words of a partial mask) in compiled code, square roots from a table, instead of a loop
 * over the 32-bit words non-zero in both with a software popcount (figures in docs/fingerprint.md,
 * Benchmarks).
 *
 * The cylinders are copied into the module's memory at each call, except the A and B of the previous
 * call (compared by identity: a CylinderSet is not modified after it is built), so a 1:N search copies
 * its probe once. The kernel uses a few 128-bit SIMD instructions (masks), so it is `null` on a runtime
 * without WebAssembly SIMD (Node ≥ 16.4 has it).
 */
import { MCC_WASM_BASE64 } from './mcc-wasm-binary.ts';

/** The arrays of a template's cylinders the kernel reads (CylinderSet fields, mcc.ts). */
export interface WasmCylinders {
  n: number;
  bits: Uint32Array;
  mask: Uint32Array;
  angle: Float32Array;
  cells: Uint16Array;
  pop: Uint16Array;
  part: Uint8Array;
  flip: Uint8Array;
}

/** A's turned cylinders (mcc.ts `flipped`): bits, mask and partial-mask flags. */
export interface WasmTurned {
  bits: Uint32Array;
  mask: Uint32Array;
  part: Uint8Array;
}

/**
 * Writes the local similarities (> 0) of the matchable pairs of A's and B's cylinders to val (the
 * similarity), idx (i·nB + j) and turned (1 when A's turned cylinder was used), in the order i then j,
 * and returns their count. `F`: A's turned cylinders, or null when turned cylinders are not used;
 * dTheta: δθ, radians. The output arrays must hold nA·nB entries.
 */
export type WasmSimilarities = (A: WasmCylinders, F: WasmTurned | null, B: WasmCylinders, dTheta: number, val: Float32Array, idx: Int32Array, turned: Uint8Array) => number;

/** Bytes of a template block of n cylinders (mcc-wasm.wat header), 16-byte aligned. */
const blockBytes = (n: number) => (n * 234 + 15) & ~15;
const turnedBytes = (n: number) => (n * 225 + 15) & ~15;
const BASE = 28736; // after the square-root table (mcc-wasm.wat header)

/** base64 to bytes without Node's Buffer. */
function decode(b64: string): Uint8Array<ArrayBuffer> {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/**
 * Instantiates the kernel (`bytes`: the module, mcc-wasm-binary.ts's by default) with `circle` (the LW = 8
 * words of the cells inside the cylinder's radius, mcc.ts CIRCLE); null when WebAssembly or its SIMD is
 * unavailable.
 */
export function createWasmSimilarities(circle: Uint32Array, bytes: Uint8Array<ArrayBuffer> = decode(MCC_WASM_BASE64)): WasmSimilarities | null {
  let instance: WebAssembly.Instance;
  try {
    if (!WebAssembly.validate(bytes)) return null;
    instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {});
  } catch {
    return null;
  }
  const memory = instance.exports.memory as WebAssembly.Memory;
  const similarities = instance.exports.similarities as (nA: number, a: number, nB: number, b: number, f: number, dTheta: number, out: number) => number;
  let u8 = new Uint8Array(memory.buffer), u16 = new Uint16Array(memory.buffer), u32 = new Uint32Array(memory.buffer);
  let f32 = new Float32Array(memory.buffer), i32 = new Int32Array(memory.buffer);
  u32.set(circle, 0);
  const f64 = new Float64Array(memory.buffer, 4096, 3073);
  for (let k = 0; k <= 3072; k++) f64[k] = Math.sqrt(k);
  let lastA: WasmCylinders | null = null, lastF: WasmTurned | null = null, lastB: WasmCylinders | null = null, lastBAt = -1;

  const ensure = (bytes: number) => {
    if (bytes <= memory.buffer.byteLength) return;
    memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / 65536));
    u8 = new Uint8Array(memory.buffer); u16 = new Uint16Array(memory.buffer); u32 = new Uint32Array(memory.buffer);
    f32 = new Float32Array(memory.buffer); i32 = new Int32Array(memory.buffer);
  };
  const writeBlock = (S: WasmCylinders, at: number) => {
    const n = S.n;
    u32.set(S.bits.subarray(0, n * 48), at >> 2);
    u32.set(S.mask.subarray(0, n * 8), (at + 192 * n) >> 2);
    f32.set(S.angle.subarray(0, n), (at + 224 * n) >> 2);
    u16.set(S.cells.subarray(0, n), (at + 228 * n) >> 1);
    u16.set(S.pop.subarray(0, n), (at + 230 * n) >> 1);
    u8.set(S.part.subarray(0, n), at + 232 * n);
    u8.set(S.flip.subarray(0, n), at + 233 * n);
  };

  return (A, F, B, dTheta, val, idx, turned) => {
    const nA = A.n, nB = B.n;
    const fAt = BASE + blockBytes(nA);
    const bAt = fAt + (F ? turnedBytes(nA) : 0);
    const out = bAt + blockBytes(nB);
    const cap = nA * nB;
    ensure(out + 9 * cap);
    if (A !== lastA) { writeBlock(A, BASE); lastA = A; lastF = null; lastB = null; }
    if (F && F !== lastF) {
      u32.set(F.bits.subarray(0, nA * 48), fAt >> 2);
      u32.set(F.mask.subarray(0, nA * 8), (fAt + 192 * nA) >> 2);
      u8.set(F.part.subarray(0, nA), fAt + 224 * nA);
      lastF = F; lastB = null;
    }
    if (B !== lastB || bAt !== lastBAt) {
      writeBlock(B, bAt); lastB = B; lastBAt = bAt;
      if (!F) lastF = null; // B may now lie where A's turned cylinders were
    }
    const cnt = similarities(nA, BASE, nB, bAt, F ? fAt : 0, dTheta, out);
    val.set(f32.subarray(out >> 2, (out >> 2) + cnt));
    idx.set(i32.subarray((out >> 2) + cap, (out >> 2) + cap + cnt));
    turned.set(u8.subarray(out + 8 * cap, out + 8 * cap + cnt));
    return cnt;
  };
}
