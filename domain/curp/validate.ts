/**
 * CURP validation: structure, check digit, birth date, state code, sex and inconvenient words.
 *
 * Layout of the 18 characters (Instructivo Normativo para la Asignación de la CURP, DOF 18-10-2021):
 *
 * | pos   | content                                                                  |
 * |-------|--------------------------------------------------------------------------|
 * | 1     | initial of the first surname (X when it is Ñ or a special character)     |
 * | 2     | first internal vowel of the first surname (X when none or to avoid an inconvenient word) |
 * | 3     | initial of the second surname (X when there is none)                     |
 * | 4     | initial of the given name used (MARIA/JOSE skipped in compound names)     |
 * | 5-10  | birth date YYMMDD                                                        |
 * | 11    | sex: H (hombre) or M (mujer)                                             |
 * | 12-13 | state of birth (Anexo 1), NE when born abroad                            |
 * | 14-16 | first internal consonants of first surname, second surname, given name   |
 * | 17    | homonym differentiator assigned by RENAPO: digit for births up to 1999, letter from 2000 |
 * | 18    | check digit (see `check-digit.ts`)                                        |
 */
import { CHAR_VALUE } from './check-digit.ts';
import { INCONVENIENT_WORDS, stateByCurpCode, type CurpState } from './catalog.ts';

/** Closed list of validation error codes, each with the rule it enforces. */
export type CurpErrorCode =
  /** Not 18 characters (after trimming and upper-casing). */
  | 'invalid_length'
  /** A character outside `A-Z0-9` (including `Ñ`, always written `X` in a CURP). */
  | 'invalid_characters'
  /** Positions 1-4 not letters, or position 2 neither a vowel nor X. */
  | 'invalid_name_initials'
  /** Positions 1-4 spell a word of Anexo 2 (RENAPO would have replaced position 2 by X). */
  | 'inconvenient_word'
  /** Positions 5-10 not six digits forming a real calendar date (century from position 17). */
  | 'invalid_birth_date'
  /** The birth date is after the reference day. */
  | 'birth_date_in_future'
  /** Position 11 not H or M. */
  | 'invalid_sex'
  /** Positions 12-13 not a state code of Anexo 1 (nor NE). */
  | 'invalid_state'
  /** Positions 14-16 not consonants (X included). */
  | 'invalid_internal_consonants'
  /** Position 17 not a digit or letter. */
  | 'invalid_homonym_character'
  /** Position 18 not the check digit computed from positions 1-17. */
  | 'invalid_check_digit';

/** One broken rule of a CURP. */
export interface CurpValidationError {
  code: CurpErrorCode;
  /** 1-based positions of the offending characters. */
  positions: number[];
  message: string;
}

/** Data a CURP carries (filled as far as the CURP allows, null where its part is malformed). */
export interface CurpComponents {
  /** Positions 1-4. */
  name_initials: string;
  /** ISO date YYYY-MM-DD, century from the homonym character. */
  birth_date: string | null;
  /** `H` (hombre) or `M` (mujer). */
  sex: 'H' | 'M' | null;
  /** State of birth name, e.g. `JALISCO`, `NACIDO EN EL EXTRANJERO`. */
  state: string | null;
  /** Two-letter CURP state code (positions 12-13). */
  state_code: string;
  /** Numeric API key `01`-`32`, or `NE`. */
  clave_entidad: string | null;
  /** True for state code NE. */
  foreign_born: boolean;
  /** Positions 14-16. */
  internal_consonants: string;
  /** Position 17. */
  homonym_character: string;
  /** Position 18 as written. */
  check_digit: string;
  /** Check digit computed from positions 1-17 (null when they contain invalid characters). */
  expected_check_digit: string | null;
}

/** Result of {@link validateCurp}. */
export interface CurpValidation {
  /** The CURP as validated (trimmed, upper case). */
  curp: string;
  valid: boolean;
  errors: CurpValidationError[];
  /** Null only when the length is wrong. */
  components: CurpComponents | null;
}

