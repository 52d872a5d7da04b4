/**
 * Re-reads the MRZ rows of a page with the constrained decoder (`domain/mrz/ctc-rows.ts`): finds the
 * rows among the recognised lines by their greedy reading (joining rows the detector split), groups the rows of one MRZ by geometry
 * (stacked, left-aligned, of similar width and height), recognises each row again on a crop widened by
 * two character cells each side (a detector box that clips the trailing fillers would otherwise force
 * the decoder to invent characters inside the row), decodes each group and, when the decoded MRZ
 * passes every check digit, replaces the rows' text.
 */
import { decodeMrzRows, parseMrz } from '../../domain/mrz/index.ts';
import { toMrzPosteriors } from './mrz-posteriors.ts';
import type { PaddleOcr, TextLine } from './paddle.ts';
import type { Quad, RgbImage } from './raster.ts';

/** A greedy reading that may be an MRZ row: >= 20 characters of which >= 2 are fillers or their look-alikes. */
export function looksLikeMrzRow(text: string): boolean {
  const t = text.replace(/\s+/g, '');
  return t.length >= 20 && (t.match(/[<«‹＜〈《]/g)?.length ?? 0) >= 2;
}

/**
 * A reading that may be an MRZ row without fillers (TD3/MRV row 2 can hold none; degraded fillers are
 * read as `4`, `K`...): >= 20 characters, at least 85% of them upper-case letters, digits or fillers.
 */
export function mayBeMrzRow(text: string): boolean {
  const t = text.replace(/\s+/g, '');
  return t.length >= 20 && (t.match(/[A-Z0-9<«‹＜〈《]/g)?.length ?? 0) >= 0.85 * t.length;
}

/**
 * Joins, in place, the pieces of an MRZ row the detector split (same row: vertical centres within half
 * a row height, horizontal gap under two row heights, at least one piece holding fillers): the left
 * piece takes the union quad and both texts, the right piece is removed from `lines` (`onJoin` is told).
 */
export function joinSplitRows(lines: TextLine[], onJoin?: (into: TextLine, from: TextLine) => void): void {
  for (let i = 0; i < lines.length; i++) {
    const a = lines[i]!;
    for (let j = 0; j < lines.length; j++) {
      const b = lines[j]!;
      if (i === j || b.box.x <= a.box.x) continue;
      if (!looksLikeMrzRow(a.text + b.text) || !/[A-Z0-9<]/.test(b.text)) continue;
      const h = Math.max(a.box.h, b.box.h);
      const sameRow = Math.abs(a.box.y + a.box.h / 2 - (b.box.y + b.box.h / 2)) < 0.5 * h && Math.abs(a.box.h - b.box.h) < 0.5 * h;
      const gap = b.box.x - (a.box.x + a.box.w);
      if (!sameRow || gap > 2 * h || gap < -0.5 * h) continue;
      const fillers = (t: string) => t.match(/[<«‹＜〈《]/g)?.length ?? 0;
      if (fillers(a.text) < 2 && fillers(b.text) < 2) continue;
      a.quad = [a.quad[0], b.quad[1], b.quad[2], a.quad[3]];
      const x = Math.min(a.box.x, b.box.x);
      const y = Math.min(a.box.y, b.box.y);
      a.box = { x, y, w: Math.max(a.box.x + a.box.w, b.box.x + b.box.w) - x, h: Math.max(a.box.y + a.box.h, b.box.y + b.box.h) - y };
      a.text = `${a.text}${b.text}`;
      a.confidence = Math.min(a.confidence, b.confidence);
      onJoin?.(a, b);
      lines.splice(j, 1);
      i = -1; // start over: the joined row may join again
      break;
    }
  }
}

/**
 * Groups MRZ rows: consecutive (top to bottom) candidate rows ({@link mayBeMrzRow}) whose heights are
 * within 40% of each other, whose left edges agree within 12% of the wider row's width and widths
 * within 35% (the detector often clips a row's trailing fillers), and whose vertical gap is under 2.5
 * row heights. Rows without fillers are trimmed off the ends of a stack of more than 3; only groups
 * with a row holding fillers ({@link looksLikeMrzRow}) are returned.
 */
export function groupMrzRows(lines: readonly TextLine[]): TextLine[][] {
  const rows = lines.filter((l) => mayBeMrzRow(l.text) || looksLikeMrzRow(l.text)).sort((a, b) => a.box.y - b.box.y);
  const groups: TextLine[][] = [];
  for (const row of rows) {
    const g = groups[groups.length - 1];
    const last = g?.[g.length - 1];
    const fits = last &&
      Math.abs(row.box.h - last.box.h) <= 0.4 * Math.max(row.box.h, last.box.h) &&
      Math.abs(row.box.x - last.box.x) <= 0.12 * Math.max(row.box.w, last.box.w) &&
      Math.abs(row.box.w - last.box.w) <= 0.35 * Math.max(row.box.w, last.box.w) &&
      row.box.y - (last.box.y + last.box.h) < 2.5 * last.box.h;
    if (fits) g!.push(row);
    else groups.push([row]);
  }
  // Rows without fillers at either end of a stack taller than an MRZ are other text (a `SAMPLE` band).
  for (const g of groups) {
    while (g.length > 3 && !looksLikeMrzRow(g[0]!.text)) g.shift();
    while (g.length > 3 && !looksLikeMrzRow(g[g.length - 1]!.text)) g.pop();
  }
  return groups.filter((g) => g.some((l) => looksLikeMrzRow(l.text)));
}

