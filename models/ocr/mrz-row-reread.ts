/**
 * Re-reading whole MRZ rows (ICAO Doc 9303) that the text detector split or cut.
 *
 * The OCR-B filler `<` is thin: after blur and JPEG 40 the DB detector often leaves a filler run out, so one
 * row comes back as a head and a tail (`N393613516MEX8807054F2108058<` + `<<<<<<<08`), or as a head only when
 * the row ends in fillers (`P<MEXNUNEZ<IBANEZ<<TOMA`, the `S` lost at the box edge). Here the fragments of a
 * row are found by geometry (collinear with the row's widest fragment), the rows of one zone are given one
 * length (MRZ rows are left-aligned and equally long, so the longest row's extent applies to all), and each
 * changed row is recognised again as one crop spanning it.
 */
import { isMrzText, looksLikeMrzRow, mrzChars } from '../../domain/ocr/mrz-zone.ts';
import type { PaddleOcr, TextLine } from './paddle.ts';
import { dist, type Point, type Quad, type RgbImage } from './raster.ts';
import { DEFAULT_OCR_SETTINGS } from './settings.ts';

interface Row {
  members: TextLine[];
  /** Unit reading direction and normal of the anchor (widest fragment). */
  u: Point;
  /** Left end (anchor frame) and right end, as distances along `u` from the anchor's top-left corner. */
  left: number;
  right: number;
  anchor: TextLine;
  h: number;
}

const sub = (a: Point, b: Point): Point => [a[0] - b[0], a[1] - b[1]];
const dot = (a: Point, b: Point) => a[0] * b[0] + a[1] * b[1];
const centre = (q: Quad): Point => [(q[0][0] + q[1][0] + q[2][0] + q[3][0]) / 4, (q[0][1] + q[1][1] + q[2][1] + q[3][1]) / 4];

/**
 * Groups MRZ-text lines (see `isMrzText`) into rows: widest first, a line joins a row when its centre lies
 * within 45 % of the row's height of the row's centre line and its height is 0.6-1.6 times the row's.
 * Only rows that look like MRZ rows (`looksLikeMrzRow`: a `<`, or 25+ characters with 8+ digits) are kept.
 * Quads in image pixels.
 */
export function groupMrzRowFragments(lines: readonly TextLine[]): Row[] {
  const frags = lines.filter((l) => isMrzText(l.text)).sort((a, b) => dist(b.quad[0], b.quad[1]) - dist(a.quad[0], a.quad[1]));
  const rows: Row[] = [];
  for (const l of frags) {
    const c = centre(l.quad);
    const h = dist(l.quad[0], l.quad[3]);
    const row = rows.find((r) => {
      const d = sub(c, centre(r.anchor.quad));
      return Math.abs(-d[0] * r.u[1] + d[1] * r.u[0]) < 0.45 * r.h && h > 0.6 * r.h && h < 1.6 * r.h;
    });
    if (row) {
      row.members.push(l);
      continue;
    }
    const w = Math.max(1, dist(l.quad[0], l.quad[1]));
    const u: Point = [(l.quad[1][0] - l.quad[0][0]) / w, (l.quad[1][1] - l.quad[0][1]) / w];
    rows.push({ members: [l], u, left: 0, right: w, anchor: l, h });
  }
  const kept = rows.filter((r) => looksLikeMrzRow(r.members.map((m) => m.text).join(' ')));
  for (const r of kept) {
    const o = r.anchor.quad[0];
    r.left = Math.min(...r.members.map((m) => dot(sub(m.quad[0], o), r.u)));
    r.right = Math.max(...r.members.map((m) => dot(sub(m.quad[1], o), r.u)));
    r.members.sort((a, b) => dot(sub(a.quad[0], o), r.u) - dot(sub(b.quad[0], o), r.u));
  }
  return kept;
}

/**
 * The quad spanning a row from its leftmost fragment to `length` px along the row direction, with a margin of
 * a quarter of the row height at both ends, `heightScale` times the fragment's height (centred). When the rightmost fragment reaches the end, the direction is
 * taken from the leftmost fragment's top-left to the rightmost's top-right (follows mild perspective).
 */
export function rowQuad(row: Row, length: number, heightScale = 1): Quad {
  const first = row.members[0]!;
  const last = row.members[row.members.length - 1]!;
  let u = row.u;
  const span = dist(first.quad[0], last.quad[1]);
  if (row.members.length > 1 && span > 0.5 * length) u = [(last.quad[1][0] - first.quad[0][0]) / span, (last.quad[1][1] - first.quad[0][1]) / span];
  const m = 0.25 * row.h;
  // Vertical extent: the first fragment's left edge, scaled about its middle.
  const mid: Point = [(first.quad[0][0] + first.quad[3][0]) / 2, (first.quad[0][1] + first.quad[3][1]) / 2];
  const half: Point = [((first.quad[3][0] - first.quad[0][0]) / 2) * heightScale, ((first.quad[3][1] - first.quad[0][1]) / 2) * heightScale];
  const tl: Point = [mid[0] - half[0] - u[0] * m, mid[1] - half[1] - u[1] * m];
  const bl: Point = [mid[0] + half[0] - u[0] * m, mid[1] + half[1] - u[1] * m];
  const len = length + 2 * m;
  const tr: Point = [tl[0] + u[0] * len, tl[1] + u[1] * len];
  const br: Point = [bl[0] + u[0] * len, bl[1] + u[1] * len];
  return [tl, tr, br, bl];
}

