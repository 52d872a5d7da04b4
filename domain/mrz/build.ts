/**
 * Builders of MRZ lines (used by the synthetic document generator and by tests): they pad,
 * transliterate and compute every check digit, so their output always passes {@link parseMrz}.
 */
import { computeCheckDigit } from './check-digit.ts';

/**
 * Transliterates a name to the MRZ alphabet, ICAO Doc 9303 Part 3, 6 (Table A: Ñ -> N,
 * accented vowels -> the plain vowel, Ü -> U; other punctuation and blanks -> filler).
 * @returns upper-case text made of `A-Z` and `<` only.
 */
export function transliterateForMrz(text: string): string {
  return text
    .toUpperCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '') // combining marks: Á -> A, Ñ -> N, Ü -> U
    .replace(/[^A-Z0-9]+/g, '<')
    .replace(/^<+|<+$/g, '');
}

/** Right-pads with `<` to `len`, truncating longer text (Doc 9303 Part 3, 4.3). */
export function padMrz(text: string, len: number): string {
  return (text + '<'.repeat(len)).slice(0, len);
}

/**
 * The name field: primary identifier, `<<`, secondary identifier, each transliterated, padded or
 * truncated to `len` (Doc 9303 Part 3, 4.6; truncation keeps the leading characters).
 */
export function mrzName(primary: string, secondary: string, len: number): string {
  const p = transliterateForMrz(primary);
  const s = transliterateForMrz(secondary);
  return padMrz(s ? `${p}<<${s}` : p, len);
}

/** Input of {@link buildTd1}: every value already in MRZ form (dates `YYMMDD`). */
export interface Td1Input {
  readonly documentCode: string;
  readonly issuingState: string;
  /** Up to 9 characters (longer numbers are not needed by our documents). */
  readonly documentNumber: string;
  readonly optional1?: string;
  readonly dateOfBirth: string;
  readonly sex: string;
  readonly dateOfExpiry: string;
  readonly nationality: string;
  readonly optional2?: string;
  readonly primaryIdentifier: string;
  readonly secondaryIdentifier: string;
}

/** Builds the three 30-character lines of a TD1 (Doc 9303 Part 5, 4.2.2). */
export function buildTd1(i: Td1Input): [string, string, string] {
  const docNum = padMrz(i.documentNumber, 9);
  const l1 = padMrz(i.documentCode, 2) + padMrz(i.issuingState, 3) + docNum + computeCheckDigit(docNum) + padMrz(i.optional1 ?? '', 15);
  const dobPart = i.dateOfBirth + computeCheckDigit(i.dateOfBirth);
  const expPart = i.dateOfExpiry + computeCheckDigit(i.dateOfExpiry);
  const opt2 = padMrz(i.optional2 ?? '', 11);
  const composite = computeCheckDigit(l1.slice(5, 30) + dobPart + expPart + opt2);
  const l2 = dobPart + padMrz(i.sex, 1) + expPart + padMrz(i.nationality, 3) + opt2 + composite;
  return [l1, l2, mrzName(i.primaryIdentifier, i.secondaryIdentifier, 30)];
}

/** Input of {@link buildTd3}: every value already in MRZ form (dates `YYMMDD`). */
export interface Td3Input {
  readonly documentCode: string;
  readonly issuingState: string;
  readonly primaryIdentifier: string;
  readonly secondaryIdentifier: string;
  readonly documentNumber: string;
  readonly nationality: string;
  readonly dateOfBirth: string;
  readonly sex: string;
  readonly dateOfExpiry: string;
  /** Up to 14 characters; empty on Mexican passports. */
  readonly personalNumber?: string;
  /**
   * Check digit written for an empty personal number: `<` or `0` (both allowed by Doc 9303
   * Part 4, 4.2.2 note; Mexican passports write `0`). Default `<`.
   */
  readonly emptyPersonalNumberCheck?: '<' | '0';
}

/** Builds the two 44-character lines of a TD3 passport MRZ (Doc 9303 Part 4, 4.2.2). */
export function buildTd3(i: Td3Input): [string, string] {
  const l1 = padMrz(i.documentCode, 2) + padMrz(i.issuingState, 3) + mrzName(i.primaryIdentifier, i.secondaryIdentifier, 39);
  const docNum = padMrz(i.documentNumber, 9);
  const pn = padMrz(i.personalNumber ?? '', 14);
  const pnCheck = /^<*$/.test(pn) ? (i.emptyPersonalNumberCheck ?? '<') : computeCheckDigit(pn);
  const docPart = docNum + computeCheckDigit(docNum);
  const dobPart = i.dateOfBirth + computeCheckDigit(i.dateOfBirth);
  const expPart = i.dateOfExpiry + computeCheckDigit(i.dateOfExpiry);
  const composite = computeCheckDigit(docPart + dobPart + expPart + pn + pnCheck);
  return [l1, docPart + padMrz(i.nationality, 3) + dobPart + padMrz(i.sex, 1) + expPart + pn + pnCheck + composite];
}
