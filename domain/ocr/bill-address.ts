/**
 * The holder's name and address as a bill prints them, normalised from OCR rows: spaces PP-OCRv4
 * dropped are restored (`glueFix`, `splitGluedWords`), stray marks dropped, accents of listed words
 * restored, the postal code written `C.P. 00000`, the last row `CITY, STATE`.
 */
import { restoreDiacritics, snapStateAbbreviation, STATE_ABBREVIATIONS } from './lexicon.ts';
import { isKnownWord, joinSplitWords, splitGluedWords } from './segment.ts';
import { editDistance } from './text.ts';

/** The postal-code marker and its five digits (`C.P. 06000`; OCR variants `CP`, `C,P`, `C.R`, `C.P:`). */
export const ZIP_RE = /\bC\s*[.,]?\s*[PR]\s*[.,]?\s*:?\s*(\d{5})\b/;

/**
 * Spaces an OCR line that lost them (PP-OCRv4 on Latin text): after a word glued to a number
 * (`CONSTITUCIÓN390`, `INT14`), after a leading street-type abbreviation glued to the name (`AVACUEDUCTO`,
 * `BLVDHIDALGO`; not `AVENIDA`/`AVIACIÓN`), and, on a line with no space at all, at every letter/digit
 * boundary and after a leading `COL`.
 */
export function glueFix(t: string): string {
  let s = t
    .replace(/\b(INT|NO|NUM|MZ|LT|KM)(\d)/g, '$1 $2')
    .replace(/([A-ZÁÉÍÓÚÑ]{3,})(\d)/g, '$1 $2')
    .replace(/^(BLVD|CDA|CJON|PROL|AND)(?=[A-ZÁÉÍÓÚÑ]{3})/, '$1 ')
    .replace(/^PRIV(?!ADA)(?=[A-ZÁÉÍÓÚÑ]{3})/, 'PRIV ')
    .replace(/^AV(?=[A-DF-HJ-ZÁÓÚÑ][A-ZÁÉÍÓÚÑ]{2})/, 'AV ')
    // "C" (calle) glued to a name: no Spanish word starts with C + one of these consonants.
    .replace(/^C(?=[BDFGJKMNPQSTVWXZ][A-ZÁÉÍÓÚÑ]{2})/, 'C ')
    // "COL" (colonia) glued to the colony's name; not COLONIA/COLINA(S)/COLÓN.
    .replace(/(^|\s)COL(?!ONIA|INA|ON|ÓN)(?=[A-ZÁÉÍÓÚÑ]{3})/, '$1COL ')
    // The interior number glued to the exterior one (`541INT 23`).
    .replace(/(\d)(INT|EXT)(?=\s|\d|$)/g, '$1 $2');
  if (!/\s/.test(s.trim())) {
    s = s.replace(/([A-ZÁÉÍÓÚÑ])(\d)/g, '$1 $2').replace(/(\d)([A-ZÁÉÍÓÚÑ])/g, '$1 $2');
    s = s.replace(/^COL(?=[A-ZÁÉÍÓÚÑ]{3})/, 'COL ');
  }
  return s;
}

