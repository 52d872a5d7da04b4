/**
 * Free-text rules shared by every bounded context.
 */

/** Unicode control characters (general category Cc: U+0000-U+001F, U+007F-U+009F), CR and LF among them. */
export const CONTROL_CHARACTERS = /\p{Cc}/u;

/**
 * True when `value` holds a control character. Names and titles refuse them (issue 31: a CR/LF in a
 * title or signer name reaches e-mail headers, page titles and the certificate): deployments' company and
 * client names, signing document titles, signer names and roles, typed signatures.
 */
export function hasControlCharacters(value: string): boolean {
  return CONTROL_CHARACTERS.test(value);
}
