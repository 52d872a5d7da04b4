/**
 * Parsing and validation of ICAO Doc 9303 machine readable zones (TD1, TD2, TD3) and of two
 * national layouts found in the shared test vectors. Pure: no IO, never throws on bad input.
 */
import { MRZ_ALPHABET, computeCheckDigit } from './check-digit.ts';
import { correctMrz, passes, type MrzCorrection } from './correct.ts';
import { detectLayout, type CheckName, type LayoutDef, type MrzFormat } from './formats.ts';

/** Result of one check digit. `expected` is the computed digit (`null` if the data holds non-MRZ characters). */
export interface MrzCheck {
  readonly name: CheckName;
  readonly valid: boolean;
  /** The digit read in the MRZ. */
  readonly actual: string;
  readonly expected: string | null;
}

/** A reason the MRZ is not valid. */
export interface MrzProblem {
  readonly code: 'unknown_format' | 'invalid_characters' | 'check_digit_failed' | 'invalid_date' | 'invalid_sex';
  readonly message: string;
  readonly field?: string;
}

/**
 * Interpreted content. Text values have fillers removed (`<` inside names becomes a space);
 * dates keep the MRZ form `YYMMDD` plus an ISO `YYYY-MM-DD` reading (`null` if not a date).
 * Fields a layout does not carry are `null`.
 */
export interface MrzFields {
  readonly documentCode: string | null;
  readonly issuingState: string | null;
  readonly documentNumber: string | null;
  readonly nationality: string | null;
  /** Primary identifier (surnames), fillers as spaces. */
  readonly lastName: string | null;
  /** Secondary identifier (given names), fillers as spaces. */
  readonly firstName: string | null;
  /** `M`, `F`, `X`, `<` as in Doc 9303 (`H` may appear on INE credentials, see `ine.ts`). */
  readonly sex: string | null;
  readonly dateOfBirth: string | null;
  readonly dateOfBirthIso: string | null;
  readonly dateOfExpiry: string | null;
  readonly dateOfExpiryIso: string | null;
  /** TD3 personal number (positions 29-42 of line 2), fillers removed. */
  readonly personalNumber: string | null;
  /** Optional data of line 1 (TD1) or line 2 (TD2), raw with fillers. */
  readonly optional1: string | null;
  /** Optional data of line 2 (TD1), raw with fillers. */
  readonly optional2: string | null;
}

/** The four checks the public API reports (spec "OCR identity result", `validation.mrzFields`); `null` when the layout has no such check. */
export interface MrzCheckSummary {
  readonly documentNumberCheck: boolean | null;
  readonly dateOfBirthCheck: boolean | null;
  readonly dateOfExpiryCheck: boolean | null;
  readonly compositeCheck: boolean | null;
}

/** Everything {@link parseMrz} finds. */
export interface MrzParseResult {
  /** `null` when the lines match no known layout (then `valid` is false and `fields` are all null). */
  readonly format: MrzFormat | null;
  /** True for an INE credential (`IDMEX` TD1). */
  readonly ine: boolean;
  /** Normalised (upper case, no blanks) and corrected lines. */
  readonly lines: readonly string[];
  /** Known layout, only MRZ characters, every check digit passes, dates and sex well formed. */
  readonly valid: boolean;
  readonly fields: MrzFields;
  readonly checks: readonly MrzCheck[];
  readonly checkSummary: MrzCheckSummary;
  readonly problems: readonly MrzProblem[];
  /** Changes made by confusable-character correction (empty when `correct` is false). */
  readonly corrections: readonly MrzCorrection[];
  /** Raw text of every layout field by name (fillers kept), for callers needing national fields. */
  readonly raw: Readonly<Record<string, string>>;
}

/** Options of {@link parseMrz}. */
export interface ParseMrzOptions {
  /** Apply check-digit-guided confusable correction (default true). */
  readonly correct?: boolean;
  /**
   * Year used to choose the century of a two-digit birth year (default: the current UTC year):
   * a birth year above this year's last two digits is read as 19YY, else 20YY. Expiry years
   * are read as 20YY below 70 and 19YY from 70 (no MRTD issued before 1970 is still valid).
   */
  readonly referenceYear?: number;
}

