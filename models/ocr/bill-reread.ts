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
import { snapStateAbbreviation, STATE_ABBREVIATIONS } from '../../domain/ocr/lexicon.ts';
import { isKnownWord } from '../../domain/ocr/segment.ts';
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

/** Rejoins digit groups Tesseract split (`11 13`) where Paddle read them as one number (`1113`). */
function keepDigitGroups(paddleText: string, reading: string): string {
  const runs: string[] = paddleText.match(/\d+/g) ?? [];
  return reading.replace(/\d+(?: \d+)+/g, (m) => (runs.includes(m.replace(/ /g, '')) ? m.replace(/ /g, '') : m));
}

/** Words of one or two letters that a row may hold (name/place particles, the `I` of FRANCISCO I MADERO, street types). */
const PARTICLES = new Set(['DE', 'LA', 'EL', 'Y', 'I', 'C', 'AV', 'NO']);

/**
 * True when Tesseract's reading should replace Paddle's although their letters differ: the reading
 * has the same digits, no fewer letters, differs by at most 2 edits (1 per 8 characters on longer
 * rows), and every word of it is a vocabulary word (`segment.ts`), a state abbreviation, or letters
 * Paddle read too. That is Paddle misreading or dropping a letter of a known word
 * (`GUADALAIARA`, `AXACADEJUAREZ`, `MONTERRYNL`), where Tesseract read the dictionary word.
 */
export function readingOutvotesPaddle(paddleText: string, reading: string): boolean {
  const p = fold(paddleText);
  const r = fold(reading);
  if (r.replace(/\D/g, '') !== p.replace(/\D/g, '') || r.length < p.length) return false;
  if (editDistance(r, p) > Math.max(2, Math.floor(p.length / 8))) return false;
  const words = reading.split(/[^A-ZÑÁÉÍÓÚÜ]+/).filter(Boolean);
  const last = words[words.length - 1];
  // Short words must be particles or a state: Tesseract's doubled letters ("CALLE E BENITO O") are not.
  const ok = (w: string) =>
    w.length <= 2 ? PARTICLES.has(fold(w)) || (STATE_ABBREVIATIONS as readonly string[]).includes(w === last ? snapStateAbbreviation(w) : fold(w)) : isKnownWord(w) || p.includes(fold(w)) || (w.length <= 4 && (STATE_ABBREVIATIONS as readonly string[]).includes(snapStateAbbreviation(w)));
  return words.every(ok);
}

/**
 * Merges PaddleOCR's text of a row with Tesseract readings of it (already normalised).
 * - A reading with the same folded letters as Paddle's is taken whole (it adds spaces, accents, Ñ).
 * - A reading whose differences are dictionary words outvotes Paddle ({@link readingOutvotesPaddle}).
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
  if (same) return keepDigitGroups(paddleText, same);
  const best = [...usable].sort((a, b) => editDistance(fold(a), p) - editDistance(fold(b), p))[0]!;
  if (readingOutvotesPaddle(paddleText, best)) return keepDigitGroups(paddleText, best);
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
