/**
 * Correction and checking of one MRZ line on its own (an OCR engine that reads line by line, or
 * a data set of single-line images): the line's kind is inferred from its length and content,
 * field-type correction applies to its fields, and the check digits that lie wholly inside the
 * line guide the correction of its alphanumeric fields (TD1 line 1: document number; TD1 line 2:
 * birth and expiry dates; TD2/TD3 line 2: all but nothing else). Cross-line checks (the TD1
 * composite) cannot be verified from one line and are not reported.
 */
import { correctMrz, passes, type MrzCorrection } from './correct.ts';
import { LAYOUTS, type CheckName, type LayoutDef } from './formats.ts';
import { normalizeMrzText } from './parse.ts';

/** Which line of which layout: `TD1_1` is TD1 line 1, and so on. */
export type MrzLineKind = 'TD1_1' | 'TD1_2' | 'TD1_3' | 'TD2_1' | 'TD2_2' | 'TD3_1' | 'TD3_2' | 'FRA_1' | 'FRA_2';

/** Result of {@link correctMrzLine}. */
export interface MrzLineResult {
  /** `null` when the length fits no MRZ line (30, 36, 44); then nothing is corrected. */
  readonly kind: MrzLineKind | null;
  readonly line: string;
  readonly corrections: readonly MrzCorrection[];
  /** Check digits wholly inside this line, with their verdict (empty for name lines). */
  readonly checks: ReadonlyArray<{ readonly name: CheckName; readonly valid: boolean }>;
}

const DIGITISH = /[0-9OQDIZSBGL]/;

function countDigits(s: string): number {
  return [...s].filter((c) => c >= '0' && c <= '9').length;
}

/**
 * Infers the kind of a single line from its length (30 TD1, 36 TD2, 44 TD3) and content
 * (a data line holds many digits; a TD1 line 2 opens with a six-character date).
 * @returns `null` for any other length.
 */
export function inferLineKind(line: string): MrzLineKind | null {
  const digits = countDigits(line);
  if (line.length === 44) return digits >= 10 ? 'TD3_2' : 'TD3_1';
  if (line.length === 36) {
    if (/^[I1][D0]FRA/.test(line)) return 'FRA_1';
    if (digits < 10) return 'TD2_1';
    // French ID line 2: 12-character number, check digit, 14-letter given names, date, digit, sex,
    // digit; a TD2 line 2 has its nationality (3 letters) at 11-13 and digits from 14 on.
    const letters = (s: string) => [...s].filter((c) => /[A-Z<]/.test(c)).length;
    return letters(line.slice(13, 27)) >= 12 && letters(line.slice(10, 13)) < 3 ? 'FRA_2' : 'TD2_2';
  }
  if (line.length === 30) {
    if ([...line.slice(0, 7)].every((c) => DIGITISH.test(c)) && /^[A-Z<]{3}$/.test(line.slice(15, 18).replace(/0/g, 'O'))) return 'TD1_2';
    if (digits >= 3) return 'TD1_1';
    return 'TD1_3';
  }
  return null;
}

const KIND_LAYOUT: Record<MrzLineKind, [LayoutDef, number]> = {
  TD1_1: [LAYOUTS.TD1, 0], TD1_2: [LAYOUTS.TD1, 1], TD1_3: [LAYOUTS.TD1, 2],
  TD2_1: [LAYOUTS.TD2, 0], TD2_2: [LAYOUTS.TD2, 1],
  TD3_1: [LAYOUTS.TD3, 0], TD3_2: [LAYOUTS.TD3, 1],
  FRA_1: [LAYOUTS.FRENCH_NATIONAL_ID, 0], FRA_2: [LAYOUTS.FRENCH_NATIONAL_ID, 1],
};

/**
 * The layout a line kind belongs to and the line's index in it (TD1 line 1 opening `IDMEX` is the
 * INE credential's overlay of TD1).
 */
export function lineLayout(kind: MrzLineKind, line = ''): [LayoutDef, number] {
  const [layout, idx] = KIND_LAYOUT[kind];
  return kind === 'TD1_1' && /^[I1][D0]MEX/.test(line) ? [LAYOUTS.TD1_INE, idx] : [layout, idx];
}

/**
 * One line of `layout` on its own: the layout's lines with `line` at `idx` and fillers elsewhere, and
 * the sub-layout of that line's fields and of the checks lying wholly inside it (`within` recomputes
 * them for other lines: a long document number moves its check).
 */
export function singleLineLayout(layout: LayoutDef, idx: number, line: string): { lines: string[]; sub: LayoutDef; within: (lines: readonly string[]) => LayoutDef['checks'] } {
  const lines = layout.lineLengths.map((n, i) => (i === idx ? line : '<'.repeat(n)));
  const within = (lines2: readonly string[]) =>
    layout.checks.filter((c) => {
      const loc = c.locate(lines2);
      return loc.digitAt[0] === idx && loc.ranges.every(([l]) => l === idx);
    });
  return { lines, sub: { ...layout, fields: layout.fields.filter((f) => f.line === idx), checks: within(lines) }, within };
}

/**
 * Normalises (upper case, no blanks), then corrects one MRZ line.
 * @param kind the line's kind when known; inferred otherwise.
 * @param options `correct: false` only normalises and checks (no character is changed).
 */
export function correctMrzLine(input: string, kind?: MrzLineKind, options: { correct?: boolean } = {}): MrzLineResult {
  const line = normalizeMrzText(input);
  const k = kind ?? inferLineKind(line);
  if (!k) return { kind: null, line, corrections: [], checks: [] };
  const [layout, idx] = lineLayout(k, line);
  if (line.length !== layout.lineLengths[idx]) return { kind: null, line, corrections: [], checks: [] };
  const { lines, sub, within } = singleLineLayout(layout, idx, line);
  const { lines: out, corrections } = options.correct === false ? { lines, corrections: [] } : correctMrz(lines, sub);
  const corrected = out[idx]!;
  const checks = within(out).map((c) => {
    const loc = c.locate(out);
    return { name: c.name, valid: passes(out, loc) };
  });
  return { kind: k, line: corrected, corrections, checks };
}

/**
 * Repairs the fillers of one OCR-read row before correction: engines read `<` as `K`, `X`, `C`,
 * `L` or `E` inside filler runs, and drop or add a filler or two. Letters from that set touching
 * a `<` on their right (or ending the row) after a `<`, and runs of two or more between fillers,
 * become `<`; then a row within 2 characters of an MRZ length (30, 36, 44) is padded or trimmed
 * on its filler side. Letters of names are left alone unless they sit in a filler run, so a
 * genuine `<K<` inside a name can be lost: apply only to rows that fail their checks, or accept
 * the rare name error.
 */
export function repairMrzFillers(raw: string): string {
  let s = normalizeMrzText(raw);
  for (let k = 0; k < 3; k++) s = s.replace(/<[KXCLE]+(?=<|$)/g, (m) => '<'.repeat(m.length)).replace(/(^|<)[KXCLE]{2,}</g, (m) => m.replace(/[KXCLE]/g, '<'));
  for (const len of [30, 36, 44]) {
    const d = len - s.length;
    if (d !== 0 && Math.abs(d) <= 2) {
      if (d > 0 && s.endsWith('<')) s += '<'.repeat(d);
      else if (d < 0 && s.endsWith('<'.repeat(-d + 1))) s = s.slice(0, len);
      else if (d > 0) {
        const m = /<{2,}/.exec(s);
        if (m) s = s.slice(0, m.index) + '<'.repeat(d) + s.slice(m.index);
      }
      break;
    }
  }
  return s;
}
