/**
 * CURP generation from personal data, following RENAPO's assignment rules.
 *
 * Source: "Instructivo Normativo para la Asignación de la Clave Única de Registro de Población",
 * Secretaría de Gobernación, DOF 18-10-2021 ("Instructivo"), sections on the integration of the key:
 * - pos 1-2: initial and first internal vowel of the first surname;
 * - pos 3: initial of the second surname, X when there is none;
 * - pos 4: initial of the given name; when the person has several given names and the first is MARIA
 *   or JOSE (or MA., MA, M., J., J) the second one is used;
 * - compound names: prepositions, conjunctions and contractions (DA, DAS, DE, DEL, DER, DI, DIE, DD,
 *   EL, LA, LAS, LE, LES, LOS, MAC, MC, VAN, VON, Y) are skipped;
 * - Ñ is written X; accents and diaereses are dropped; a special character (/, -, ., ') in a position
 *   that takes a letter gives X;
 * - pos 5-10 birth date YYMMDD, pos 11 sex H/M, pos 12-13 state (Anexo 1, NE for births abroad);
 * - pos 14-16: first internal consonant of first surname, second surname (X if none), given name;
 * - if pos 1-4 spell a word of Anexo 2, pos 2 becomes X;
 * - pos 17: homonym differentiator assigned by RENAPO, a digit 0-9 for births up to 1999, a letter
 *   A-Z from 2000; pos 18: check digit (see `check-digit.ts`).
 */
import { curpCheckDigit } from './check-digit.ts';
import { INCONVENIENT_WORDS, NAME_PARTICLES, SKIPPED_GIVEN_NAMES, stateByClaveEntidad, stateByCurpCode } from './catalog.ts';
import { daysInMonth } from './validate.ts';

/** Personal data a CURP is computed from (field names as in `POST /v1/mex/renapo/get-curp`). */
export interface CurpPersonData {
  /** Given name(s), e.g. `María de los Ángeles`. */
  nombres: string;
  /** First (paternal) surname. */
  primerApellido: string;
  /** Second (maternal) surname; empty/absent when the person has only one. */
  segundoApellido?: string | null;
  /** `H` (hombre) or `M` (mujer). */
  sexo: 'H' | 'M';
  /** Birth date `YYYY-MM-DD`, year 1900-2099 (the homonym rule only covers these centuries). */
  fechaNacimiento: string;
  /** State of birth: numeric `claveEntidad` `01`-`32`, a CURP code such as `JC`, or `NE` (abroad). */
  entidad: string;
}

/** Why generation refused its input (the route validates first, so this signals a caller bug or hostile input). */
export class CurpGenerationError extends Error {
  override readonly name = 'CurpGenerationError';
  constructor(
    readonly field: keyof CurpPersonData | 'homonym',
    message: string,
  ) {
    super(message);
  }
}

const VOWELS = 'AEIOU';

/**
 * Upper-cases a name, writes Ñ as X and drops accents/diaereses (Á -> A, Ü -> U), collapses spaces.
 * Other characters are kept (they become X where a letter is taken from them).
 */
export function normalizeCurpName(name: string): string {
  return name
    .normalize('NFC')
    .toUpperCase()
    .replace(/Ñ/g, 'X')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function isAZ(ch: string | undefined): boolean {
  return ch !== undefined && ch >= 'A' && ch <= 'Z';
}

/** The word of a (possibly compound) name the rules take letters from, particles skipped. */
function significantWord(words: readonly string[]): string {
  const kept = words.filter((w) => !NAME_PARTICLES.has(w));
  return (kept.length ? kept : words)[0] ?? '';
}

/** The word of a surname the rules use: particles (DE, LA, MC, ...) skipped. Empty for no surname. */
export function curpSurnameWord(surname: string | null | undefined): string {
  const n = normalizeCurpName(surname ?? '');
  return n ? significantWord(n.split(' ')) : '';
}

/** The given name the rules use: first name skipped when it is MARIA/JOSE and more follow; particles skipped. */
export function curpGivenNameWord(nombres: string): string {
  const n = normalizeCurpName(nombres);
  if (!n) return '';
  let words = n.split(' ');
  if (words.length > 1 && SKIPPED_GIVEN_NAMES.has(words[0]!)) words = words.slice(1);
  return significantWord(words);
}

function initial(word: string): string {
  return isAZ(word[0]) ? word[0]! : 'X';
}

function firstInternal(word: string, vowel: boolean): string {
  for (let i = 1; i < word.length; i++) {
    const ch = word[i]!;
    if (!isAZ(ch)) continue;
    if (VOWELS.includes(ch) === vowel) return ch;
  }
  return 'X';
}

/**
 * Positions 1-4 of the CURP ("letras iniciales") with the inconvenient-word substitution applied.
 * Raises {@link CurpGenerationError} when the first surname or the given name has no letters.
 */
export function curpNameInitials(p: Pick<CurpPersonData, 'nombres' | 'primerApellido' | 'segundoApellido'>): string {
  const first = curpSurnameWord(p.primerApellido);
  const second = curpSurnameWord(p.segundoApellido);
  const given = curpGivenNameWord(p.nombres);
  if (!first) throw new CurpGenerationError('primerApellido', 'primerApellido is empty');
  if (!given) throw new CurpGenerationError('nombres', 'nombres is empty');
  let letters = initial(first) + firstInternal(first, true) + (second ? initial(second) : 'X') + initial(given);
  if (INCONVENIENT_WORDS.has(letters)) letters = letters[0] + 'X' + letters.slice(2);
  return letters;
}

/** Positions 14-16: first internal consonants of first surname, second surname (X if none), given name. */
export function curpInternalConsonants(p: Pick<CurpPersonData, 'nombres' | 'primerApellido' | 'segundoApellido'>): string {
  const first = curpSurnameWord(p.primerApellido);
  const second = curpSurnameWord(p.segundoApellido);
  const given = curpGivenNameWord(p.nombres);
  return firstInternal(first, false) + (second ? firstInternal(second, false) : 'X') + firstInternal(given, false);
}

/** Parses `YYYY-MM-DD` into numbers when it is a real calendar date, else null. */
export function parseIsoDate(s: string): { year: number; month: number; day: number } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return null;
  const year = Number(m[1]), month = Number(m[2]), day = Number(m[3]);
  if (day < 1 || day > daysInMonth(year, month)) return null;
  return { year, month, day };
}