/** `quad` lengthened along its own direction by `left` px before its start and `right` px past its end. */
export function widenQuad(quad: Quad, left: number, right: number): Quad {
  const [tl, tr, br, bl] = quad;
  const len = Math.hypot(tr[0] - tl[0], tr[1] - tl[1]) || 1;
  const ux = (tr[0] - tl[0]) / len;
  const uy = (tr[1] - tl[1]) / len;
  return [[tl[0] - ux * left, tl[1] - uy * left], [tr[0] + ux * right, tr[1] + uy * right], [br[0] + ux * right, br[1] + uy * right], [bl[0] - ux * left, bl[1] - uy * left]];
}

/**
 * The crops to re-read for a group: every row spans the group's horizontal extent (all rows of an MRZ
 * have one length) plus two character cells on each side, the cell estimated from the widest row.
 */
function groupQuads(group: readonly TextLine[]): Quad[] {
  const widest = group.reduce((a, b) => (b.box.w > a.box.w ? b : a));
  const cell = widest.box.w / Math.max(1, widest.text.replace(/\s+/g, '').length);
  const x0 = Math.min(...group.map((l) => l.box.x));
  const x1 = Math.max(...group.map((l) => l.box.x + l.box.w));
  return group.map((l) => widenQuad(l.quad, l.box.x - x0 + 2 * cell, x1 - (l.box.x + l.box.w) + 2 * cell));
}

/**
 * Replaces, in place, the rows of every MRZ group (2 or 3 rows, after joining rows the detector split:
 * {@link joinSplitRows}) whose constrained decoding passes every check digit of its layout. Groups
 * that do not decode to a valid MRZ are left exactly as recognised (pieces unjoined), for the
 * page-specific finders and re-reads downstream (`mrz-zone.ts`, `mrz-row-reread.ts`, Tesseract) that
 * work on the recogniser's own fragments.
 * @returns the number of rows replaced
 */
export async function rereadMrzRows(ocr: PaddleOcr, img: RgbImage, lines: TextLine[]): Promise<number> {
  // Join on copies, remembering which recognised lines each copy stands for.
  const sources = new Map<TextLine, TextLine[]>();
  const work = lines.map((l) => {
    const c: TextLine = { ...l, quad: [...l.quad] as Quad, box: { ...l.box } };
    sources.set(c, [l]);
    return c;
  });
  joinSplitRows(work, (into, from) => sources.set(into, [...sources.get(into)!, ...sources.get(from)!]));
  let n = 0;
  for (const group of groupMrzRows(work)) {
    if (group.length < 2 || group.length > 3) continue;
    // Rows read whole (not joined) whose greedy reading already passes every check digit: decode the
    // posteriors of that first recognition (issue 18, OCR time: the widened second recognition, ~1/3 of
    // an INE back's CPU, only when a check fails). Same reading as the re-read on 39 of 40 synthetic
    // backs whose greedy rows passed, and on the 40th the constrained decoding of the first crops read the
    // name row right too (docs/ocr.md, "OCR time").
    let decoded: ReturnType<typeof decodeMrzRows> = null;
    const own = group.every((row) => row.ctc && sources.get(row)!.length === 1);
    if (own && parseMrz(group.map((row) => row.text.replace(/\s+/g, '')), { correct: false }).valid) {
      decoded = decodeMrzRows(group.map((row) => toMrzPosteriors(row.ctc!, ocr.mrzMap)));
      if (decoded && !parseMrz(decoded.lines, { correct: false }).valid) decoded = null;
    }
    if (!decoded) {
      const mats = await ocr.recognizeMatrices(img, groupQuads(group), { maxWidth: 2048 });
      decoded = decodeMrzRows(mats.map((m) => toMrzPosteriors(m, ocr.mrzMap)));
    }
    if (!decoded || !parseMrz(decoded.lines, { correct: false }).valid) continue;
    group.forEach((row, i) => {
      const [first, ...rest] = sources.get(row)!;
      Object.assign(first!, { text: decoded.lines[i]!, quad: row.quad, box: row.box, confidence: row.confidence });
      for (const r of rest) lines.splice(lines.indexOf(r), 1);
    });
    n += group.length;
  }
  return n;
}
