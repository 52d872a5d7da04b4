/**
 * The recognition engines of one worker thread, loaded on first use and reused for every later job:
 * PaddleOCR (ONNX), Tesseract `spa` (name/address rows) and Tesseract `eng` restricted to the MRZ
 * alphabet (second MRZ reading). Shared by the page reader (`pipeline.ts`) and the re-readers
 * (`bill-reread.ts`), which therefore do not import each other.
 */
import { PaddleOcr } from './paddle.ts';
import { ocrSettings } from './settings.ts';
import { TesseractLineReader } from './tesseract.ts';

let paddle: Promise<PaddleOcr> | null = null;
let tess: Promise<TesseractLineReader> | null = null;
let tessMrz: Promise<TesseractLineReader> | null = null;

/** The MRZ alphabet (ICAO 9303 part 3): Tesseract's English model restricted to it for MRZ rows. */
export const MRZ_WHITELIST = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<';

/**
 * The worker's PaddleOCR instance (loaded on first use) with `OcrSettings.onnxThreads` ONNX Runtime
 * intra-op threads (default 1), `OcrSettings.detThreads` for the detector (default 1) and `OcrSettings.recThreads` threads recognising a page's crops (default 2: one
 * helper thread; see `settings.ts`), the models fused as `OcrSettings.fusedModels` says (`onnx-fuse.ts`).
 */
export function getPaddle(): Promise<PaddleOcr> {
  paddle ??= PaddleOcr.load(ocrSettings().onnxThreads, ocrSettings().recThreads, ocrSettings().detThreads, ocrSettings().fusedModels);
  return paddle;
}

/** The worker's Tesseract Spanish line reader (loaded on first use) on `OcrSettings.tesseractWorkers` threads. */
export function getTesseract(): Promise<TesseractLineReader> {
  tess ??= TesseractLineReader.load('spa', undefined, ocrSettings().tesseractWorkers);
  return tess;
}

/** The worker's Tesseract English MRZ-alphabet line reader (loaded on first use). */
export function getTesseractMrz(): Promise<TesseractLineReader> {
  tessMrz ??= TesseractLineReader.load('eng', MRZ_WHITELIST);
  return tessMrz;
}
