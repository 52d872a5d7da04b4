/**
 * Layouts of the machine readable zones this module reads.
 *
 * Sources (positions are 0-based here, 1-based in the standard):
 * - TD1 (3 x 30): ICAO Doc 9303 Part 5, 4.2.2 (data structure of the MRZ of a TD1 MROTD).
 * - TD2 (2 x 36): ICAO Doc 9303 Part 6, 4.2.2.
 * - TD3 (2 x 44): ICAO Doc 9303 Part 4, 4.2.2 (machine readable passport).
 * - French national identity card (2 x 36, issued 1988-2021): national layout, not ICAO; the
 *   positions follow the published card format (also used by the cheminfo/mrz test vectors).
 * - Swiss driving licence (9 + 30 + 30): national layout without check digits (same source).
 * - Mexican INE voter credential (`IDMEX`, TD1): see `ine.ts` for what its optional data holds.
 */

/** Formats recognised by {@link detectLayout}. `TD1` also covers the INE credential. */
export type MrzFormat = 'TD1' | 'TD2' | 'TD3' | 'FRENCH_NATIONAL_ID' | 'SWISS_DRIVING_LICENSE';

/**
 * What a field may contain, which drives confusable-character correction:
 * - `alpha`: letters and filler (codes, nationality) - digits read there become letters;
 * - `name`: letters and filler (names) - same correction as `alpha`;
 * - `numeric`: digits (and filler) - confusable letters become digits;
 * - `date`: YYMMDD digits; `digit`: a check digit (digit, or `<` where allowed);
 * - `sex`: one of `M`, `F`, `X`, `<` (and `H` on INE);
 * - `alnum`: letters and digits - corrected only when a check digit singles out one reading.
 */
export type FieldKind = 'alpha' | 'name' | 'numeric' | 'date' | 'digit' | 'sex' | 'alnum';

/** One fixed-position field: `line` index, `[start, end)` column range. */
export interface FieldDef {
  readonly name: string;
  readonly line: number;
  readonly start: number;
  readonly end: number;
  readonly kind: FieldKind;
}

/** A column range `[line, start, end)`. */
export type Range = readonly [line: number, start: number, end: number];

/** Names of the check digits reported by the parser. */
export type CheckName = 'documentNumber' | 'dateOfBirth' | 'dateOfExpiry' | 'personalNumber' | 'composite';

/** Where a check digit's data and digit are, for given lines (some layouts move them). */
export interface LocatedCheck {
  readonly ranges: readonly Range[];
  readonly digitAt: readonly [line: number, col: number];
  readonly allowFillerWhenEmpty: boolean;
  /** Other data ranges also accepted for the same digit (national variants), if any. */
  readonly alternatives?: ReadonlyArray<readonly Range[]>;
}

/** A check digit of a layout. */
export interface CheckDef {
  readonly name: CheckName;
  readonly locate: (lines: readonly string[]) => LocatedCheck;
}

/** A complete layout. */
export interface LayoutDef {
  readonly format: MrzFormat;
  /** `true` for the INE credential overlay of TD1 (tighter field kinds). */
  readonly ine: boolean;
  readonly lineLengths: readonly number[];
  readonly fields: readonly FieldDef[];
  readonly checks: readonly CheckDef[];
}

const f = (name: string, line: number, start: number, end: number, kind: FieldKind): FieldDef => ({ name, line, start, end, kind });
const fixed = (ranges: Range[], line: number, col: number, allowFillerWhenEmpty = false) => (): LocatedCheck => ({ ranges, digitAt: [line, col], allowFillerWhenEmpty });

/**
 * Document number check of TD1 (Part 5, 4.2.2 note j) and TD2 (Part 6, 4.2.2 note j): when the
 * number is longer than 9 characters, the check-digit position holds `<` and the rest of the
 * number, followed by its check digit, opens the optional data field.
 */
function longDocumentNumberCheck(line: number, start: number, optStart: number, optEnd: number) {
  return (lines: readonly string[]): LocatedCheck => {
    const l = lines[line] ?? '';
    if (l.charAt(start + 9) === '<' && /^[0-9A-Z]/.test(l.charAt(optStart))) {
      const opt = l.slice(optStart, optEnd);
      const len = opt.indexOf('<') < 0 ? opt.length : opt.indexOf('<');
      if (len >= 2) {
        // Belgian cards compute this digit over the number including the `<` at the ICAO
        // check-digit position (cheminfo/mrz vector BEL-BO-03003); both readings are accepted.
        return {
          ranges: [[line, start, start + 9], [line, optStart, optStart + len - 1]],
          digitAt: [line, optStart + len - 1],
          allowFillerWhenEmpty: false,
          alternatives: [[[line, start, optStart + len - 1]]],
        };
      }
    }
    return { ranges: [[line, start, start + 9]], digitAt: [line, start + 9], allowFillerWhenEmpty: false };
  };
}

