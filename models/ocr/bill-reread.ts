/**
 * Spanish re-read of a bill's holder name and address rows (Tesseract `spa`), bill-specific.
 *
 * Bill rows are small (12-20 px x-height on a phone photo of a letter page) and Tesseract's reading of
 * one crop is erratic: on the degraded synthetic bills (seed `eval`, documents 0-39) one crop at 56 px
 * height read 75 % of the rows exactly, a second crop at 72 px recovered a further 7.5 % (the union
 * 82.5 %), and the reading closest to PaddleOCR's letters was the right one every time. So a row is
 * read at 56 px, and again at 72 px only when the first reading disagrees with PaddleOCR; the reading
 * closest to PaddleOCR's letters is merged by {@link mergeBillReading}.
 */
import { compact, editDistance } from '../../domain/ocr/text.ts';
import { respace, getTesseract, type PipelineLine, type ReadPage } from './pipeline.ts';
import { dist, warpQuad } from './raster.ts';

/** Crop heights (px) of the two Tesseract readings, in the order they are tried. */
export const BILL_REREAD_HEIGHTS = [56, 72] as const;

/**
 * Tesseract's text normalised for merging: upper case; `€` -> `C` (the `spa` model reads a lone
 * upper-case C as the euro sign); a lone `|` -> `I` (the initial of `FRANCISCO I MADERO`); then only
 * letters, digits and `.,#'/-` kept, spaces collapsed.
 */
export function normaliseTesseract(text: string): string {
  return text
    .toUpperCase()
    .replace(/€/g, 'C')
    .replace(/(^|\s)\|(?=\s)/g, '$1I')
    .replace(/[^A-ZÑÁÉÍÓÚÜ0-9 .,#'/-]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Letters and digits only, accents and Ñ folded (what PaddleOCR and Tesseract can be compared on). */
const fold = (s: string) => compact(s);

/**
 * Merges PaddleOCR's text of a row with Tesseract readings of it (already normalised).
 * - A reading with the same folded letters as Paddle's is taken whole (it adds spaces, accents, Ñ).
 * - Otherwise Paddle's characters are kept (PP-OCRv4 is the better recogniser of these rows: when the
 *   two differ, Paddle was right on most rows studied), and the closest reading's spaces and accented
 *   letters are aligned onto them ({@link respace}); spaces Paddle already had are kept.
 * @returns the merged text, or Paddle's text when no reading is close enough to align
 */
export function mergeBillReading(paddleText: string, readings: readonly string[]): string {
  const p = fold(paddleText);
  const usable = readings.filter((r) => fold(r).length > 0);
  if (!usable.length) return paddleText;
  const same = usable.find((r) => fold(r) === p);
  if (same) return same;
  const best = [...usable].sort((a, b) => editDistance(fold(a), p) - editDistance(fold(b), p))[0]!;
  const glued = paddleText.replace(/\s+/g, '');
  const spaced = respace(glued, best);
  if (spaced === glued) return paddleText;
  // Union of the two spacings: walk Paddle's text and the respaced one together.
  let out = '';
  let j = 0;
  for (const ch of paddleText) {
    if (/\s/.test(ch)) {
      if (!out.endsWith(' ')) out += ' ';
      continue;
    }
    while (j < spaced.length && spaced[j] === ' ') {
      if (out && !out.endsWith(' ')) out += ' ';
      j++;
    }
    out += spaced[j] ?? ch;
    j++;
  }
  return out.replace(/\s+/g, ' ').trim();
}

/**
 * Re-reads the given rows of a bill page with Tesseract and merges each reading into the row's text
 * in place (see the module comment).
 */
export async function rereadBillRows(page: ReadPage, targets: readonly PipelineLine[]): Promise<void> {
  if (!targets.length) return;
  const reader = await getTesseract();
  for (const line of targets) {
    const q = line.quad;
    const h = Math.max(1, dist(q[0], q[3]));
    const w = dist(q[0], q[1]);
    const readings: string[] = [];
    for (const outH of BILL_REREAD_HEIGHTS) {
      const crop = warpQuad(page.intake.image, q, Math.max(16, Math.round((outH * w) / h)), outH);
      const r = await reader.readLine(crop);
      const t = normaliseTesseract(r.text);
      if (t) readings.push(t);
      if (fold(t) === fold(line.text)) break;
    }
    const merged = mergeBillReading(line.text, readings);
    if (merged !== line.text) {
      line.text = merged;
      line.engine = 'tesseract';
    }
  }
}