/** Options of {@link validateCurp}. */
export interface ValidateCurpOptions {
  /**
   * Reference day for the "not in the future" rule, as `YYYY-MM-DD`, a Date (its UTC day) or a
   * `YYYYMMDD` integer (see {@link dayNumber}). Defaults to the current UTC day.
   */
  today?: string | Date | number;
}

// Character classes by ASCII code: 1 letter, 2 digit, 4 vowel-or-X (pos 2), 8 consonant incl. X (14-16).
const CLS = (() => {
  const t = new Uint8Array(128);
  for (let c = 65; c <= 90; c++) t[c] = 1;
  for (let c = 48; c <= 57; c++) t[c] = 2;
  for (const ch of 'AEIOUX') t[ch.charCodeAt(0)]! |= 4;
  for (const ch of 'BCDFGHJKLMNPQRSTVWXYZ') t[ch.charCodeAt(0)]! |= 8;
  return t;
})();

// State codes as a 26x26 bitmap of the two letters.
const STATE_OK = (() => {
  const t = new Uint8Array(26 * 26);
  for (const code of 'AS BC BS CC CL CM CS CH DF DG GT GR HG JC MC MN MS NT NL OC PL QT QR SP SL SR TC TS TL VZ YN ZS NE'.split(' ')) {
    t[(code.charCodeAt(0) - 65) * 26 + code.charCodeAt(1) - 65] = 1;
  }
  return t;
})();

// Inconvenient words as a set of 4-letter keys packed into integers (base 32).
const INCONVENIENT_KEYS = new Set([...INCONVENIENT_WORDS].map((w) => pack4(w, 0)));

function pack4(s: string, at: number): number {
  return (
    ((s.charCodeAt(at) - 64) << 15) |
    ((s.charCodeAt(at + 1) - 64) << 10) |
    ((s.charCodeAt(at + 2) - 64) << 5) |
    (s.charCodeAt(at + 3) - 64)
  );
}

const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Days in `month` (1-12) of `year` in the proleptic Gregorian calendar; 0 for a bad month. */
export function daysInMonth(year: number, month: number): number {
  if (month < 1 || month > 12) return 0;
  return month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month]!;
}

/** `YYYYMMDD` integer of a reference day (UTC day of a Date, or a `YYYY-MM-DD` string). */
export function dayNumber(today: string | Date | number | undefined): number {
  if (typeof today === 'number') return today;
  if (today === undefined) today = new Date();
  if (typeof today === 'string') {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(today);
    if (!m) throw new RangeError(`reference day must be YYYY-MM-DD, got ${JSON.stringify(today)}`);
    return Number(m[1]) * 10000 + Number(m[2]) * 100 + Number(m[3]);
  }
  return today.getUTCFullYear() * 10000 + (today.getUTCMonth() + 1) * 100 + today.getUTCDate();
}

function d(s: string, i: number): number {
  return s.charCodeAt(i) - 48;
}

/**
 * Fast boolean validation, no allocation: true when `curp` (exactly 18 upper-case characters, no
 * trimming) passes every rule of {@link validateCurp}. `todayYmd` is the reference day as a `YYYYMMDD`
 * integer (see {@link dayNumber}); pass it once for bulk checks.
 */
