/**
 * Decoding a whole MRZ (its 1 to 3 rows) from CTC posteriors: the layout is chosen from the number of
 * rows and their estimated lengths (Doc 9303: TD1 3 x 30, TD2 2 x 36, TD3 2 x 44; the French national
 * ID's 2 x 36 opens `IDFRA`, the INE credential's TD1 `IDMEX`), each row is decoded at the layout's
 * length with its columns' character classes (`./ctc.ts`), then failing check digits are corrected
 * with the recogniser's evidence (`./ctc-correct.ts`).
 */
import { correctWithCosts } from './ctc-correct.ts';
import { chooseRowLength, columnPrior, decodeFixedLength, substitutionCosts, type ColumnPrior, type DecodedRow, type MrzPosteriors } from './ctc.ts';
import type { MrzCorrection } from './correct.ts';
import { LAYOUTS, type LayoutDef } from './formats.ts';
import { lineLayout, singleLineLayout, type MrzLineKind } from './line.ts';

const KINDS_BY_LENGTH: Readonly<Record<number, readonly MrzLineKind[]>> = {
  30: ['TD1_1', 'TD1_2', 'TD1_3'],
  36: ['TD2_1', 'TD2_2', 'FRA_1', 'FRA_2'],
  44: ['TD3_1', 'TD3_2'],
};

/**
 * Decodes a single row whose place in its MRZ is unknown: at its estimated length (`chooseRowLength`),
 * once per line kind of that length with the kind's column classes, keeping the most probable path
 * (maximum a posteriori over the kinds). Rows of no MRZ length are decoded at their length unconstrained.
 * `corrected` is the text after check-digit correction ({@link correctWithCosts}) of the checks lying
 * wholly inside the row.
 * @returns the text and the kind chosen (`null` for other lengths), or `null` when no path exists
 */
export function decodeMrzRow(post: MrzPosteriors): { text: string; kind: MrzLineKind | null; corrected: string } | null {
  const n = chooseRowLength(post);
  const plain = decodeFixedLength(post, n);
  if (!plain) return null;
  let best: { row: DecodedRow; kind: MrzLineKind | null; prior?: ColumnPrior } = { row: plain, kind: null };
  for (const kind of KINDS_BY_LENGTH[n] ?? []) {
    const [layout, idx] = lineLayout(kind, plain.text);
    const prior = columnPrior(layout, idx);
    const d = decodeFixedLength(post, n, prior);
    if (d && (best.kind === null || d.score > best.row.score)) best = { row: d, kind, prior };
  }
  const text = best.row.text;
  if (!best.kind) return { text, kind: null, corrected: text };
  // The checks wholly inside the row, corrected with the row's substitution costs.
  const [layout, idx] = lineLayout(best.kind, text);
  const { lines, sub } = singleLineLayout(layout, idx, text);
  const costs = lines.map((_, i) => (i === idx ? substitutionCosts(post, best.row, best.prior) : undefined));
  return { text, kind: best.kind, corrected: correctWithCosts(lines, sub, costs).lines[idx]! };
}

/** Result of {@link decodeMrzRows}. */
export interface DecodedMrz {
  readonly layout: LayoutDef;
  readonly lines: string[];
  /** Check-digit-guided changes made after decoding. */
  readonly corrections: MrzCorrection[];
}

/** Largest difference between a row's estimated length and the layout's length for the row to count as that layout's. */
const MAX_LENGTH_GAP = 10;

/** Row `r` decoded at the layout's length with its column prior, and the substitution costs of its characters. */
function decodeRow(posts: readonly MrzPosteriors[], layout: LayoutDef, r: number): { line: string; cost: Float64Array } | null {
  const prior = columnPrior(layout, r);
  const d = decodeFixedLength(posts[r]!, layout.lineLengths[r]!, prior);
  return d ? { line: d.text, cost: substitutionCosts(posts[r]!, d, prior) } : null;
}

/** Each row decoded by {@link decodeRow}; `first`, when given, is row 0 already decoded with this layout. */
function decodeWith(posts: readonly MrzPosteriors[], layout: LayoutDef, first?: { line: string; cost: Float64Array }): { lines: string[]; costs: Float64Array[] } | null {
  const lines: string[] = [];
  const costs: Float64Array[] = [];
  for (let r = 0; r < posts.length; r++) {
    const d = r === 0 && first ? first : decodeRow(posts, layout, r);
    if (!d) return null;
    lines.push(d.line);
    costs.push(d.cost);
  }
  return { lines, costs };
}

/**
 * Picks the layout for `posts` (top row first) and decodes them.
 * @returns `null` when the rows fit no layout (wrong count, or a row's estimated length is more than
 *   10 characters off the layout's length): the caller keeps its own reading
 */
export function decodeMrzRows(posts: readonly MrzPosteriors[]): DecodedMrz | null {
  if (posts.length < 2 || posts.length > 3) return null;
  const lengths = posts.map(chooseRowLength);
  let layout: LayoutDef;
  if (posts.length === 3) layout = LAYOUTS.TD1;
  else {
    // The longer row decides: a row read short lost characters, none is read long.
    const est = Math.max(...lengths);
    layout = est <= 40 ? LAYOUTS.TD2 : LAYOUTS.TD3;
  }
  if (lengths.some((n, r) => Math.abs(n - layout.lineLengths[r]!) > MAX_LENGTH_GAP)) return null;
  // Row 0 decides whether a national layout replaces the ICAO one; the other rows are decoded once, with the
  // layout kept. (A row decodes to null only when it has fewer time steps than the layout's length, and each
  // national layout has its ICAO layout's lengths: deciding on row 0 alone returns what decoding all rows did.)
  const row0 = decodeRow(posts, layout, 0);
  if (!row0) return null;
  const first = row0.line;
  const special = layout === LAYOUTS.TD1 && /^I[D0]MEX/.test(first) ? LAYOUTS.TD1_INE : layout === LAYOUTS.TD2 && /^I[D0]FRA/.test(first) ? LAYOUTS.FRENCH_NATIONAL_ID : null;
  if (special) layout = special;
  const decoded = decodeWith(posts, layout, special ? undefined : row0);
  if (!decoded) return null;
  const fixed = correctWithCosts(decoded.lines, layout, decoded.costs);
  return { layout, lines: fixed.lines, corrections: fixed.corrections };
}
