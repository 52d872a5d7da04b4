/**
 * The one letter a CURP can tell a recogniser about: `Ñ`. RENAPO writes an `Ñ` of the name as `X` in the
 * CURP (Instructivo Normativo para la Asignación de la CURP, DOF 18-10-2021; `domain/curp/generate.ts`
 * `normalizeCurpName`), at the initials (positions 1, 3, 4) and the first internal consonants (positions
 * 14-16). PP-OCRv4 has no `Ñ` and reads it `N`; where a CURP whose check digit passed holds `X` at the
 * place of a name letter read `N`, that letter is an `Ñ` (a name letter read `N` is not an `X`). This
 * confirms a letter the recogniser saw; it never adds one, and accents are never inferred (the CURP drops them).
 */
import { NAME_PARTICLES, SKIPPED_GIVEN_NAMES } from '../curp/catalog.ts';

const VOWELS = 'AEIOU';

/** Index in `word` (upper case) of its first internal consonant (a letter after the first that is not a vowel), or -1. */
function firstInternalConsonant(word: string): number {
  for (let i = 1; i < word.length; i++) {
    const plain = word[i]!.normalize('NFD')[0]!;
    if (plain >= 'A' && plain <= 'Z' && !VOWELS.includes(plain)) return i;
  }
  return -1;
}

const plainWord = (w: string) => w.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Z]/g, '');

/**
 * Rewrites, in one name part, the letters the CURP encodes (`initialAt`: the CURP letter for the word's
 * initial, or '' when that position does not encode this part; `consonantAt`: the CURP letter for its first
 * internal consonant) from `N` to `Ñ` where the CURP holds `X`. The word is the one the CURP rules take
 * (particles DE/DEL/LA... skipped; for given names a leading MARÍA/JOSÉ skipped when more names follow).
 */
function confirmEnye(part: string, given: boolean, initialAt: string, consonantAt: string): string {
  const words = part.split(' ');
  const idx = words.map((w, i) => ({ w: plainWord(w), i })).filter((x) => x.w);
  let cands = idx;
  if (given && cands.length > 1 && SKIPPED_GIVEN_NAMES.has(cands[0]!.w)) cands = cands.slice(1);
  const kept = cands.filter((x) => !NAME_PARTICLES.has(x.w));
  const target = (kept.length ? kept : cands)[0];
  if (!target) return part;
  const chars = [...words[target.i]!];
  if (initialAt === 'X' && chars[0] === 'N') chars[0] = 'Ñ';
  const k = firstInternalConsonant(chars.join(''));
  if (consonantAt === 'X' && k > 0 && chars[k] === 'N') chars[k] = 'Ñ';
  words[target.i] = chars.join('');
  return words.join(' ');
}

/**
 * The name parts with each `N` the CURP shows to be an `Ñ` written `Ñ` (see the module comment).
 * @param curp an 18-character CURP whose check digit passed (the caller checks); anything else returns the parts unchanged
 * @returns `[firstSurname, secondSurname, givenNames]`
 */
export function enyeFromCurp(curp: string, firstSurname: string, secondSurname: string, givenNames: string): [string, string, string] {
  if (curp.length !== 18) return [firstSurname, secondSurname, givenNames];
  return [
    firstSurname ? confirmEnye(firstSurname, false, curp[0]!, curp[13]!) : firstSurname,
    secondSurname ? confirmEnye(secondSurname, false, curp[2]!, curp[14]!) : secondSurname,
    givenNames ? confirmEnye(givenNames, true, curp[3]!, curp[15]!) : givenNames,
  ];
}