export function isValidCurp(curp: string, todayYmd: number = dayNumber(undefined)): boolean {
  if (curp.length !== 18) return false;
  let sum = 0;
  for (let i = 0; i < 17; i++) {
    const c = curp.charCodeAt(i);
    if (c >= 128) return false;
    const v = CHAR_VALUE[c]!;
    if (v < 0) return false;
    sum += v * (18 - i);
  }
  const c0 = curp.charCodeAt(0), c1 = curp.charCodeAt(1), c2 = curp.charCodeAt(2), c3 = curp.charCodeAt(3);
  if (!(CLS[c0]! & 1) || !(CLS[c1]! & 4) || !(CLS[c2]! & 1) || !(CLS[c3]! & 1)) return false;
  for (let i = 4; i < 10; i++) if (CLS[curp.charCodeAt(i)] !== 2) return false; // digits only
  const sex = curp.charCodeAt(10);
  if (sex !== 72 /* H */ && sex !== 77 /* M */) return false;
  const s1 = curp.charCodeAt(11) - 65, s2 = curp.charCodeAt(12) - 65;
  if (s1 < 0 || s1 > 25 || s2 < 0 || s2 > 25 || STATE_OK[s1 * 26 + s2] !== 1) return false;
  if (!(CLS[curp.charCodeAt(13)]! & 8) || !(CLS[curp.charCodeAt(14)]! & 8) || !(CLS[curp.charCodeAt(15)]! & 8)) return false;
  const h = curp.charCodeAt(16);
  const last = curp.charCodeAt(17) - 48;
  if (last < 0 || last > 9 || last !== (10 - (sum % 10)) % 10) return false;
  const year = (h <= 57 ? 1900 : 2000) + d(curp, 4) * 10 + d(curp, 5);
  const month = d(curp, 6) * 10 + d(curp, 7);
  const day = d(curp, 8) * 10 + d(curp, 9);
  if (day < 1 || day > daysInMonth(year, month)) return false;
  if (year * 10000 + month * 100 + day > todayYmd) return false;
  if (INCONVENIENT_KEYS.has(pack4(curp, 0))) return false;
  return true;
}

function validComponents(curp: string): CurpComponents {
  const state = stateByCurpCode(curp.slice(11, 13))!;
  const h = curp.charCodeAt(16);
  const check = curp[17]!;
  return {
    name_initials: curp.slice(0, 4),
    birth_date: `${h <= 57 ? '19' : '20'}${curp.slice(4, 6)}-${curp.slice(6, 8)}-${curp.slice(8, 10)}`,
    sex: curp[10] as 'H' | 'M',
    state: state.name,
    state_code: state.code,
    clave_entidad: state.claveEntidad,
    foreign_born: state.code === 'NE',
    internal_consonants: curp.slice(13, 16),
    homonym_character: curp[16]!,
    check_digit: check,
    expected_check_digit: check,
  };
}

/**
 * Validates a CURP and decodes its components, listing every rule it breaks.
 * Input is trimmed and upper-cased first; a non-string input is reported as `invalid_length`.
 * Never throws for any input (a malformed `options.today` raises RangeError).
 */
