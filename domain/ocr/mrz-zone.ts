/**
 * Finding the machine readable zone among OCR lines (ICAO Doc 9303): cleaning a recognised row down to the
 * MRZ alphabet, fitting it to its ICAO length, and putting back together rows the text detector split.
 *
 * The OCR-B filler `<` is a thin chevron: after blur and JPEG compression the text detector often sees a long
 * filler run as background and returns one MRZ row as two or three boxes (`P<MEXDIAZ<LOPEZ<<ITZEL<<` +
 * nothing; `N393613516MEX8807054F2108058<` + `<<<<<<<08`; `G062229689MEX9603080M2806022<<` + `02`). Such
 * fragments are rejoined here by their geometry: boxes on one row, the gap between them being fillers.
 */
import type { OcrLine } from './text.ts';

/** Maps glyphs the recogniser's CJK dictionary produces for MRZ characters (`×` for X, `《`/`く` for `<`) and keeps `[A-Z0-9<]`. */
export function mrzChars(text: string): string {
  return text
    .toUpperCase()
    .replace(/\s+/g, '')
    .replace(/[×✕Ⅹ]/g, 'X')
    .replace(/[«‹＜〈《くᐸ(\[{]/g, '<')
    .replace(/[^A-Z0-9<]/g, '');
}

/**
 * True when a recognised text is made of MRZ characters (`A-Z0-9<` and their look-alikes): at least 80 % of
 * its non-blank characters survive {@link mrzChars}. Lower-case letters, accents, `/` and `.` (the bilingual
 * labels and values of a visual zone) do not.
 */
export function isMrzText(text: string): boolean {
  const raw = text.replace(/\s+/g, '');
  if (!raw) return false;
  const upper = raw.replace(/[a-z]/g, '');
  return mrzChars(upper).length >= 0.8 * raw.length;
}

/**
 * True when a (joined) row reads like an MRZ row: it holds a filler `<`, or - its fillers all missed by the
 * detector - it is made of `A-Z0-9` only (look-alike `×` allowed), at least 25 characters of which 8 digits (a TD3 second row up to its expiry
 * date: `P390538731MEX7907201F2406189`). Visual-zone lines (`ESTADOSUNIDOSMEXICANOS`) have neither.
 */
export function looksLikeMrzRow(text: string): boolean {
  const t = mrzChars(text);
  if (t.includes('<')) return true;
  // Without a filler: nothing but MRZ characters (a date `11MAY/MAY1969` beside a CURP is not a row).
  const raw = text.replace(/\s+/g, '');
  return /^[A-Z0-9×]+$/.test(raw) && t.length >= 25 && (t.match(/[0-9]/g) ?? []).length >= 8;
}

/**
 * Fits an OCR'd MRZ row to its ICAO length. CTC decoding undercounts runs of the same character, so a
 * short row gets `<` inserted into its longest filler run (the trailing run when that is the longest);
 * a long row loses trailing fillers first, then is cut.
 */
export function fitLength(t: string, n: number): string {
  if (t.length === n) return t;
  if (t.length < n) {
    let best = -1;
    let bestLen = 0;
    for (let i = 0; i < t.length; ) {
      if (t[i] !== '<') {
        i++;
        continue;
      }
      let j = i;
      while (j < t.length && t[j] === '<') j++;
      if (j - i >= bestLen) {
        best = i;
        bestLen = j - i;
      }
      i = j;
    }
    if (best < 0 || bestLen < 2) return t + '<'.repeat(n - t.length);
    return t.slice(0, best) + '<'.repeat(n - t.length) + t.slice(best);
  }
  let s = t;
  while (s.length > n && s.endsWith('<<')) s = s.slice(0, -1);
  return s.length > n ? s.slice(0, n) : s;
}

/** A candidate MRZ row: its cleaned text (fragments joined) and the union of their boxes. */
export interface MrzRowCandidate {
  text: string;
  box: OcrLine['box'];
  /** How many OCR lines were joined. */
  parts: number;
  /**
   * Readings of the same row where a lone character at a fragment edge next to a filler (`…058<4` + gap)
   * is taken for a filler: a `<` cut by the box edge is often read as a character. For check-digit choice.
   */
  variants: string[];
}

const cy = (l: OcrLine) => l.box.y + l.box.h / 2;

/**
 * Groups MRZ-text lines into rows (vertical centres within 60 % of the smaller box height, boxes in upright
 * coordinates) and joins each row left to right. A gap between two fragments is filled with fillers, as
 * many as fit at the row's character pitch (total width / characters read, at least one): what the detector
 * leaves out between two pieces of an MRZ row is a run of `<`. Boxes that touch or overlap (gap under half
 * a character) are a word the detector cut: joined without a filler. Only rows that {@link looksLikeMrzRow}. Only rows holding a `<`
 * are returned (a visual-zone row of codes, `P MEX G12345678`, holds none), top to bottom.
 */
export function mrzRowCandidates(lines: readonly OcrLine[]): MrzRowCandidate[] {
  const frags = lines.filter((l) => isMrzText(l.text) && mrzChars(l.text).length > 0).sort((a, b) => cy(a) - cy(b));
  const rows: OcrLine[][] = [];
  for (const l of frags) {
    const row = rows.find((r) => r.some((m) => Math.abs(cy(m) - cy(l)) < 0.6 * Math.min(m.box.h, l.box.h) && !overlapsX(m, l)));
    if (row) row.push(l);
    else rows.push([l]);
  }
  const out: MrzRowCandidate[] = [];
  for (const row of rows) {
    row.sort((a, b) => a.box.x - b.box.x);
    const texts = row.map((l) => mrzChars(l.text));
    if (!looksLikeMrzRow(row.map((l) => l.text).join(' '))) continue;
    const chars = texts.reduce((s, t) => s + t.length, 0);
    const width = row.reduce((s, l) => s + l.box.w, 0);
    const pitch = width / Math.max(1, chars);
    // Boxes touching or overlapping (gap under half a character): a word cut by the detector, nothing between.
    const gaps = row.slice(1).map((l, i) => {
      const gap = l.box.x - (row[i]!.box.x + row[i]!.box.w);
      return gap < 0.5 * pitch ? '' : '<'.repeat(Math.max(1, Math.round(gap / pitch)));
    });
    const join = (parts: readonly string[]) => parts.reduce((acc, t, i) => (i === 0 ? t : acc + gaps[i - 1]! + t), '');
    const text = join(texts);
    const variants: string[] = [];
    for (let i = 0; i < texts.length; i++) {
      const t = texts[i]!;
      if (i < texts.length - 1 && /<[A-Z0-9]$/.test(t)) variants.push(join(texts.map((x, k) => (k === i ? x.slice(0, -1) + '<' : x))));
      if (i > 0 && /^[A-Z0-9]</.test(t)) variants.push(join(texts.map((x, k) => (k === i ? '<' + x.slice(1) : x))));
    }
    const x0 = Math.min(...row.map((l) => l.box.x));
    const y0 = Math.min(...row.map((l) => l.box.y));
    const x1 = Math.max(...row.map((l) => l.box.x + l.box.w));
    const y1 = Math.max(...row.map((l) => l.box.y + l.box.h));
    out.push({ text, box: { x: x0, y: y0, w: x1 - x0, h: y1 - y0 }, parts: row.length, variants });
  }
  return out.sort((a, b) => a.box.y + a.box.h / 2 - (b.box.y + b.box.h / 2));
}

/** Two boxes overlap horizontally by more than half the narrower one (two readings of one place, not two fragments). */
function overlapsX(a: OcrLine, b: OcrLine): boolean {
  const o = Math.min(a.box.x + a.box.w, b.box.x + b.box.w) - Math.max(a.box.x, b.box.x);
  return o > 0.5 * Math.min(a.box.w, b.box.w);
}

/** The two rows of a TD3 zone among the row candidates, and how many fillers row 1 gets at its end. */
interface Td3Pair {
  first: MrzRowCandidate;
  second: MrzRowCandidate;
  row1: string;
  /** Fillers put at the end of row 1 because the detector stopped short of row 2's right end. */
  padded: number;
}

function td3Pair(lines: readonly OcrLine[]): Td3Pair | null {
  const cand = mrzRowCandidates(lines).filter((r) => r.text.length <= 50);
  for (let i = 0; i + 1 < cand.length; i++) {
    const first = cand[i]!;
    const second = cand[i + 1]!;
    // Row 1 needs its document code and issuing state and a name letter (`P<AUSC`): a detector that loses
    // the filler run after the surname leaves only that much (an Australian specimen photographed on a
    // table: `P<AUSCITIZEN` read, `<<JANE<<<...` not detected); row 2 must then be nearly whole.
    if (!/^P[A-Z<]/.test(first.text) || second.text.length < 34) continue;
    if (first.text.length < 20 && !(/^P[A-Z<][A-Z<]{3}[A-Z]/.test(first.text) && second.text.length >= 40)) continue;
    const h = Math.min(first.box.h, second.box.h);
    if (second.box.y + second.box.h / 2 - (first.box.y + first.box.h / 2) > 4 * h) continue;
    const pitch = second.box.w / Math.max(1, second.text.length);
    const cut = first.text.length < 44 && first.box.x + first.box.w < second.box.x + second.box.w - 2 * pitch;
    const row1 = cut ? first.text + '<'.repeat(44 - first.text.length) : fitLength(first.text, 44);
    return { first, second, row1, padded: cut ? 44 - first.text.length : 0 };
  }
  return null;
}

/**
 * Candidate readings of the two TD3 rows (ICAO Doc 9303 part 4: 2 x 44, the first starting `P`) of a passport
 * data page, each fitted to 44 characters: the rows as read first, then the second row's edge variants
 * (see {@link MrzRowCandidate.variants}); [] if no TD3 zone is found. Rows split by the detector are rejoined
 * ({@link mrzRowCandidates}). The first row may be short (its name field ends in fillers, which the detector
 * may leave out: a row that stops short of the second one's right end gets them back at its end; it must
 * hold 20 characters, or only its code, state and a letter when the second row has 40); the second
 * row (every field but the personal number carries a check digit) must be read nearly whole (>= 34
 * characters) and lie right under the first (centres <= 4 row heights apart).
 */
export function td3Candidates(lines: readonly OcrLine[]): [string, string][] {
  const pair = td3Pair(lines);
  if (!pair) return [];
  return [pair.second.text, ...pair.second.variants].map((t): [string, string] => [pair.row1, fitLength(t, 44)]);
}

/**
 * Row 1 of the TD3 zone as read (fragments joined, before fitting) and how many fillers {@link td3Candidates}
 * put at its end because the detector stopped short of row 2's right end; null when no zone is found. Many
 * fillers mean that more than the trailing fillers may be missing (a given name too): the row is worth
 * reading again whole ({@link extendCutRow}).
 */
export function td3FirstRow(lines: readonly OcrLine[]): { read: string; padded: number } | null {
  const pair = td3Pair(lines);
  return pair ? { read: pair.first.text, padded: pair.padded } : null;
}

/**
 * Joins two readings of a TD3 row 1: `cut`, read as far as the detector saw it, and `whole`, the whole row
 * read again as one crop, which may misread some of what `cut` holds (`P<AUS1TIZEN<<JANE<<<`, the `CI` of
 * `CITIZEN` read as `1`). What `whole` holds after `cut`'s last 4 characters (found after its first 5) is
 * put after `cut`; the result is fitted to 44. Null when `whole` does not hold them or adds nothing.
 */
export function extendCutRow(cut: string, whole: string): string | null {
  const c = mrzChars(cut);
  const w = mrzChars(whole);
  if (c.length < 6) return null;
  const tail = c.slice(-4);
  const at = w.indexOf(tail, 5);
  if (at < 0) return null;
  const rest = w.slice(at + tail.length);
  if (!/[A-Z]/.test(rest)) return null;
  return fitLength(c + rest, 44);
}

/** The first reading of the TD3 rows ({@link td3Candidates}); [] if none. */
export function findTd3Lines(lines: readonly OcrLine[]): string[] {
  return td3Candidates(lines)[0] ?? [];
}
