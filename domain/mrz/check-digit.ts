/**
 * ICAO Doc 9303 check digits.
 *
 * Source: ICAO Doc 9303 (8th ed., 2021) Part 3, section 4.9 "Check digits in the MRZ":
 * each character gets a value (digits 0-9 their value, letters A-Z 10-35, the filler `<` 0),
 * values are multiplied by the repeating weights 7, 3, 1, summed, and the check digit is the
 * sum modulo 10.
 */

/** The MRZ character set (Doc 9303 Part 3, 4.1): digits, upper-case Latin letters and the filler. */
export const MRZ_ALPHABET = /^[0-9A-Z<]*$/;

/** Weights of Doc 9303 Part 3, 4.9, repeated over the data. */
const WEIGHTS = [7, 3, 1] as const;

/**
 * Value of one MRZ character for the check-digit computation (Doc 9303 Part 3, 4.9).
 * @returns 0-35, or -1 when the character is outside the MRZ character set.
 */
export function mrzCharValue(ch: string): number {
  const c = ch.charCodeAt(0);
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 65 && c <= 90) return c - 55; // A=10 ... Z=35
  if (ch === '<') return 0;
  return -1;
}

/**
 * Computes the ICAO 9303 check digit of `data` (any length, MRZ characters only).
 * @returns the check digit as a one-character string `'0'`-`'9'`.
 * @throws RangeError when `data` holds a character outside `0-9A-Z<`.
 */
export function computeCheckDigit(data: string): string {
  let sum = 0;
  for (let i = 0; i < data.length; i++) {
    const v = mrzCharValue(data.charAt(i));
    if (v < 0) throw new RangeError(`character ${JSON.stringify(data.charAt(i))} at ${i} is not an MRZ character`);
    sum += v * WEIGHTS[i % 3]!;
  }
  return String(sum % 10);
}

/**
 * True when `digit` is the check digit of `data`. A filler `<` as check digit is accepted only
 * when `allowFillerWhenEmpty` is set and the data is all fillers (Doc 9303 Part 4, 4.2.2: the
 * optional personal-number check digit of a TD3 may be `<` when that field is empty).
 * Never throws: data outside the MRZ character set simply fails.
 */
export function isCheckDigitValid(data: string, digit: string, allowFillerWhenEmpty = false): boolean {
  if (allowFillerWhenEmpty && digit === '<' && /^<*$/.test(data)) return true;
  if (!/^[0-9]$/.test(digit) || !MRZ_ALPHABET.test(data)) return false;
  return computeCheckDigit(data) === digit;
}
