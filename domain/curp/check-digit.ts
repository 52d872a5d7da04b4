/**
 * The CURP's 18th character, its check digit ("dígito verificador").
 *
 * Rule (Instructivo Normativo para la Asignación de la CURP, DOF 18-10-2021, "dígito verificador";
 * the same algorithm is implemented by python-stdnum `stdnum.mx.curp.calc_check_digit`):
 * each of the first 17 characters takes its index in the 37-symbol dictionary
 * `0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ` (so `A` = 10, `N` = 23, `Ñ` = 24, `O` = 25, `Z` = 36), is
 * multiplied by the weight 18 - i (i = 0-based position: weights 18 down to 2), the products are
 * summed, and the check digit is (10 - sum mod 10) mod 10.
 *
 * A property worth knowing: position 9 (0-based 8, the tens digit of the birth day) has weight 10, so a
 * change there never alters the check digit; weights 5 and 15 (positions 14 and 4) miss even changes
 * of value, and even weights miss changes of value by 5. Such mutations are caught only when they
 * break another rule (e.g. an impossible date), see `curp.unit.test.ts`.
 */

/** Dictionary of the check-digit algorithm (Ñ sits between N and O). */
export const CHECK_DIGIT_DICTIONARY = '0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ';

/** Value of each ASCII char code in the dictionary, -1 for characters outside it. */
export const CHAR_VALUE: Int8Array = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let i = 0; i < CHECK_DIGIT_DICTIONARY.length; i++) {
    const c = CHECK_DIGIT_DICTIONARY.charCodeAt(i);
    if (c < 128) t[c] = i;
  }
  return t;
})();

/**
 * Check digit ('0'-'9') of a CURP from its first 17 characters (more are ignored).
 * Returns null when fewer than 17 characters are given or one of them is outside the dictionary
 * (upper-case ASCII letters and digits; `Ñ` never occurs in a CURP, where it is written `X`).
 */
export function curpCheckDigit(first17: string): string | null {
  if (first17.length < 17) return null;
  let sum = 0;
  for (let i = 0; i < 17; i++) {
    const c = first17.charCodeAt(i);
    const v = c < 128 ? CHAR_VALUE[c]! : -1;
    if (v < 0) return null;
    sum += v * (18 - i);
  }
  return String((10 - (sum % 10)) % 10);
}
