/**
 * Settings of the OCR pipeline, one object per worker thread. The pipeline reads them here, never from
 * environment variables: the worker passes the validated configuration (`apps/api/config.ts`, OCR block) once
 * through `configure` (`jobs.ts`), and evaluation scripts call {@link setOcrSettings} to compare variants.
 * The defaults are the measured production choices (docs/ocr.md).
 */

/** How the MRZ rows' recogniser output is decoded. */
export type MrzDecoder = 'constrained' | 'greedy';

export interface OcrSettings {
  /**
   * ONNX Runtime intra-op threads of each PaddleOCR model (detector, recogniser, direction classifier).
   * Default 1: measured faster than 2 on the 2-core target, where the pool's two workers already read an
   * INE's two sides in parallel (docs/ocr.md, latency table). Read when the models load (first job).
   */
  onnxThreads: number;
  /**
   * ONNX Runtime intra-op threads of the text detector (idle threads block rather than spin when > 1).
   * Default 1: two threads did not make a 736x960 detection faster on this 2-core machine (197-207 vs
   * 177-189 ms wall spinning or not, 290-355 vs 180-190 CPU-ms; 2026-11-25, docs/ocr.md "OCR time, second
   * pass"): the detector's many small layers each wake the second thread. Read when the models load.
   */
  detThreads: number;
  /**
   * Threads that recognise one page's line crops: the job's own thread plus `recThreads - 1` helper threads
   * per worker, each with its own recogniser session (`rec-helper.ts`). Default 2: a bill, or an INE front
   * once its back is done, then uses both cores of the 2-core target (docs/ocr.md "OCR time, second pass"). Read when
   * the models load (first job).
   */
  recThreads: number;
  /**
   * tesseract.js workers (threads) of the Spanish re-read per worker: a page's name/address rows are read on
   * them in parallel. Default 2 (the 2-core target). Read when the reader loads (first re-read).
   */
  tesseractWorkers: number;
  /** Longest side (px) of the image fed to the text detector (PaddleOCR `det_limit_side_len`; default 960). */
  detMaxSide: number;
  /**
   * Longest side (px) fed to the text detector for the MRZ-first pass of an INE back (`readPage` with
   * `mrzFirst`): the MRZ rows are the page's largest print. Default 640 (measured 2026-11-25 on INE backs of
   * seed `eval`, documents 0-29: the same MRZ rows as at 960 on all 30, 499 -> 344 CPU-ms per back; 512 lost
   * 2 MRZs). When that pass finds no MRZ, the page is detected again at `detMaxSide`.
   */
  mrzDetMaxSide: number;
  /** Re-read INE/passport name and address rows and bill holder rows with Tesseract `spa` (default true). */
  spanishReread: boolean;
  /**
   * `constrained` (default): MRZ rows re-decoded from the recogniser's posteriors at the layout's length
   * (`mrz-rows.ts`, docs/mrz.md); `greedy` keeps PaddleOCR's greedy CTC reading (for comparisons).
   */
  mrzDecoder: MrzDecoder;
  /**
   * Crop height factors (x the detected row height) at which MRZ rows that fail their check digits are
   * read again as whole rows, tried in this order (`mrz-row-reread.ts`; chosen on passports, docs/ocr.md).
   */
  mrzRowScales: readonly number[];
  /**
   * Crops per recogniser run of a page read (default 1; PaddleOCR's `rec_batch_num` is 6). A batch pads every
   * crop to its widest one and SVTR mixes the whole row, so the padding is computed: batch 1 costs a third
   * less recognition CPU, and its readings are at least as good on the evaluation (2026-11-25, docs/ocr.md
   * "OCR time, second pass": INE n = 100 and bills n = 40 per type, no field lost; 3 INEs gained word
   * spaces and 1 phone bill its bar code).
   */
  recBatch: number;
  /**
   * Load the detector and recogniser with their element-wise operators fused (`onnx-fuse.ts`: the affine block
   * after each convolution folded into it, hard-swish as `x * HardSigmoid(x)`, the affine block after it as a
   * `BatchNormalization`). Default true: 29 % less recogniser and 24 % less detector CPU per run, the same fields
   * on the evaluation (2026-11-26, docs/ocr.md "OCR time, fourth pass"); outputs differ from the exported graphs'
   * in float32 rounding only. Read when the models load.
   */
  fusedModels: boolean;
}