const EMPTY_FIELDS: MrzFields = {
  documentCode: null, issuingState: null, documentNumber: null, nationality: null, lastName: null, firstName: null, sex: null,
  dateOfBirth: null, dateOfBirthIso: null, dateOfExpiry: null, dateOfExpiryIso: null, personalNumber: null, optional1: null, optional2: null,
};

/**
 * Normalises one OCR-read MRZ row: upper case, blanks removed, and the look-alike glyphs OCR
 * engines emit mapped to MRZ characters: `«‹＜〈([{` -> `<`, `×` (U+00D7, PaddleOCR PP-OCRv4's
 * reading of the OCR-B `X`) -> `X`. Other characters are kept (they fail the MRZ alphabet later).
 */
export function normalizeMrzText(text: string): string {
  return String(text).toUpperCase().replace(/\s/g, '').replace(/[«‹＜〈([{]/g, '<').replace(/[×✕╳]/g, 'X');
}

/** Splits free text or an array into rows normalised by {@link normalizeMrzText}, dropping empty rows. */
export function normalizeMrzLines(input: string | readonly string[]): string[] {
  const raw = typeof input === 'string' ? input.split(/\r?\n/) : [...input];
  return raw.map(normalizeMrzText).filter((l) => l.length > 0);
}

/**
 * Parses and validates an MRZ.
 * @param input the lines (array) or a text with one line per row.
 * @returns a result; unknown shapes give `format: null` and an `unknown_format` problem.
 *   Never throws for any string input.
 */
export function parseMrz(input: string | readonly string[], options: ParseMrzOptions = {}): MrzParseResult {
  const normalized = normalizeMrzLines(input).slice(0, 4);
  const layout = detectLayout(normalized);
  if (!layout) {
    return {
      format: null, ine: false, lines: normalized, valid: false, fields: EMPTY_FIELDS, checks: [],
      checkSummary: { documentNumberCheck: null, dateOfBirthCheck: null, dateOfExpiryCheck: null, compositeCheck: null },
      problems: [{ code: 'unknown_format', message: `lines of lengths ${normalized.map((l) => l.length).join(', ') || 'none'} match no MRZ layout (TD1 3x30, TD2 2x36, TD3 2x44)` }],
      corrections: [], raw: {},
    };
  }
  const { lines, corrections } = options.correct === false ? { lines: normalized, corrections: [] } : correctMrz(normalized, layout);
  return interpret(lines, layout, corrections, options.referenceYear ?? new Date().getUTCFullYear());
}

function interpret(lines: string[], layout: LayoutDef, corrections: MrzCorrection[], referenceYear: number): MrzParseResult {
  const problems: MrzProblem[] = [];
  lines.forEach((l, i) => {
    if (!MRZ_ALPHABET.test(l)) problems.push({ code: 'invalid_characters', message: `line ${i + 1} holds characters outside 0-9, A-Z and <` });
  });
  const raw: Record<string, string> = {};
  for (const d of layout.fields) raw[d.name] = (lines[d.line] ?? '').slice(d.start, d.end);

  const checks: MrzCheck[] = layout.checks.map((c) => {
    const loc = c.locate(lines);
    const data = loc.ranges.map(([l, s, e]) => lines[l]!.slice(s, e)).join('');
    const actual = lines[loc.digitAt[0]]!.charAt(loc.digitAt[1]);
    const expected = MRZ_ALPHABET.test(data) ? computeCheckDigit(data) : null;
    const valid = passes(lines, loc);
    if (!valid) problems.push({ code: 'check_digit_failed', message: `${c.name} check digit is ${JSON.stringify(actual)}, computed ${expected ?? 'n/a'}`, field: c.name });
    return { name: c.name, valid, actual, expected };
  });
  const byName = (n: CheckName) => checks.find((c) => c.name === n)?.valid ?? null;

  const text = (v: string | undefined) => (v === undefined ? null : v.replace(/<+$/, '').replace(/</g, ' ').trim());
  let documentNumber: string | null = null;
  if (raw.documentNumber !== undefined) {
    const docCheck = layout.checks.find((c) => c.name === 'documentNumber')?.locate(lines);
    documentNumber = docCheck ? docCheck.ranges.map(([l, s, e]) => lines[l]!.slice(s, e)).join('').replace(/</g, '') : raw.documentNumber.replace(/</g, '');
  } else if (layout.format === 'FRENCH_NATIONAL_ID') {
    documentNumber = lines[1]!.slice(0, 12).replace(/</g, '');
  } else if (layout.format === 'SWISS_DRIVING_LICENSE') {
    documentNumber = lines[0]!.slice(0, 6);
  }

  let lastName: string | null = null;
  let firstName: string | null = null;
  if (raw.name !== undefined) {
    const [primary = '', ...rest] = raw.name.split('<<');
    lastName = text(primary) ?? '';
    firstName = text(rest.join('<<').replace(/^<+/, '')) ?? '';
  } else if (raw.lastName !== undefined) {
    lastName = text(raw.lastName);
    firstName = text(raw.firstName);
  }

  const birth = readDate(raw.dateOfBirth, 'birth', referenceYear);
  const expiry = readDate(raw.dateOfExpiry, 'expiry', referenceYear);
  if (birth.problem) problems.push({ code: 'invalid_date', message: `dateOfBirth ${JSON.stringify(raw.dateOfBirth)} is not a valid YYMMDD date`, field: 'dateOfBirth' });
  if (expiry.problem) problems.push({ code: 'invalid_date', message: `dateOfExpiry ${JSON.stringify(raw.dateOfExpiry)} is not a valid YYMMDD date`, field: 'dateOfExpiry' });
  const sex = raw.sex ?? null;
  const allowedSex = layout.ine ? /^[MFXH<]$/ : /^[MFX<]$/;
  if (sex !== null && !allowedSex.test(sex)) problems.push({ code: 'invalid_sex', message: `sex ${JSON.stringify(sex)} is not one of M, F, X, <`, field: 'sex' });

  const fields: MrzFields = {
    documentCode: text(raw.documentCode),
    issuingState: text(raw.issuingState),
    documentNumber,
    nationality: text(raw.nationality),
    lastName,
    firstName,
    sex,
    dateOfBirth: raw.dateOfBirth ?? null,
    dateOfBirthIso: birth.iso,
    dateOfExpiry: raw.dateOfExpiry ?? null,
    dateOfExpiryIso: expiry.iso,
    personalNumber: raw.personalNumber === undefined ? null : raw.personalNumber.replace(/</g, ''),
    optional1: raw.optional1 ?? null,
    optional2: raw.optional2 ?? null,
  };
  return {
    format: layout.format,
    ine: layout.ine,
    lines,
    valid: problems.length === 0,
    fields,
    checks,
    checkSummary: { documentNumberCheck: byName('documentNumber'), dateOfBirthCheck: byName('dateOfBirth'), dateOfExpiryCheck: byName('dateOfExpiry'), compositeCheck: byName('composite') },
    problems,
    corrections,
    raw,
  };
}

/**
 * Reads a `YYMMDD` MRZ date. All-filler dates (unknown, Doc 9303 Part 3, 4.6) read as `null`
 * without a problem.
 */
export function readDate(v: string | undefined, kind: 'birth' | 'expiry', referenceYear: number): { iso: string | null; problem: boolean } {
  if (v === undefined || /^<{6}$/.test(v)) return { iso: null, problem: false };
  if (!/^\d{6}$/.test(v)) return { iso: null, problem: true };
  const yy = Number(v.slice(0, 2));
  const mm = Number(v.slice(2, 4));
  const dd = Number(v.slice(4, 6));
  const year = kind === 'birth' ? (yy > referenceYear % 100 ? 1900 + yy : 2000 + yy) : yy < 70 ? 2000 + yy : 1900 + yy;
  const days = [31, (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (mm < 1 || mm > 12 || dd < 1 || dd > days[mm - 1]!) return { iso: null, problem: true };
  return { iso: `${year}-${v.slice(2, 4)}-${v.slice(4, 6)}`, problem: false };
}
