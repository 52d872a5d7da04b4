/**
 * Label-driven layout reading: find a printed label among OCR lines and the value that belongs to it
 * (the rest of the same box, the box to its right on the same row, or the box below). No fixed pixel
 * positions: everything is relative to the label's own box, so it works across card models, scales,
 * rotations (after deskew) and crops.
 */
import { compact, matchLabelPrefix, type OcrLine } from './text.ts';

/** A label hit: the line index and how many compacted characters of it the label took. */
export interface LabelHit {
  index: number;
  line: OcrLine;
  /** Compacted text after the label (may be empty). */
  rest: string;
  /** Raw text after the label (best effort: the words after the label's word count). */
  restRaw: string;
}

/** Finds the first line that starts with `label` (tolerant match, see {@link matchLabelPrefix}). */
export function findLabel(lines: readonly OcrLine[], label: string | readonly string[], from = 0): LabelHit | null {
  const labels = typeof label === 'string' ? [label] : label;
  for (let i = from; i < lines.length; i++) {
    const line = lines[i]!;
    for (const l of labels) {
      const took = matchLabelPrefix(line.text, l);
      if (took >= 0) {
        const rest = compact(line.text).slice(took);
        return { index: i, line, rest, restRaw: rawAfter(line.text, took) };
      }
    }
  }
  return null;
}

/** Raw text left after dropping the first `took` compacted characters. */
function rawAfter(text: string, took: number): string {
  let seen = 0;
  let i = 0;
  while (i < text.length && seen < took) {
    if (compact(text[i]!).length) seen++;
    i++;
  }
  return text.slice(i).trim();
}

const cy = (l: OcrLine) => l.box.y + l.box.h / 2;

/** The nearest line to the right of `hit` on the same row (vertical centres within 60% of the label height, at most 16 label heights away). */
export function rightOf(lines: readonly OcrLine[], hit: LabelHit): OcrLine | null {
  const h = hit.line.box.h;
  let best: OcrLine | null = null;
  for (const l of lines) {
    if (l === hit.line) continue;
    if (Math.abs(cy(l) - cy(hit.line)) > 0.6 * h) continue;
    if (l.box.x < hit.line.box.x + hit.line.box.w - h) continue;
    if (l.box.x - (hit.line.box.x + hit.line.box.w) > 16 * h) continue;
    if (!best || l.box.x < best.box.x) best = l;
  }
  return best;
}

/**
 * The line just below `hit`: vertical offset between `minDy` (default 0.5) and 3 label heights, left edge within 3 label
 * heights of the label's; the best minimises (left-edge or centre offset, whichever is smaller) plus the
 * vertical distance, so a value printed under its label in a row of labels is not taken from the
 * neighbouring column.
 */
export function below(lines: readonly OcrLine[], hit: LabelHit, minDy = 0.5): OcrLine | null {
  const h = hit.line.box.h;
  const cx = (l: OcrLine) => l.box.x + l.box.w / 2;
  let best: OcrLine | null = null;
  let bestScore = Infinity;
  for (const l of lines) {
    if (l === hit.line) continue;
    const dy = cy(l) - cy(hit.line);
    if (dy < minDy * h || dy > 3 * h) continue;
    if (Math.abs(l.box.x - hit.line.box.x) > 3 * h) continue;
    const score = Math.min(Math.abs(l.box.x - hit.line.box.x), Math.abs(cx(l) - cx(hit.line))) + dy;
    if (score < bestScore) {
      bestScore = score;
      best = l;
    }
  }
  return best;
}

/** Candidate value texts of a label, in order of preference: the rest of its box, the box to the right, the box below. */
export function valueCandidates(lines: readonly OcrLine[], hit: LabelHit): string[] {
  const out: string[] = [];
  if (hit.restRaw) out.push(hit.restRaw);
  const r = rightOf(lines, hit);
  if (r) out.push(r.text);
  const b = below(lines, hit);
  if (b) out.push(b.text);
  return out;
}

/**
 * The lines of a block under a label: below it, left-aligned with it (within 3 label heights), until a
 * line that starts with one of `stopLabels` or a vertical gap over 2.5 line heights; at most `maxRows` rows.
 * Returns the original line objects (several per row when a wide gap split a row; see {@link mergeRows}).
 */
export function blockBelow(lines: readonly OcrLine[], hit: LabelHit, stopLabels: readonly string[], maxRows: number): OcrLine[] {
  const h = hit.line.box.h;
  const left = hit.line.box.x;
  const candidates = lines
    .filter((l) => l !== hit.line && cy(l) > cy(hit.line) + 0.5 * h && l.box.x >= left - 3 * h)
    .sort((a, b) => cy(a) - cy(b));
  const out: OcrLine[] = [];
  let rowY = cy(hit.line);
  let rows = 0;
  for (const l of candidates) {
    const sameRow = out.length > 0 && Math.abs(cy(l) - rowY) < 0.5 * l.box.h;
    if (sameRow) {
      // Only a continuation of the row (starts right after the previous box), not a field further right.
      const prev = out[out.length - 1]!;
      if (l.box.x > prev.box.x + prev.box.w + 4 * l.box.h) continue;
      out.push(l);
      continue;
    }
    if (Math.abs(l.box.x - left) > 3 * h) continue;
    if (stopLabels.some((s) => matchLabelPrefix(l.text, s) >= 0)) break;
    if (cy(l) - rowY > 2.5 * Math.max(h, l.box.h)) break;
    if (rows >= maxRows) break;
    out.push(l);
    rows++;
    rowY = cy(l);
  }
  return out;
}

/** Groups lines into rows (vertical centres within half a line height) and joins each row left to right with a space. */
export function mergeRows(lines: readonly OcrLine[]): string[] {
  const rows: OcrLine[][] = [];
  for (const l of [...lines].sort((a, b) => cy(a) - cy(b))) {
    const r = rows[rows.length - 1];
    if (r && Math.abs(cy(r[0]!) - cy(l)) < 0.5 * Math.min(r[0]!.box.h, l.box.h)) r.push(l);
    else rows.push([l]);
  }
  return rows.map((r) => r.sort((a, b) => a.box.x - b.box.x).map((l) => l.text.trim()).join(' ').replace(/\s+/g, ' '));
}