/** TD1, Doc 9303 Part 5, 4.2.2. */
const TD1: LayoutDef = {
  format: 'TD1',
  ine: false,
  lineLengths: [30, 30, 30],
  fields: [
    f('documentCode', 0, 0, 2, 'alpha'),
    f('issuingState', 0, 2, 5, 'alpha'),
    f('documentNumber', 0, 5, 14, 'alnum'),
    f('documentNumberCheckDigit', 0, 14, 15, 'alnum'), // `<` when the number overflows
    f('optional1', 0, 15, 30, 'alnum'),
    f('dateOfBirth', 1, 0, 6, 'date'),
    f('dateOfBirthCheckDigit', 1, 6, 7, 'digit'),
    f('sex', 1, 7, 8, 'sex'),
    f('dateOfExpiry', 1, 8, 14, 'date'),
    f('dateOfExpiryCheckDigit', 1, 14, 15, 'digit'),
    f('nationality', 1, 15, 18, 'alpha'),
    f('optional2', 1, 18, 29, 'alnum'),
    f('compositeCheckDigit', 1, 29, 30, 'digit'),
    f('name', 2, 0, 30, 'name'),
  ],
  checks: [
    { name: 'documentNumber', locate: longDocumentNumberCheck(0, 5, 15, 30) },
    { name: 'dateOfBirth', locate: fixed([[1, 0, 6]], 1, 6) },
    { name: 'dateOfExpiry', locate: fixed([[1, 8, 14]], 1, 14) },
    { name: 'composite', locate: fixed([[0, 5, 30], [1, 0, 7], [1, 8, 15], [1, 18, 29]], 1, 29) },
  ],
};

/**
 * INE voter credential (`IDMEX...`) overlay of TD1: the CIC (document number) and the 13 digits
 * after `<<` in line 1 are digits only, which lets digit-field correction apply there.
 */
const TD1_INE: LayoutDef = {
  ...TD1,
  ine: true,
  fields: TD1.fields.flatMap((d) => {
    if (d.name === 'documentNumber') return [f('documentNumber', 0, 5, 14, 'numeric')];
    if (d.name === 'documentNumberCheckDigit') return [f('documentNumberCheckDigit', 0, 14, 15, 'digit')];
    if (d.name === 'optional1') return [f('optional1Filler', 0, 15, 17, 'alpha'), f('optional1', 0, 17, 30, 'numeric')];
    return [d];
  }),
  checks: [{ name: 'documentNumber', locate: fixed([[0, 5, 14]], 0, 14) }, ...TD1.checks.slice(1)],
};

/** TD2, Doc 9303 Part 6, 4.2.2. */
const TD2: LayoutDef = {
  format: 'TD2',
  ine: false,
  lineLengths: [36, 36],
  fields: [
    f('documentCode', 0, 0, 2, 'alpha'),
    f('issuingState', 0, 2, 5, 'alpha'),
    f('name', 0, 5, 36, 'name'),
    f('documentNumber', 1, 0, 9, 'alnum'),
    f('documentNumberCheckDigit', 1, 9, 10, 'alnum'),
    f('nationality', 1, 10, 13, 'alpha'),
    f('dateOfBirth', 1, 13, 19, 'date'),
    f('dateOfBirthCheckDigit', 1, 19, 20, 'digit'),
    f('sex', 1, 20, 21, 'sex'),
    f('dateOfExpiry', 1, 21, 27, 'date'),
    f('dateOfExpiryCheckDigit', 1, 27, 28, 'digit'),
    f('optional1', 1, 28, 35, 'alnum'),
    f('compositeCheckDigit', 1, 35, 36, 'digit'),
  ],
  checks: [
    { name: 'documentNumber', locate: longDocumentNumberCheck(1, 0, 28, 35) },
    { name: 'dateOfBirth', locate: fixed([[1, 13, 19]], 1, 19) },
    { name: 'dateOfExpiry', locate: fixed([[1, 21, 27]], 1, 27) },
    { name: 'composite', locate: fixed([[1, 0, 10], [1, 13, 20], [1, 21, 35]], 1, 35) },
  ],
};