export function validateCurp(input: unknown, options: ValidateCurpOptions = {}): CurpValidation {
  const curp = typeof input === 'string' ? input.trim().toUpperCase() : '';
  const errors: CurpValidationError[] = [];
  if (curp.length !== 18) {
    errors.push({
      code: 'invalid_length',
      positions: [],
      message: `a CURP has 18 characters, got ${typeof input === 'string' ? curp.length : 'a non-string value'}`,
    });
    return { curp: curp.slice(0, 64), valid: false, errors, components: null };
  }
  const todayYmd = dayNumber(options.today);
  if (isValidCurp(curp, todayYmd)) return { curp, valid: true, errors: [], components: validComponents(curp) };

  // Only rule-breaking parts allocate: most invalid CURPs break one rule.
  let bad: number[] | null = null;
  let badBefore18 = false;
  for (let i = 0; i < 18; i++) {
    const c = curp.charCodeAt(i);
    if (c >= 128 || CHAR_VALUE[c]! < 0) {
      (bad ??= []).push(i + 1);
      if (i < 17) badBefore18 = true;
    }
  }
  if (bad) errors.push({ code: 'invalid_characters', positions: bad, message: 'a CURP only holds the characters A-Z and 0-9' });

  const cls = (i: number): number => {
    const c = curp.charCodeAt(i);
    return c < 128 ? CLS[c]! : 0;
  };

  // Positions 1-4.
  let initialsBad: number[] | null = null;
  if (!(cls(0) & 1)) (initialsBad ??= []).push(1);
  if (!(cls(1) & 4)) (initialsBad ??= []).push(2);
  if (!(cls(2) & 1)) (initialsBad ??= []).push(3);
  if (!(cls(3) & 1)) (initialsBad ??= []).push(4);
  if (initialsBad) {
    errors.push({
      code: 'invalid_name_initials',
      positions: initialsBad,
      message: 'positions 1-4 must be letters, position 2 a vowel or X (first internal vowel of the first surname)',
    });
  } else if (INCONVENIENT_KEYS.has(pack4(curp, 0))) {
    errors.push({
      code: 'inconvenient_word',
      positions: [1, 2, 3, 4],
      message: `${curp.slice(0, 4)} is on RENAPO's inconvenient-word list: its second letter is always written X`,
    });
  }

  // Positions 17 (century) and 5-10 (date).
  const homonym = curp[16]!;
  const homonymCls = cls(16);
  const homonymIsLetter = (homonymCls & 1) === 1;
  if (!homonymIsLetter && homonymCls !== 2) {
    errors.push({ code: 'invalid_homonym_character', positions: [17], message: 'position 17 must be a digit (born up to 1999) or a letter (born from 2000)' });
  }
  let birthDate: string | null = null;
  let dateDigits = true;
  for (let i = 4; i < 10; i++) if (cls(i) !== 2) dateDigits = false;
  if (!dateDigits) {
    errors.push({ code: 'invalid_birth_date', positions: [5, 6, 7, 8, 9, 10], message: 'positions 5-10 must be the birth date as YYMMDD digits' });
  } else {
    const year = (homonymIsLetter ? 2000 : 1900) + d(curp, 4) * 10 + d(curp, 5);
    const month = d(curp, 6) * 10 + d(curp, 7);
    const day = d(curp, 8) * 10 + d(curp, 9);
    if (day < 1 || day > daysInMonth(year, month)) {
      errors.push({ code: 'invalid_birth_date', positions: [5, 6, 7, 8, 9, 10], message: `${curp.slice(4, 10)} is not a calendar date (YYMMDD)` });
    } else {
      birthDate = `${year}-${curp.slice(6, 8)}-${curp.slice(8, 10)}`;
      if (year * 10000 + month * 100 + day > todayYmd) {
        errors.push({ code: 'birth_date_in_future', positions: [5, 6, 7, 8, 9, 10], message: `birth date ${birthDate} is in the future` });
      }
    }
  }

  // Position 11.
  const sexChar = curp[10]!;
  const sex = sexChar === 'H' || sexChar === 'M' ? sexChar : null;
  if (!sex) errors.push({ code: 'invalid_sex', positions: [11], message: 'position 11 must be H (hombre) or M (mujer)' });

  // Positions 12-13.
  const stateCode = curp.slice(11, 13);
  const state: CurpState | undefined = stateByCurpCode(stateCode);
  if (!state) errors.push({ code: 'invalid_state', positions: [12, 13], message: `${stateCode} is not a state code (Anexo 1) nor NE (born abroad)` });

  // Positions 14-16.
  let consBad: number[] | null = null;
  for (let i = 13; i < 16; i++) if (!(cls(i) & 8)) (consBad ??= []).push(i + 1);
  if (consBad) errors.push({ code: 'invalid_internal_consonants', positions: consBad, message: 'positions 14-16 must be consonants (X when none)' });

  // Position 18.
  let expected: string | null = null;
  if (!badBefore18) {
    let sum = 0;
    for (let i = 0; i < 17; i++) sum += CHAR_VALUE[curp.charCodeAt(i)]! * (18 - i);
    expected = String((10 - (sum % 10)) % 10);
  }
  if (curp[17] !== expected) {
    errors.push({
      code: 'invalid_check_digit',
      positions: [18],
      message: expected === null ? 'check digit cannot be computed from invalid characters' : `check digit is ${curp[17]}, expected ${expected}`,
    });
  }

  return {
    curp,
    valid: errors.length === 0,
    errors,
    components: {
      name_initials: curp.slice(0, 4),
      birth_date: birthDate,
      sex,
      state: state?.name ?? null,
      state_code: stateCode,
      clave_entidad: state?.claveEntidad ?? null,
      foreign_born: stateCode === 'NE',
      internal_consonants: curp.slice(13, 16),
      homonym_character: homonym,
      check_digit: curp[17]!,
      expected_check_digit: expected,
    },
  };
}
