/**
 * `warpQuad` (models/ocr/raster.ts) with its fast paths (samples inside the image, axis-aligned resizes)
 * gives the bytes of the plain per-sample bilinear definition: the OCR figures of docs/ocr.md were measured
 * with that definition, so a faster sampler must not change a single byte.
 */
import { describe, expect, it } from 'vitest';
import { warpQuad, type Quad, type RgbImage } from '../../models/ocr/raster.ts';

/** The definition: each output sample bilinear at its centre's source point, outside pixels white. */
function reference(img: RgbImage, quad: Quad, outW: number, outH: number): Uint8Array {
  const [tl, tr, , bl] = quad;
  const out = new Uint8Array(outW * outH * 3);
  const ux = (tr[0] - tl[0]) / outW;
  const uy = (tr[1] - tl[1]) / outW;
  const vx = (bl[0] - tl[0]) / outH;
  const vy = (bl[1] - tl[1]) / outH;
  const px = (x: number, y: number, c: number) => (x < 0 || y < 0 || x >= img.width || y >= img.height ? 255 : img.data[(y * img.width + x) * 3 + c]!);
  let o = 0;
  for (let j = 0; j < outH; j++) {
    for (let i = 0; i < outW; i++) {
      const sx = tl[0] + (i + 0.5) * ux + (j + 0.5) * vx - 0.5;
      const sy = tl[1] + (i + 0.5) * uy + (j + 0.5) * vy - 0.5;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const fx = sx - x0;
      const fy = sy - y0;
      for (let c = 0; c < 3; c++) out[o++] = (px(x0, y0, c) * (1 - fx) + px(x0 + 1, y0, c) * fx) * (1 - fy) + (px(x0, y0 + 1, c) * (1 - fx) + px(x0 + 1, y0 + 1, c) * fx) * fy;
    }
  }
  return out;
}

/** Deterministic pseudo-random bytes (LCG), so a failure reproduces. */
function image(width: number, height: number, seed: number): RgbImage {
  const data = new Uint8Array(width * height * 3);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    data[i] = s >>> 24;
  }
  return { data, width, height };
}

describe('warpQuad', () => {
  it('resizes (axis-aligned, inside and past the edges) exactly as the definition', () => {
    const img = image(403, 257, 1);
    const quads: Quad[] = [
      [[0, 0], [403, 0], [403, 257], [0, 257]],
      [[-3.3, 2.7], [410.1, 2.7], [410.1, 249.1], [-3.3, 249.1]],
      [[10.5, 20.25], [300.75, 20.25], [300.75, 60.5], [10.5, 60.5]],
    ];
    for (const q of quads) for (const [w, h] of [[240, 152], [96, 48], [500, 311]] as const) expect(warpQuad(img, q, w, h).data).toEqual(reference(img, q, w, h));
  });

  it('rectifies rotated boxes (some partly outside the image) exactly as the definition', () => {
    const img = image(300, 200, 7);
    let s = 3;
    const rnd = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
    for (let k = 0; k < 40; k++) {
      const x = rnd() * 340 - 20;
      const y = rnd() * 240 - 20;
      const a = (rnd() - 0.5) * 0.6;
      const len = 20 + rnd() * 200;
      const h = 8 + rnd() * 30;
      const q: Quad = [[x, y], [x + len * Math.cos(a), y + len * Math.sin(a)], [x + len * Math.cos(a) - h * Math.sin(a), y + len * Math.sin(a) + h * Math.cos(a)], [x - h * Math.sin(a), y + h * Math.cos(a)]];
      const w = Math.max(8, Math.round((48 * len) / h));
      expect(warpQuad(img, q, w, 48).data).toEqual(reference(img, q, w, 48));
    }
  });
});