/** CURP state code (positions 12-13) for a `claveEntidad` (`01`-`32`, `NE`) or a CURP code; undefined if unknown. */
export function curpStateCode(entidad: string): string | undefined {
  return (stateByClaveEntidad(entidad) ?? stateByCurpCode(entidad.toUpperCase()))?.code;
}

/**
 * The first 16 characters of the CURP, everything except the RENAPO-assigned homonym character and
 * the check digit. Raises {@link CurpGenerationError} for empty names, a bad date/year, sex or state.
 */
export function generateCurp16(p: CurpPersonData): string {
  const date = parseIsoDate(p.fechaNacimiento);
  if (!date) throw new CurpGenerationError('fechaNacimiento', 'fechaNacimiento must be a calendar date YYYY-MM-DD');
  if (date.year < 1900 || date.year > 2099) throw new CurpGenerationError('fechaNacimiento', 'CURP birth years run from 1900 to 2099');
  if (p.sexo !== 'H' && p.sexo !== 'M') throw new CurpGenerationError('sexo', 'sexo must be H or M');
  const state = curpStateCode(p.entidad);
  if (!state) throw new CurpGenerationError('entidad', `unknown state ${JSON.stringify(p.entidad)}`);
  return curpNameInitials(p) + p.fechaNacimiento.slice(2, 4) + p.fechaNacimiento.slice(5, 7) + p.fechaNacimiento.slice(8, 10) + p.sexo + state + curpInternalConsonants(p);
}

/**
 * The homonym differentiator (position 17) RENAPO gives the `index`-th person (0-based) sharing the
 * same first 16 characters: digits 0-9 for births up to 1999, letters A-Z from 2000.
 * Raises {@link CurpGenerationError} when the index is out of range for the century.
 */
export function homonymCharacter(birthYear: number, index = 0): string {
  if (birthYear < 2000) {
    if (!Number.isInteger(index) || index < 0 || index > 9) throw new CurpGenerationError('homonym', 'births up to 1999 have homonym digits 0-9');
    return String(index);
  }
  if (!Number.isInteger(index) || index < 0 || index > 25) throw new CurpGenerationError('homonym', 'births from 2000 have homonym letters A-Z');
  return String.fromCharCode(65 + index);
}

/**
 * A full 18-character CURP: {@link generateCurp16} + homonym character + check digit. The homonym
 * character defaults to the first one of the birth century (`0` up to 1999, `A` from 2000); an explicit
 * one must match the century. Only RENAPO knows the real homonym character of a person: a generated CURP
 * is the most likely key, not proof of identity.
 */
export function generateCurp(p: CurpPersonData, options: { homonym?: string } = {}): string {
  const first16 = generateCurp16(p);
  const year = Number(p.fechaNacimiento.slice(0, 4));
  let h = options.homonym ?? homonymCharacter(year, 0);
  h = h.toUpperCase();
  const ok = year < 2000 ? /^[0-9]$/.test(h) : /^[A-Z]$/.test(h);
  if (!ok) throw new CurpGenerationError('homonym', `homonym character ${JSON.stringify(h)} does not fit birth year ${year}`);
  return first16 + h + curpCheckDigit(first16 + h)!;
}
