/**
 * 5-point face alignment (ArcFace / InsightFace convention).
 *
 * The reference points are InsightFace's `arcface_dst` template for a 112x112 crop
 * (insightface/utils/face_align.py): left eye, right eye, nose tip, left and right mouth corners, in
 * the image's left-to-right order. A similarity transform (rotation, uniform scale, translation) fitted
 * by least squares (Umeyama 1991, "Least-squares estimation of transformation parameters between two
 * point patterns", without reflection) maps the crop onto the image; pixels are sampled bilinearly,
 * outside the image they are black (as OpenCV's `warpAffine` default).
 */
import type { RgbImage } from './image.ts';

/** A 2-D point in pixels. */
export interface Point { x: number; y: number }

/** ArcFace 112x112 template: [left eye, right eye, nose, mouth left, mouth right]. */
export const ARCFACE_TEMPLATE_112: readonly Point[] = [
  { x: 38.2946, y: 51.6963 },
  { x: 73.5318, y: 51.5014 },
  { x: 56.0252, y: 71.7366 },
  { x: 41.5493, y: 92.3655 },
  { x: 70.7299, y: 92.2041 },
];

/** Similarity transform x' = a*x - b*y + tx, y' = b*x + a*y + ty. */
export interface Similarity { a: number; b: number; tx: number; ty: number }

/** Least-squares similarity transform mapping `from[i]` onto `to[i]` (same length, at least 2 points). */
export function fitSimilarity(from: readonly Point[], to: readonly Point[]): Similarity {
  const n = from.length;
  let fx = 0, fy = 0, tx = 0, ty = 0;
  for (let i = 0; i < n; i++) { fx += from[i]!.x; fy += from[i]!.y; tx += to[i]!.x; ty += to[i]!.y; }
  fx /= n; fy /= n; tx /= n; ty /= n;
  let num1 = 0, num2 = 0, den = 0;
  for (let i = 0; i < n; i++) {
    const ux = from[i]!.x - fx, uy = from[i]!.y - fy;
    const vx = to[i]!.x - tx, vy = to[i]!.y - ty;
    num1 += ux * vx + uy * vy;
    num2 += ux * vy - uy * vx;
    den += ux * ux + uy * uy;
  }
  const a = den > 0 ? num1 / den : 1;
  const b = den > 0 ? num2 / den : 0;
  return { a, b, tx: tx - (a * fx - b * fy), ty: ty - (b * fx + a * fy) };
}

/**
 * Warps the face into a `size`x`size` crop aligned on the ArcFace template scaled to `size`/112.
 * @param landmarks5 the five points in image pixels (left eye, right eye, nose, mouth left, mouth right)
 * @returns RGB float32 values 0-255, HWC, length size*size*3
 */
export function alignFace(img: RgbImage, landmarks5: readonly Point[], size = 224): Float32Array {
  const scale = size / 112;
  const dst = ARCFACE_TEMPLATE_112.map((p) => ({ x: p.x * scale, y: p.y * scale }));
  // Map crop coordinates -> image coordinates directly (inverse warp).
  const m = fitSimilarity(dst, landmarks5);
  const out = new Float32Array(size * size * 3);
  const { data, width, height } = img;
  // Per pixel: the four bilinear taps (weights and offsets) once, then the three channels; each
  // channel sums its taps in the same order (top-left, top-right, bottom-left, bottom-right).
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const sx = m.a * x - m.b * y + m.tx;
      const sy = m.b * x + m.a * y + m.ty;
      const x0 = Math.floor(sx), y0 = Math.floor(sy);
      const dx = sx - x0, dy = sy - y0;
      const o = (y * size + x) * 3;
      const inX0 = x0 >= 0 && x0 < width, inX1 = x0 + 1 >= 0 && x0 + 1 < width;
      const inY0 = y0 >= 0 && y0 < height, inY1 = y0 + 1 >= 0 && y0 + 1 < height;
      const w00 = (1 - dx) * (1 - dy), w10 = dx * (1 - dy), w01 = (1 - dx) * dy, w11 = dx * dy;
      const i00 = (y0 * width + x0) * 3, i10 = i00 + 3, i01 = i00 + width * 3, i11 = i01 + 3;
      const t00 = inX0 && inY0, t10 = inX1 && inY0, t01 = inX0 && inY1, t11 = inX1 && inY1;
      for (let c = 0; c < 3; c++) {
        let v = 0;
        if (t00) v += w00 * data[i00 + c]!;
        if (t10) v += w10 * data[i10 + c]!;
        if (t01) v += w01 * data[i01 + c]!;
        if (t11) v += w11 * data[i11 + c]!;
        out[o + c] = v;
      }
    }
  }
  return out;
}

/**
 * Resamples the rectangle [x0, x1) x [y0, y1) of an RGB image (pixels; may extend past the image,
 * outside is black) into `outW` x `outH`, RGB float32 0-255, HWC. Each output pixel averages a grid of
 * bilinear samples (up to 4x4) when shrinking, so large faces are not aliased.
 */
export function cropRgb(img: RgbImage, rect: { x0: number; y0: number; x1: number; y1: number }, outW: number, outH: number): Float32Array {
  const out = new Float32Array(outW * outH * 3);
  const { data, width, height } = img;
  const sx = (rect.x1 - rect.x0) / outW, sy = (rect.y1 - rect.y0) / outH;
  const nx = Math.max(1, Math.min(4, Math.round(sx))), ny = Math.max(1, Math.min(4, Math.round(sy)));
  const n = nx * ny;
  for (let j = 0; j < outH; j++) {
    for (let i = 0; i < outW; i++) {
      let r = 0, g = 0, b = 0;
      for (let v = 0; v < ny; v++) for (let u = 0; u < nx; u++) {
        // one bilinear sample, its taps summed in the order top-left, top-right, bottom-left, bottom-right
        const fx = rect.x0 + (i + (u + 0.5) / nx) * sx - 0.5, fy = rect.y0 + (j + (v + 0.5) / ny) * sy - 0.5;
        const x0 = Math.floor(fx), y0 = Math.floor(fy), dx = fx - x0, dy = fy - y0;
        let pr = 0, pg = 0, pb = 0;
        for (let k = 0; k < 4; k++) {
          const xx = x0 + (k & 1), yy = y0 + (k >> 1);
          if (xx < 0 || yy < 0 || xx >= width || yy >= height) continue;
          const w = ((k & 1) ? dx : 1 - dx) * ((k >> 1) ? dy : 1 - dy);
          const o = (yy * width + xx) * 3;
          pr += w * data[o]!; pg += w * data[o + 1]!; pb += w * data[o + 2]!;
        }
        r += pr; g += pg; b += pb;
      }
      const o = (j * outW + i) * 3;
      out[o] = r / n; out[o + 1] = g / n; out[o + 2] = b / n;
    }
  }
  return out;
}
