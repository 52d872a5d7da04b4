/**
 * Issue 18, item 5: the work a face job does. The wasm `Concat` replacement gives the original's
 * result (checked against concatenation done here in plain JS, on the shapes face-api uses and on
 * others that go back to the original kernel); so does the `Slice` replacement (face-api's face crop
 * out of the image tensor), against slicing done here in plain JS.
 */
import { describe, expect, it } from 'vitest';
import { concatStats, loadTf, sliceStats } from '../../../models/face/tf.ts';

/** Concatenation of row-major arrays along `axis`, in plain JS (the reference). */
function concatRef(parts: { data: number[]; shape: number[] }[], axis: number): number[] {
  const size = (s: number[]) => s.reduce((a, b) => a * b, 1);
  const outer = size(parts[0]!.shape.slice(0, axis));
  const out: number[] = [];
  for (let b = 0; b < outer; b++) {
    for (const p of parts) {
      const inner = size(p.shape.slice(axis));
      out.push(...p.data.slice(b * inner, (b + 1) * inner));
    }
  }
  return out;
}

describe('wasm Concat replacement (face-api normalize)', () => {
  const cases: { name: string; shapes: number[][]; axis: number; dtype: 'float32' | 'int32'; fast: boolean }[] = [
    { name: 'per-channel mean image, 1x416x416x(1+1+1) on axis 3', shapes: [[1, 416, 416, 1], [1, 416, 416, 1], [1, 416, 416, 1]], axis: 3, dtype: 'float32', fast: true },
    { name: 'unequal narrow blocks, int32, 2x30x5x(1+2) on axis -1', shapes: [[2, 30, 5, 1], [2, 30, 5, 2]], axis: -1, dtype: 'int32', fast: true },
    { name: 'padToSquare-style wide blocks, 1x40x(30+10)x3 on axis 2', shapes: [[1, 40, 30, 3], [1, 40, 10, 3]], axis: 2, dtype: 'float32', fast: false },
    { name: 'few outer rows, 3x(2+4) on axis 1', shapes: [[3, 2], [3, 4]], axis: 1, dtype: 'float32', fast: false },
  ];
  for (const c of cases) {
    it(`${c.name}: same values as a plain concatenation`, async () => {
      const tf = await loadTf();
      let seed = 7;
      const rnd = () => { seed = (seed * 1103515245 + 12345) >>> 0; return c.dtype === 'int32' ? (seed >>> 20) - 2048 : (seed / 2 ** 32) * 200 - 100; };
      const parts = c.shapes.map((shape) => ({ shape, data: Array.from({ length: shape.reduce((a, b) => a * b, 1) }, rnd) }));
      const before = concatStats.elementwise;
      const out = tf.tidy(() => tf.concat(parts.map((p) => tf.tensor(p.data, p.shape, c.dtype)), c.axis));
      const got = Array.from(await out.data() as Float32Array | Int32Array);
      tf.dispose(out);
      const axis = c.axis < 0 ? c.shapes[0]!.length + c.axis : c.axis;
      const want = Array.from(c.dtype === 'int32' ? Int32Array.from(concatRef(parts, axis)) : Float32Array.from(concatRef(parts, axis)));
      expect(got).toEqual(want);
      expect(concatStats.elementwise - before).toBe(c.fast ? 1 : 0);
    });
  }
});

/** Slice of a row-major rank-3 array, in plain JS (the reference). */
function sliceRef(data: number[], shape: number[], begin: number[], size: number[]): number[] {
  const out: number[] = [];
  for (let i = begin[0]!; i < begin[0]! + size[0]!; i++) {
    for (let j = begin[1]!; j < begin[1]! + size[1]!; j++) {
      for (let k = begin[2]!; k < begin[2]! + size[2]!; k++) out.push(data[(i * shape[1]! + j) * shape[2]! + k]!);
    }
  }
  return out;
}

describe('wasm Slice replacement (face-api face crops)', () => {
  const cases: { name: string; shape: number[]; begin: number[]; size: number[]; dtype: 'float32' | 'int32'; fast: boolean }[] = [
    { name: 'face box out of a 480x640x3 int32 photo', shape: [480, 640, 3], begin: [117, 203, 0], size: [181, 163, 3], dtype: 'int32', fast: true },
    { name: 'float32 box touching the right and bottom edges, size -1', shape: [50, 40, 3], begin: [20, 25, 0], size: [-1, -1, -1], dtype: 'float32', fast: true },
    { name: 'partial last axis', shape: [10, 12, 3], begin: [1, 2, 1], size: [4, 5, 2], dtype: 'float32', fast: false },
    { name: 'whole rows (contiguous)', shape: [10, 12, 3], begin: [3, 0, 0], size: [4, 12, 3], dtype: 'int32', fast: false },
  ];
  for (const c of cases) {
    it(`${c.name}: same values as a plain slice`, async () => {
      const tf = await loadTf();
      let seed = 11;
      const rnd = () => { seed = (seed * 1103515245 + 12345) >>> 0; return c.dtype === 'int32' ? (seed >>> 24) : (seed / 2 ** 32) * 200 - 100; };
      const data = Array.from({ length: c.shape.reduce((a, b) => a * b, 1) }, rnd);
      const size = c.size.map((v, i) => (v === -1 ? c.shape[i]! - c.begin[i]! : v));
      const before = sliceStats.rows;
      const out = tf.tidy(() => tf.slice(tf.tensor(data, c.shape, c.dtype), c.begin, c.size));
      expect(out.shape).toEqual(size);
      const got = Array.from(await out.data() as Float32Array | Int32Array);
      tf.dispose(out);
      const ref = sliceRef(data, c.shape, c.begin, size);
      expect(got).toEqual(Array.from(c.dtype === 'int32' ? Int32Array.from(ref) : Float32Array.from(ref)));
      expect(sliceStats.rows - before).toBe(c.fast ? 1 : 0);
    });
  }
});

describe('decodes and detections per face job', () => {
  it('face.descriptor decodes and detects its image once, also when it adds liveness; face.verify once per image', async () => {
    const { handlers } = await import('../../../models/face/jobs.ts');
    const { faceWork } = await import('../../../models/face/work-counters.ts');
    const { faceCrop } = await import('../../api/face/fixtures.ts');
    const img = new Uint8Array(await faceCrop('a', 0.6));
    const img2 = new Uint8Array(await faceCrop('a', 0.35, { brightness: 1.1, flip: true }));
    const count = async <T>(f: () => Promise<T>) => {
      const d0 = faceWork.decodes, t0 = faceWork.detections;
      const out = await f();
      return { out, decodes: faceWork.decodes - d0, detections: faceWork.detections - t0 };
    };
    const plain = await count(() => handlers['face.descriptor']({ image: img }));
    expect([plain.decodes, plain.detections]).toEqual([1, 1]);
    expect(plain.out.liveness).toBeUndefined();
    const both = await count(() => handlers['face.descriptor']({ image: img, liveness: {} }));
    expect([both.decodes, both.detections]).toEqual([1, 1]);
    expect(both.out.descriptor1024).toEqual(plain.out.descriptor1024);
    const alone = await handlers['face.liveness']({ image: img });
    expect(both.out.liveness).toEqual(alone);
    const verify = await count(() => handlers['face.verify']({ image1: img, image2: img2 }));
    expect([verify.decodes, verify.detections]).toEqual([2, 2]);
    expect(verify.out.verified).toBe(true);
  }, 600_000);
});
