/**
 * Check-digit-guided correction of confusable characters in an MRZ read by OCR.
 *
 * OCR engines confuse a few glyph pairs of the OCR-B font (0/O, 1/I, 2/Z, 5/S, 6/G, 8/B).
 * Doc 9303 fixes the type of every MRZ field (Part 3, 4.2: numeric, alphabetic or
 * alphanumeric), so:
 * 1. in numeric fields (dates, check digits, numeric-only numbers) a confusable letter is
 *    replaced by its digit; in alphabetic fields (codes, nationality, names, sex) a confusable
 *    digit by its letter (reason `field-type`);
 * 2. in alphanumeric fields covered by a check digit (document and personal numbers), each
 *    confusable position may be either glyph: the readings that satisfy the check digit are
 *    enumerated and applied only when one reading with the fewest changes is left
 *    (reason `check-digit`). Nothing is guessed when the check digit cannot single one out.
 */
import { isCheckDigitValid } from './check-digit.ts';
import type { FieldDef, LayoutDef, LocatedCheck } from './formats.ts';

/** One character changed by {@link correctMrz}: 0-based `line` and `column`. */
export interface MrzCorrection {
  readonly line: number;
  readonly column: number;
  readonly from: string;
  readonly to: string;
  /** Name of the layout field the character belongs to (`documentNumber`, `dateOfBirth`, ...). */
  readonly field: string;
  readonly reason: 'field-type' | 'check-digit';
}

/** Letters OCR reads for digits (the digit they stand for). */
export const LETTER_TO_DIGIT: Readonly<Record<string, string>> = { O: '0', Q: '0', D: '0', U: '0', I: '1', L: '1', T: '1', Z: '2', S: '5', G: '6', B: '8' };
/** Digits OCR reads for letters (the letter they stand for). */
export const DIGIT_TO_LETTER: Readonly<Record<string, string>> = { '0': 'O', '1': 'I', '2': 'Z', '5': 'S', '6': 'G', '8': 'B', '4': 'A' };
/** Pairs that may be either glyph inside an alphanumeric field. */
const ALNUM_SWAP: Readonly<Record<string, string>> = { '0': 'O', O: '0', '1': 'I', I: '1', '2': 'Z', Z: '2', '5': 'S', S: '5', '6': 'G', G: '6', '8': 'B', B: '8' };

/** Most confusable positions tried per check (2^12 readings). */
const MAX_AMBIGUOUS = 12;

function setChar(lines: string[], line: number, col: number, ch: string): void {
  const l = lines[line]!;
  lines[line] = l.slice(0, col) + ch + l.slice(col + 1);
}

function fieldAt(layout: LayoutDef, line: number, col: number): FieldDef | undefined {
  return layout.fields.find((d) => d.line === line && col >= d.start && col < d.end);
}

/**
 * Applies field-type and check-digit-guided correction to lines already shaped for `layout`.
 * @param lines upper-case lines of exactly the layout's lengths (not modified).
 * @returns the corrected lines and the list of changes (empty when nothing changed).
 */
export function correctMrz(lines: readonly string[], layout: LayoutDef): { lines: string[]; corrections: MrzCorrection[] } {
  const out = [...lines];
  const corrections: MrzCorrection[] = [];
  const change = (line: number, col: number, to: string, field: string, reason: MrzCorrection['reason']) => {
    const from = out[line]!.charAt(col);
    if (from === to) return;
    setChar(out, line, col, to);
    corrections.push({ line, column: col, from, to, field, reason });
  };

  // 1. Field-type pass.
  for (const d of layout.fields) {
    for (let c = d.start; c < d.end; c++) {
      const ch = out[d.line]!.charAt(c);
      if (d.kind === 'numeric' || d.kind === 'date' || d.kind === 'digit') {
        const to = LETTER_TO_DIGIT[ch];
        if (to !== undefined) change(d.line, c, to, d.name, 'field-type');
      } else if (d.kind === 'alpha' || d.kind === 'name') {
        const to = DIGIT_TO_LETTER[ch];
        if (to !== undefined) change(d.line, c, to, d.name, 'field-type');
      }
    }
  }

  // 2. Check-digit pass. The check digit position itself is numeric even inside an alphanumeric
  // field (long document numbers move it into the optional data).
  for (const check of layout.checks) {
    const loc = check.locate(out);
    const [dl, dc] = loc.digitAt;
    const digitCh = out[dl]!.charAt(dc);
    const asDigit = LETTER_TO_DIGIT[digitCh];
    if (asDigit !== undefined) change(dl, dc, asDigit, fieldAt(layout, dl, dc)?.name ?? 'checkDigit', 'field-type');
    if (passes(out, loc)) continue;
    const ambiguous: Array<[number, number, string]> = [];
    for (const [line, start, end] of loc.ranges) {
      for (let c = start; c < end; c++) {
        const d = fieldAt(layout, line, c);
        const ch = out[line]!.charAt(c);
        if (d?.kind === 'alnum' && ALNUM_SWAP[ch] !== undefined && !(line === dl && c === dc)) ambiguous.push([line, c, d.name]);
      }
    }
    if (ambiguous.length === 0 || ambiguous.length > MAX_AMBIGUOUS) continue;
    // A second, independent check guards against a wrong fix: when the composite digit covers
    // these positions, a candidate must satisfy it too (so with a composite that cannot pass,
    // nothing is changed).
    const composite = check.name === 'composite' ? undefined : layout.checks.find((c) => c.name === 'composite')?.locate(out);
    const guarded = composite && ambiguous.some(([line, c]) => composite.ranges.some(([l, s, e]) => l === line && c >= s && c < e)) ? composite : undefined;
    let best: number[] = [];
    let bestChanges = Infinity;
    for (let mask = 1; mask < 1 << ambiguous.length; mask++) {
      const bits = popcount(mask);
      if (bits > bestChanges) continue;
      const trial = [...out];
      ambiguous.forEach(([line, c], i) => {
        if (mask & (1 << i)) setChar(trial, line, c, ALNUM_SWAP[trial[line]!.charAt(c)]!);
      });
      if (!passes(trial, loc) || (guarded && !passes(trial, guarded))) continue;
      if (bits < bestChanges) {
        bestChanges = bits;
        best = [mask];
      } else best.push(mask);
    }
    if (best.length !== 1) continue; // none, or several equally good readings: do not guess
    const mask = best[0]!;
    ambiguous.forEach(([line, c, name], i) => {
      if (mask & (1 << i)) change(line, c, ALNUM_SWAP[out[line]!.charAt(c)]!, name, 'check-digit');
    });
  }
  return { lines: out, corrections };
}

/** True when the located check digit is right for its data (or for one of its alternatives). */
export function passes(lines: readonly string[], loc: LocatedCheck): boolean {
  const [dl, dc] = loc.digitAt;
  const digit = (lines[dl] ?? '').charAt(dc);
  return [loc.ranges, ...(loc.alternatives ?? [])].some((ranges) =>
    isCheckDigitValid(ranges.map(([l, s, e]) => (lines[l] ?? '').slice(s, e)).join(''), digit, loc.allowFillerWhenEmpty));
}

function popcount(n: number): number {
  let c = 0;
  for (let x = n; x; x &= x - 1) c++;
  return c;
}