/** A whole MRZ row read again as one crop, and the fragments it covers. */
export interface MrzRowReread {
  line: TextLine;
  members: TextLine[];
}

/**
 * Height factors of the whole-row crops, in the order tried (the default of `OcrSettings.mrzRowScales`,
 * `settings.ts`). PP-OCRv4's reading of a long OCR-B row is sensitive to the crop: on degraded synthetic
 * pages a row that drops a character at the detector's height often reads whole with more margin above and
 * below (1.2-1.4x), and a row that drops one there reads whole at another; 0.7-0.85x is worse. The factors
 * are tried in this order until the check digits pass (configuration `OCR_MRZ_ROW_SCALES` overrides).
 */
export const MRZ_ROW_HEIGHT_SCALES: readonly number[] = DEFAULT_OCR_SETTINGS.mrzRowScales;

/**
 * Re-reads every MRZ row of a page (read to a third of its length at least, or a TD3 row 1 to its
 * name) as one crop spanning the whole row, `heightScale` times the detected
 * height (see {@link MRZ_ROW_HEIGHT_SCALES}). Rows whose left ends lie within 3 row heights of each other
 * form one zone; every row of a zone is extended to the zone's longest extent, or to `rowLength` characters
 * at the zone's smallest pitch when that is longer (a row cut or split by the detector gets its missing part
 * back, also when every row was cut). A reading is returned when it holds at most `rowLength + 4` MRZ characters and at least 80 % of the
 * fragments' count (a whole-row read may drop a character the fragments had: the caller keeps both and lets
 * the check digits choose).
 */
export async function rereadWholeMrzRows(ocr: PaddleOcr, img: RgbImage, lines: readonly TextLine[], rowLength: number, heightScale = 1.3): Promise<MrzRowReread[]> {
  // A row read in part only: a third of its characters, or a TD3 row 1 down to its code, state and a name
  // letter (the detector lost the rest: the whole-row crop is what brings it back).
  const rows = groupMrzRowFragments(lines).filter((r) => {
    const t = r.members.map((m) => mrzChars(m.text)).join('');
    return t.length >= rowLength / 3 || (rowLength === 44 && /^P[A-Z<][A-Z<]{3}[A-Z]{3}/.test(t));
  });
  if (!rows.length) return [];
  const leftPoint = (r: Row): Point => {
    const o = r.anchor.quad[0];
    return [o[0] + r.u[0] * r.left, o[1] + r.u[1] * r.left];
  };
  const chars = (r: Row) => r.members.reduce((s, m) => s + mrzChars(m.text).length, 0);
  const todo = rows.map((r) => {
    const lp = leftPoint(r);
    const zone = rows.filter((o) => Math.abs(dot(sub(leftPoint(o), lp), r.u)) < 3 * r.h);
    // Every row of the zone cut (both tails missed): the row length from the smallest pitch read (CTC
    // undercounts fillers, which only makes a pitch larger), `rowLength` characters.
    const pitch = Math.min(...zone.map((o) => (o.right - o.left) / Math.max(1, chars(o))));
    const extent = Math.max(...zone.map((o) => o.right - o.left));
    // Only when more than 2 characters are missing: the recogniser's reading of a whole row changes with a
    // few pixels of crop, so a complete zone keeps its measured extent.
    const length = rowLength * pitch > extent + 2 * pitch ? rowLength * pitch : extent;
    // A row read over less than half the zone's extent takes its direction from the zone's longest row (the
    // rows of a zone are parallel): a short fragment's slant, extended over the whole row, drifts off it on
    // a page photographed at an angle (an Australian specimen's `P<AUSCIT`: the crop cut through the name).
    const longest = zone.reduce((a, b) => (b.right - b.left > a.right - a.left ? b : a));
    const guided = r.right - r.left < 0.5 * (longest.right - longest.left) ? { ...r, u: longest.u } : r;
    return { row: r, quad: rowQuad(guided, length, heightScale) };
  });
  const texts = await ocr.recognize(img, todo.map((t) => t.quad));
  const out: MrzRowReread[] = [];
  todo.forEach(({ row, quad }, i) => {
    const t = texts[i]!;
    const got = mrzChars(t.text).length;
    const had = row.members.reduce((s, m) => s + mrzChars(m.text).length, 0);
    if (got < 0.8 * had || got > rowLength + 4) return;
    const xs = quad.map((p) => p[0]);
    const ys = quad.map((p) => p[1]);
    const x = Math.min(...xs);
    const y = Math.min(...ys);
    out.push({ line: { text: t.text.trim(), confidence: t.confidence, quad, box: { x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y } }, members: row.members });
  });
  return out;
}