/** TD3 (passport), Doc 9303 Part 4, 4.2.2. */
const TD3: LayoutDef = {
  format: 'TD3',
  ine: false,
  lineLengths: [44, 44],
  fields: [
    f('documentCode', 0, 0, 2, 'alpha'),
    f('issuingState', 0, 2, 5, 'alpha'),
    f('name', 0, 5, 44, 'name'),
    f('documentNumber', 1, 0, 9, 'alnum'),
    f('documentNumberCheckDigit', 1, 9, 10, 'digit'),
    f('nationality', 1, 10, 13, 'alpha'),
    f('dateOfBirth', 1, 13, 19, 'date'),
    f('dateOfBirthCheckDigit', 1, 19, 20, 'digit'),
    f('sex', 1, 20, 21, 'sex'),
    f('dateOfExpiry', 1, 21, 27, 'date'),
    f('dateOfExpiryCheckDigit', 1, 27, 28, 'digit'),
    f('personalNumber', 1, 28, 42, 'alnum'),
    f('personalNumberCheckDigit', 1, 42, 43, 'digit'),
    f('compositeCheckDigit', 1, 43, 44, 'digit'),
  ],
  checks: [
    { name: 'documentNumber', locate: fixed([[1, 0, 9]], 1, 9) },
    { name: 'dateOfBirth', locate: fixed([[1, 13, 19]], 1, 19) },
    { name: 'dateOfExpiry', locate: fixed([[1, 21, 27]], 1, 27) },
    { name: 'personalNumber', locate: fixed([[1, 28, 42]], 1, 42, true) },
    { name: 'composite', locate: fixed([[1, 0, 10], [1, 13, 20], [1, 21, 43]], 1, 43) },
  ],
};

/** French national identity card (2 x 36, 1988-2021 model). */
const FRENCH_NATIONAL_ID: LayoutDef = {
  format: 'FRENCH_NATIONAL_ID',
  ine: false,
  lineLengths: [36, 36],
  fields: [
    f('documentCode', 0, 0, 2, 'alpha'),
    f('issuingState', 0, 2, 5, 'alpha'),
    f('lastName', 0, 5, 30, 'name'),
    f('administrativeCode', 0, 30, 36, 'alnum'),
    f('issueDate', 1, 0, 4, 'numeric'), // YYMM of issue, first part of the document number
    f('issuingDepartment', 1, 4, 7, 'alnum'),
    f('documentSequence', 1, 7, 12, 'numeric'),
    f('documentNumberCheckDigit', 1, 12, 13, 'digit'),
    f('firstName', 1, 13, 27, 'name'),
    f('dateOfBirth', 1, 27, 33, 'date'),
    f('dateOfBirthCheckDigit', 1, 33, 34, 'digit'),
    f('sex', 1, 34, 35, 'sex'),
    f('compositeCheckDigit', 1, 35, 36, 'digit'),
  ],
  checks: [
    { name: 'documentNumber', locate: fixed([[1, 0, 12]], 1, 12) },
    { name: 'dateOfBirth', locate: fixed([[1, 27, 33]], 1, 33) },
    { name: 'composite', locate: fixed([[0, 0, 36], [1, 0, 35]], 1, 35) },
  ],
};

/** Swiss driving licence (credit-card format, 2003 model): no check digits. */
const SWISS_DRIVING_LICENSE: LayoutDef = {
  format: 'SWISS_DRIVING_LICENSE',
  ine: false,
  lineLengths: [9, 30, 30],
  fields: [
    f('documentNumberPrefix', 0, 0, 3, 'alpha'),
    f('documentNumberSuffix', 0, 3, 6, 'numeric'),
    f('languageCode', 0, 6, 7, 'alpha'),
    f('filler0', 0, 7, 9, 'alpha'),
    f('documentCode', 1, 0, 2, 'alpha'),
    f('issuingState', 1, 2, 5, 'alpha'),
    f('pinCode', 1, 5, 14, 'numeric'),
    f('versionNumber', 1, 14, 17, 'numeric'),
    f('filler1', 1, 17, 19, 'alpha'),
    f('dateOfBirth', 1, 19, 25, 'date'),
    f('filler2', 1, 25, 30, 'alpha'),
    f('name', 2, 0, 30, 'name'),
  ],
  checks: [],
};

/** All layouts, for documentation and tests. */
export const LAYOUTS = { TD1, TD1_INE, TD2, TD3, FRENCH_NATIONAL_ID, SWISS_DRIVING_LICENSE } as const;

/**
 * Picks the layout from the number and lengths of the lines (and, for 2 x 36, the `IDFRA`
 * prefix of the French card; for TD1, the `IDMEX` prefix of the INE credential).
 * @returns the layout, or `null` when the shape matches none.
 */
export function detectLayout(lines: readonly string[]): LayoutDef | null {
  const lens = lines.map((l) => l.length).join(',');
  if (lens === '30,30,30') return /^[I1][D0]MEX/.test(lines[0] ?? '') ? TD1_INE : TD1;
  if (lens === '36,36') return /^[I1][D0]FRA/.test(lines[0] ?? '') ? FRENCH_NATIONAL_ID : TD2;
  if (lens === '44,44') return TD3;
  if (lens === '9,30,30') return SWISS_DRIVING_LICENSE;
  return null;
}
