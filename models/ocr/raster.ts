/**
 * Raster helpers shared by the OCR engines: an RGB image type, bilinear crops of rotated boxes,
 * grey conversion and the sharpness measure used by the quality gate.
 *
 * Pure TypeScript over `Uint8Array`s so the code runs unchanged in a worker thread.
 */

/** 8-bit interleaved RGB image, row-major, `data.length === width * height * 3`. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A point in pixel coordinates of the image it was measured on. */
export type Point = [number, number];

/** A quadrilateral in clockwise order starting top-left: `[tl, tr, br, bl]`. */
export type Quad = [Point, Point, Point, Point];

/** Euclidean distance in pixels. */
export function dist(a: Point, b: Point): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1]);
}

/**
 * Samples the parallelogram spanned by `quad` (tl -> tr along x, tl -> bl along y) into an upright image
 * of `outW` x `outH` pixels with bilinear interpolation. Pixels outside the source read as white.
 */
export function warpQuad(img: RgbImage, quad: Quad, outW: number, outH: number): RgbImage {
  const [tl, tr, , bl] = quad;
  const out = new Uint8Array(outW * outH * 3);
  const ux = (tr[0] - tl[0]) / outW;
  const uy = (tr[1] - tl[1]) / outW;
  const vx = (bl[0] - tl[0]) / outH;
  const vy = (bl[1] - tl[1]) / outH;
  const { data, width, height } = img;
  const tlx = tl[0];
  const tly = tl[1];
  if (uy === 0 && vx === 0) return resizeAxisAligned(img, tlx, tly, ux, vy, outW, outH, out);
  let o = 0;
  for (let j = 0; j < outH; j++) {
    for (let i = 0; i < outW; i++) {
      // The same arithmetic, in the same order, as the per-channel `px` reads below: a fast path only
      // skips the bounds checks when all four neighbours are inside (results are bit-identical).
      const sx = tlx + (i + 0.5) * ux + (j + 0.5) * vx - 0.5;
      const sy = tly + (i + 0.5) * uy + (j + 0.5) * vy - 0.5;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const fx = sx - x0;
      const fy = sy - y0;
      const gx = 1 - fx;
      const gy = 1 - fy;
      if (x0 >= 0 && y0 >= 0 && x0 + 1 < width && y0 + 1 < height) {
        const a = (y0 * width + x0) * 3;
        const b = a + width * 3;
        for (let c = 0; c < 3; c++) {
          out[o++] = (data[a + c]! * gx + data[a + 3 + c]! * fx) * gy + (data[b + c]! * gx + data[b + 3 + c]! * fx) * fy;
        }
      } else {
        for (let c = 0; c < 3; c++) out[o++] = borderTap(data, width, height, x0, y0, fx, fy, c);
      }
    }
  }
  return { data: out, width: outW, height: outH };
}

/**
 * {@link warpQuad} of an axis-aligned rectangle (a resize, e.g. the detector's input): the source column of
 * an output column and the source row of an output row are computed once, with the same arithmetic as the
 * general case (`+ (j + 0.5) * 0` included), so the output is bit-identical.
 */
function resizeAxisAligned(img: RgbImage, tlx: number, tly: number, ux: number, vy: number, outW: number, outH: number, out: Uint8Array): RgbImage {
  const { data, width, height } = img;
  const xs0 = new Int32Array(outW);
  const fxs = new Float64Array(outW);
  const inX = new Uint8Array(outW);
  for (let i = 0; i < outW; i++) {
    // sx = tl[0] + (i + 0.5) * ux + (j + 0.5) * vx - 0.5 with vx = 0 (adding +0 or -0 does not change a sum)
    const sx = tlx + (i + 0.5) * ux + 0 - 0.5;
    const x0 = Math.floor(sx);
    xs0[i] = x0;
    fxs[i] = sx - x0;
    inX[i] = x0 >= 0 && x0 + 1 < width ? 1 : 0;
  }
  let o = 0;
  for (let j = 0; j < outH; j++) {
    const sy = tly + 0 + (j + 0.5) * vy - 0.5;
    const y0 = Math.floor(sy);
    const fy = sy - y0;
    const gy = 1 - fy;
    const rowIn = y0 >= 0 && y0 + 1 < height;
    for (let i = 0; i < outW; i++) {
      const x0 = xs0[i]!;
      const fx = fxs[i]!;
      const gx = 1 - fx;
      if (rowIn && inX[i]) {
        const a = (y0 * width + x0) * 3;
        const b = a + width * 3;
        out[o++] = (data[a]! * gx + data[a + 3]! * fx) * gy + (data[b]! * gx + data[b + 3]! * fx) * fy;
        out[o++] = (data[a + 1]! * gx + data[a + 4]! * fx) * gy + (data[b + 1]! * gx + data[b + 4]! * fx) * fy;
        out[o++] = (data[a + 2]! * gx + data[a + 5]! * fx) * gy + (data[b + 2]! * gx + data[b + 5]! * fx) * fy;
      } else {
        for (let c = 0; c < 3; c++) out[o++] = borderTap(data, width, height, x0, y0, fx, fy, c);
      }
    }
  }
  return { data: out, width: outW, height: outH };
}

/**
 * Bilinear sample of channel `c` at (x0 + fx, y0 + fy) with out-of-image taps clamped to the border (the
 * slow path of {@link warpQuad} and its axis-aligned resize, near the image's edge).
 */
function borderTap(data: Uint8Array, w: number, h: number, x0: number, y0: number, fx: number, fy: number, c: number): number {
  const gx = 1 - fx, gy = 1 - fy;
  return (px(data, w, h, x0, y0, c) * gx + px(data, w, h, x0 + 1, y0, c) * fx) * gy + (px(data, w, h, x0, y0 + 1, c) * gx + px(data, w, h, x0 + 1, y0 + 1, c) * fx) * fy;
}

function px(data: Uint8Array, w: number, h: number, x: number, y: number, c: number): number {
  if (x < 0 || y < 0 || x >= w || y >= h) return 255;
  return data[(y * w + x) * 3 + c]!;
}

/** Luma (ITU-R BT.601 weights) as a `Float32Array` of `width * height` values in 0..255. */
export function toGrey(img: RgbImage): Float32Array {
  const n = img.width * img.height;
  const g = new Float32Array(n);
  for (let i = 0, j = 0; i < n; i++, j += 3) {
    g[i] = 0.299 * img.data[j]! + 0.587 * img.data[j + 1]! + 0.114 * img.data[j + 2]!;
  }
  return g;
}

/**
 * Variance of the 4-neighbour Laplacian of the grey image: the classic focus measure
 * (Pech-Pacheco et al., "Diatom autofocusing in brightfield microscopy", ICPR 2000). Low = blurred.
 * Scale-dependent: call it on images resized to a common width.
 */
export function laplacianVariance(grey: Float32Array, width: number, height: number): number {
  let sum = 0;
  let sum2 = 0;
  let n = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const l = grey[i - 1]! + grey[i + 1]! + grey[i - width]! + grey[i + width]! - 4 * grey[i]!;
      sum += l;
      sum2 += l * l;
      n++;
    }
  }
  if (n === 0) return 0;
  const mean = sum / n;
  return sum2 / n - mean * mean;
}