/** Trailing marks OCR adds to a row (a stray `.`, `:`, `|` or `-` read off the edge of the box). */
const TRAILING_MARKS = /[\s.,:;|'"_-]+$/;

/**
 * The holder's name as printed, upper case: spaces restored (`splitGluedWords`) and accents of listed
 * names restored (`restoreDiacritics`).
 */
export function billName(text: string): string {
  const t = text.replace(/^[\s:]+/, '').replace(TRAILING_MARKS, '').replace(/\s+/g, ' ').trim().toUpperCase();
  return restoreDiacritics(splitGluedWords(t));
}

/**
 * A state abbreviation read with one letter wrong (`NI` -> `NL`, lexicon's snap) or missing
 * (`AX` -> `OAX`, `AL` -> `JAL`: the one listed abbreviation one insertion away); else unchanged.
 */
function snapState(s: string): string {
  const t = snapStateAbbreviation(s);
  if ((STATE_ABBREVIATIONS as readonly string[]).includes(t)) return t;
  const longer = STATE_ABBREVIATIONS.filter((a) => a.length === s.length + 1 && editDistance(a, s) === 1);
  return longer.length === 1 ? longer[0]! : s;
}

/** A street type glued to the first word of the street row (`CDE LA PEÑA`, `AVREFORMA`): split when the rest is a vocabulary word. */
function splitStreetType(row: string): string {
  const m = /^(C|AV|AND|CDA|PRIV|BLVD|CALLE)([A-Z]{2,})(?=\s)/.exec(row);
  return m && !isKnownWord(m[0]) && isKnownWord(m[2]!) ? `${m[1]} ${row.slice(m[1]!.length)}` : row;
}

/**
 * Digits read for letters inside a row's words: a `0` ending a word (`ACUEDUCT 0 179`, `HIDALG0`) when
 * the word with `O` is a vocabulary word, and a lone `1` between two words (`FRANCISCO 1 MADERO`).
 */
function digitLookAlikes(row: string): string {
  return row
    .replace(/([A-ZÁÉÍÓÚÑ]{3,}) ?0(?=\s|$)/g, (m, w: string) => (isKnownWord(`${w}O`) ? `${w}O` : m))
    .replace(/(?<=[A-ZÁÉÍÓÚÑ]) 1 (?=[A-ZÁÉÍÓÚÑ])/g, ' I ');
}

/** Street-type abbreviations of four letters or more that a one-letter misread is snapped back to (`BLVO` -> `BLVD`). */
const STREET_TYPES = ['BLVD', 'PRIV', 'CALLE', 'CJON', 'PROL', 'CALZ', 'CIRC', 'AVENIDA', 'PRIVADA', 'CERRADA', 'ANDADOR'];

/** Replaces a row's first word by the listed word one edit away from it (only when it is not a word itself). */
function snapFirstWord(row: string, words: readonly string[], minLength: number): string {
  const m = /^([A-Z0-9]+)(?=\s)/.exec(row);
  if (!m || m[1]!.length < minLength || words.includes(m[1]!) || isKnownWord(m[1]!)) return row;
  const close = words.filter((w) => Math.abs(w.length - m[1]!.length) <= 1 && editDistance(w, m[1]!) === 1);
  return close.length === 1 ? close[0]! + row.slice(m[1]!.length) : row;
}

/**
 * The holder's address rows joined as the bill prints them, one `, ` between rows
 * (`street, colony, C.P. zip, city, state`). Each row: upper case, stray trailing marks dropped, digit
 * look-alikes in words read as letters (`digitLookAlikes`),
 * glued words split (`glueFix`, `splitGluedWords`) and split words joined (`joinSplitWords`), accents
 * restored, the postal code written `C.P. 00000`. The first row's street type snaps to the listed
 * abbreviations (`BLVO` -> `BLVD`); the row above the postal code is the colony, whose `COL` prefix
 * snaps back from a one-letter misread (`COR`, `CO`, `CDL`). The last row is `CITY, STATE`: a `.` or
 * missing comma before the final state abbreviation becomes `, ` and the abbreviation snaps to the 32
 * states.
 */
export function billAddress(rows: readonly string[]): string {
  const out = rows.map((r) => {
    const t = digitLookAlikes(r.replace(/\s+/g, ' ').replace(TRAILING_MARKS, '').trim().toUpperCase());
    return restoreDiacritics(joinSplitWords(splitGluedWords(glueFix(t)))).replace(ZIP_RE, 'C.P. $1');
  });
  if (out.length > 1) out[0] = splitStreetType(snapFirstWord(out[0]!, STREET_TYPES, 3));
  const zipRow = out.findIndex((r) => ZIP_RE.test(r));
  if (zipRow >= 1) out[zipRow - 1] = snapFirstWord(out[zipRow - 1]!, ['COL'], 2);
  const last = out.length - 1;
  if (last > 0) {
    const m = /^(.*[A-ZÁÉÍÓÚÜÑ])(?:\s*[.,]\s*|\s+)([A-Z]{2,5})$/.exec(out[last]!);
    const st = m ? snapState(m[2]!) : '';
    if (m && (STATE_ABBREVIATIONS as readonly string[]).includes(st)) out[last] = `${m[1]}, ${st}`;
  }
  return out.join(', ');
}
