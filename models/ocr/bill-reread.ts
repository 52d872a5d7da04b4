/**
 * Bill-specific second readings: the holder name and address rows with Tesseract `spa`
 * ({@link rereadBillRows}), and the bar-code digit row with PaddleOCR on wider crops
 * ({@link rereadBarcodeRow}).
 *
 * Name and address rows: they are small (12-20 px x-height on a phone photo of a letter page) and Tesseract's reading of
 * one crop is erratic: on the degraded synthetic bills (seed `eval`, documents 0-39) one crop at 56 px
 * height read 75 % of the rows exactly, a second crop at 72 px recovered a further 7.5 % (the union
 * 82.5 %), and the reading closest to PaddleOCR's letters was the right one every time. So a row is
 * read at 56 px, and again at 72 px only when the first reading disagrees with PaddleOCR; the reading
 * closest to PaddleOCR's letters is merged by {@link mergeBillReading}.
 */
import { snapStateAbbreviation, STATE_ABBREVIATIONS } from '../../domain/ocr/lexicon.ts';
import { isKnownWord } from '../../domain/ocr/segment.ts';
import { compact, editDistance } from '../../domain/ocr/text.ts';
import { getTesseract } from './engines.ts';
import type { PipelineLine, ReadPage } from './page.ts';
import type { PaddleOcr } from './paddle.ts';
import { dist, warpQuad, type Quad } from './raster.ts';
import { respace } from './respace.ts';

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
  // Rows at once, spread over the reader's threads; a row's second crop waits for its first reading only.
  await Promise.all(targets.map(async (line) => {
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
  }));
}

/**
 * Crop variants of the bar-code digit row re-recognised by PaddleOCR: horizontal margin (in row
 * heights) and crop height (px). PP-OCRv4's CTC output drops one of two equal neighbouring digits
 * (`0000` -> `000`) and confuses 0/6/8 under blur, differently for differently framed crops; on the
 * degraded synthetic bills (seed `eval`, documents 0-59 of each type) a wider margin (0.6-1 row
 * height) read the row best, and the per-digit vote of these four readings plus the detector's own
 * (below) read 56-58 of 60 rows exactly against 51-55 for the detector's boxes alone. Vertical margins
 * and horizontal stretching were worse (neighbouring bars enter the crop; 0/8 confusions).
 */
export const BARCODE_VARIANTS: readonly (readonly [margin: number, height: number])[] = [[0.6, 48], [0.6, 40], [0.6, 56], [1.0, 48]];

/**
 * Crops of {@link BARCODE_VARIANTS} read before the others: with the detector's own reading they are three of
 * the vote's five readings, a majority when they agree.
 */
export const BARCODE_FIRST_READS = 2;

/**
 * Majority vote of digit readings of one row: the most frequent length (ties: the longer, since CTC
 * drops digits rather than adding them), then per position the most frequent digit among the
 * readings of that length (ties: the earlier reading).
 */
export function voteDigits(readings: readonly string[]): string {
  const usable = readings.filter(Boolean);
  if (!usable.length) return '';
  const counts = new Map<number, number>();
  for (const t of usable) counts.set(t.length, (counts.get(t.length) ?? 0) + 1);
  const len = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]![0];
  const same = usable.filter((t) => t.length === len);
  let out = '';
  for (let k = 0; k < len; k++) {
    const c = new Map<string, number>();
    for (const t of same) c.set(t[k]!, (c.get(t[k]!) ?? 0) + 1);
    let best = '';
    let bestN = 0;
    for (const [ch, n] of c) if (n > bestN) [best, bestN] = [ch, n];
    out += best;
  }
  return out;
}

/**
 * The human-readable digits under a bill's bar code, re-read as one row: the longest digits-only box
 * (at least 8 digits) and the digits-only boxes chained with it on its row (the detector often splits
 * the row and loses the digits between the pieces) form one quadrilateral, recognised again with the
 * {@link BARCODE_VARIANTS} crops; the vote ({@link voteDigits}) of those readings and of the pieces
 * joined replaces the pieces in `page.lines`. Rows of fewer than 16 digits are left alone. Which lines are
 * replaced is decided before the first `await` (from the lines' text as read by PaddleOCR), so other
 * re-reads may change other lines' text meanwhile.
 * @returns the lines replaced (none when no bar-code row was found)
 */