/** Today's production behaviour. */
export const DEFAULT_OCR_SETTINGS: Readonly<OcrSettings> = Object.freeze({
  onnxThreads: 1,
  detThreads: 1,
  recThreads: 2,
  tesseractWorkers: 2,
  detMaxSide: 960,
  mrzDetMaxSide: 640,
  spanishReread: true,
  mrzDecoder: 'constrained',
  mrzRowScales: Object.freeze([1.3, 1, 1.15, 1.45, 1.6]),
  recBatch: 1,
  fusedModels: true,
});

let current: Readonly<OcrSettings> = DEFAULT_OCR_SETTINGS;

/** The settings in force in this thread. */
export function ocrSettings(): Readonly<OcrSettings> {
  return current;
}

/**
 * Replaces some settings in this thread (the rest keep their value). `onnxThreads`, `detThreads`, `recThreads` and `tesseractWorkers` take effect only if
 * the models are not loaded yet (they load on the first job).
 * @throws RangeError on a non-positive thread count or side, or an empty/non-positive scale list
 */
export function setOcrSettings(patch: Partial<OcrSettings>): void {
  const next = { ...current, ...patch };
  for (const name of ['onnxThreads', 'detThreads', 'recThreads', 'tesseractWorkers', 'recBatch'] as const) {
    if (!Number.isInteger(next[name]) || next[name] < 1) throw new RangeError(`${name} must be a positive integer, got ${next[name]}`);
  }
  for (const name of ['detMaxSide', 'mrzDetMaxSide'] as const) {
    if (!Number.isInteger(next[name]) || next[name] < 32) throw new RangeError(`${name} must be an integer >= 32, got ${next[name]}`);
  }
  if (!next.mrzRowScales.length || !next.mrzRowScales.every((s) => Number.isFinite(s) && s > 0)) throw new RangeError(`mrzRowScales must be positive numbers, got ${next.mrzRowScales.join(',')}`);
  current = Object.freeze({ ...next, mrzRowScales: Object.freeze([...next.mrzRowScales]) });
}

/** The OCR block of the validated configuration (`apps/api/config.ts`), typed structurally. */
export interface OcrConfig {
  OCR_ONNX_THREADS: number;
  OCR_DET_THREADS: number;
  OCR_REC_THREADS: number;
  OCR_TESSERACT_WORKERS: number;
  OCR_DET_MAX_SIDE: number;
  OCR_MRZ_DET_MAX_SIDE: number;
  OCR_SPANISH_REREAD: '0' | '1';
  OCR_MRZ_DECODER: MrzDecoder;
  OCR_MRZ_ROW_SCALES: readonly number[];
}

/**
 * The settings a configuration selects. A key the object lacks (a configuration built by hand, not by
 * the schema) keeps its default.
 */
export function settingsFromConfig(config: Partial<OcrConfig>): OcrSettings {
  const d = DEFAULT_OCR_SETTINGS;
  return {
    onnxThreads: config.OCR_ONNX_THREADS ?? d.onnxThreads,
    detThreads: config.OCR_DET_THREADS ?? d.detThreads,
    recThreads: config.OCR_REC_THREADS ?? d.recThreads,
    tesseractWorkers: config.OCR_TESSERACT_WORKERS ?? d.tesseractWorkers,
    detMaxSide: config.OCR_DET_MAX_SIDE ?? d.detMaxSide,
    mrzDetMaxSide: config.OCR_MRZ_DET_MAX_SIDE ?? d.mrzDetMaxSide,
    spanishReread: config.OCR_SPANISH_REREAD === undefined ? d.spanishReread : config.OCR_SPANISH_REREAD !== '0',
    mrzDecoder: config.OCR_MRZ_DECODER ?? d.mrzDecoder,
    mrzRowScales: config.OCR_MRZ_ROW_SCALES ?? d.mrzRowScales,
    recBatch: d.recBatch,
    fusedModels: d.fusedModels,
  };
}
