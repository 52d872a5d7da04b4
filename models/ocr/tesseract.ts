/**
 * Tesseract (tesseract.js 7, LSTM) single-line reader with the npm-shipped Spanish model
 * (`@tesseract.js-data/spa`, 4.0.0_best_int), used for the INE name and address lines: the
 * PP-OCRv4 dictionary has no `Ñ`/accented vowels and drops word spaces on Latin text.
 *
 * Offline by construction: `langPath` points into `node_modules`, `cacheMethod: 'none'`.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import type { RgbImage } from './raster.ts';

/** Processor name and version reported in results. */
export const TESSERACT_ENGINE = 'tesseract.js@7-lstm-spa';

const require = createRequire(import.meta.url);

type Worker = import('tesseract.js').Worker;

/**
 * Tesseract line reader over one or more tesseract.js workers (each its own thread with its own copy of
 * the model), reading single text lines (PSM 7). Calls made at once are spread over the workers (each
 * call goes to the worker with the fewest calls outstanding), so a page's rows are read in parallel; a
 * line's reading does not depend on the worker that read it (every worker has the same model and
 * parameters, and LSTM recognition of a line keeps no state between calls).
 */
export class TesseractLineReader {
  private readonly busy: number[];

  private constructor(private readonly workers: Worker[]) {
    this.busy = workers.map(() => 0);
  }

  /**
   * Creates `workers` tesseract.js workers (default 1) with the given language (`spa` by default) from the
   * npm data package; `whitelist` restricts the characters (e.g. the MRZ alphabet `0-9A-Z<`).
   */
  static async load(lang: 'spa' | 'eng' = 'spa', whitelist?: string, workers = 1): Promise<TesseractLineReader> {
    const { createWorker, OEM, PSM } = await import('tesseract.js');
    const pkgDir = path.dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`));
    const one = async () => {
      const worker = await createWorker(lang, OEM.LSTM_ONLY, {
        langPath: path.join(pkgDir, '4.0.0_best_int'),
        cacheMethod: 'none',
        gzip: true,
        logger: () => {},
        errorHandler: () => {},
      });
      // user_defined_dpi: crops carry no resolution; Tesseract then warns "Invalid resolution" and uses 70 on
      // every call. 70 is set explicitly: same behaviour (the figures in docs/ocr.md were measured with it), no warning.
      await worker.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_LINE, preserve_interword_spaces: '1', user_defined_dpi: '70', ...(whitelist ? { tessedit_char_whitelist: whitelist } : {}) });
      return worker;
    };
    return new TesseractLineReader(await Promise.all(Array.from({ length: Math.max(1, workers) }, one)));
  }

  /** Reads one upright line crop; returns its text (trimmed) and mean confidence 0..1. */
  async readLine(crop: RgbImage): Promise<{ text: string; confidence: number }> {
    // A white margin and ~48 px line height suit Tesseract's LSTM (trained on ~30-40 px x-height lines).
    const png = await sharp(Buffer.from(crop.data.buffer, crop.data.byteOffset, crop.data.byteLength), {
      raw: { width: crop.width, height: crop.height, channels: 3 },
    })
      .extend({ top: 8, bottom: 8, left: 8, right: 8, background: '#ffffff' })
      .greyscale()
      .png({ compressionLevel: 1 })
      .toBuffer();
    let k = 0;
    for (let i = 1; i < this.busy.length; i++) if (this.busy[i]! < this.busy[k]!) k = i;
    this.busy[k]!++;
    try {
      const r = await this.workers[k]!.recognize(png);
      return { text: r.data.text.replace(/\s+/g, ' ').trim(), confidence: (r.data.confidence ?? 0) / 100 };
    } finally {
      this.busy[k]!--;
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