export async function rereadBarcodeRow(page: ReadPage, ocr: PaddleOcr): Promise<PipelineLine[]> {
  const digitsOnly = (l: PipelineLine) => /^\d{3,}$/.test(l.text.replace(/\s+/g, ''));
  const cy = (l: PipelineLine) => l.box.y + l.box.h / 2;
  const pieces = page.lines.filter(digitsOnly);
  const seed = [...pieces].sort((a, b) => b.text.replace(/\s+/g, '').length - a.text.replace(/\s+/g, '').length)[0];
  if (!seed || seed.text.replace(/\s+/g, '').length < 8) return [];
  const h = seed.box.h;
  const onRow = pieces.filter((l) => Math.abs(cy(l) - cy(seed)) < 0.6 * h).sort((a, b) => a.box.x - b.box.x);
  // Chain left and right from the seed while the gap between neighbouring boxes is under 4 row heights.
  let i0 = onRow.indexOf(seed);
  let i1 = i0;
  while (i0 > 0 && onRow[i0]!.box.x - (onRow[i0 - 1]!.box.x + onRow[i0 - 1]!.box.w) < 4 * h) i0--;
  while (i1 < onRow.length - 1 && onRow[i1 + 1]!.box.x - (onRow[i1]!.box.x + onRow[i1]!.box.w) < 4 * h) i1++;
  const row = onRow.slice(i0, i1 + 1);
  const joined = row.map((l) => l.text.replace(/\s+/g, '')).join('');
  if (joined.length < 16) return [];
  const left = row[0]!;
  const right = row[row.length - 1]!;
  const q: Quad = [left.quad[0], right.quad[1], right.quad[2], left.quad[3]];
  const qh = Math.max(1, dist(q[0], q[3]));
  const qw = Math.max(1, dist(q[0], q[1]));
  const ux = (q[1][0] - q[0][0]) / qw;
  const uy = (q[1][1] - q[0][1]) / qw;
  const crops = BARCODE_VARIANTS.map(([margin, outH]) => {
    const m = margin * qh;
    const mq: Quad = [[q[0][0] - ux * m, q[0][1] - uy * m], [q[1][0] + ux * m, q[1][1] + uy * m], [q[2][0] + ux * m, q[2][1] + uy * m], [q[3][0] - ux * m, q[3][1] - uy * m]];
    const outW = Math.max(16, Math.round((outH * (qw + 2 * m)) / qh));
    return warpQuad(page.intake.image, mq, outW, outH);
  });
  // One recogniser run per crop, shared with the helper thread (`PaddleOcr.recognizeImages`). The first two
  // crops are read first: when they and the detector's pieces read the same digits, three of the five
  // readings agree, which decides the vote whatever the other two read (the most frequent length and, per
  // position, the most frequent digit), so those two are not run (issue 18, OCR time).
  const digits = async (cs: typeof crops) => (await ocr.recognizeImages(cs)).map((r) => r.text.replace(/\D/g, ''));
  const readings: string[] = [joined, ...(await digits(crops.slice(0, BARCODE_FIRST_READS)))];
  if (!readings.every((r) => r === joined)) readings.push(...(await digits(crops.slice(BARCODE_FIRST_READS))));
  const text = voteDigits(readings);
  const x = Math.min(...row.map((l) => l.box.x));
  const y = Math.min(...row.map((l) => l.box.y));
  const merged: PipelineLine = {
    text,
    confidence: Math.min(...row.map((l) => l.confidence)),
    quad: q,
    engine: 'paddle',
    box: { x, y, w: Math.max(...row.map((l) => l.box.x + l.box.w)) - x, h: Math.max(...row.map((l) => l.box.y + l.box.h)) - y },
  };
  const at = page.lines.indexOf(left);
  page.lines = page.lines.filter((l) => !row.includes(l));
  page.lines.splice(Math.min(at, page.lines.length), 0, merged);
  return row;
}
