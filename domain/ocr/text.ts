/**
 * Text helpers for OCR output: line type, accent folding, label matching and position-typed repair of
 * confusable characters in fixed-format codes (CURP, clave de elector).
 */

/** An OCR text line as the parsers see it: text plus its axis-aligned box in document pixels. */
export interface OcrLine {
  text: string;
  confidence: number;
  box: { x: number; y: number; w: number; h: number };
}

/** Upper-cases and removes diacritics except `Ñ` (kept: it is a letter of its own in Spanish). */
export function foldAccents(s: string): string {
  return s
    .toUpperCase()
    .replace(/Ñ/g, '\u0000')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/\u0000/g, 'Ñ');
}

/** Upper case, accents and `Ñ` folded to ASCII, only `A-Z0-9` kept (for label matching on glued OCR text). */
export function compact(s: string): string {
  return foldAccents(s).replace(/Ñ/g, 'N').replace(/[^A-Z0-9]/g, '');
}

/** Levenshtein distance (small strings; labels). */
export function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0]!;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j]!;
      dp[j] = Math.min(dp[j]! + 1, dp[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length]!;
}

/**
 * Finds `label` (compacted) at the start of the compacted `text`, tolerating one OCR error per 4 characters.
 * Returns the number of compacted characters the label took, or -1.
 */
export function matchLabelPrefix(text: string, label: string): number {
  const c = compact(text);
  const l = compact(label);
  const tol = Math.floor(l.length / 4);
  for (const len of [l.length, l.length - 1, l.length + 1, l.length - 2]) {
    if (len <= 0 || len > c.length) continue;
    if (editDistance(c.slice(0, len), l) <= tol) return len;
  }
  return -1;
}

/** True when the compacted `text` contains `label` within one error per 6 characters. */
export function containsLabel(text: string, label: string): boolean {
  const c = compact(text);
  const l = compact(label);
  if (c.includes(l)) return true;
  const tol = Math.floor(l.length / 6);
  if (tol === 0) return false;
  for (let i = 0; i + l.length - 1 <= c.length; i++) {
    if (editDistance(c.slice(i, i + l.length), l) <= tol) return true;
  }
  return false;
}

/** Letter look-alikes of digits, for positions that must hold a letter. */
export const DIGIT_AS_LETTER: Readonly<Record<string, string>> = { '0': 'O', '1': 'I', '2': 'Z', '4': 'A', '5': 'S', '6': 'G', '7': 'T', '8': 'B' };
/** Digit look-alikes of letters, for positions that must hold a digit. */
export const LETTER_AS_DIGIT: Readonly<Record<string, string>> = { O: '0', Q: '0', D: '0', U: '0', I: '1', L: '1', T: '7', Z: '2', S: '5', G: '6', B: '8', A: '4' };

/**
 * Repairs a code against a position pattern: `A` letter, `9` digit, `S` sex (`H`/`M`), `*` any.
 * Returns null when the length differs or a position cannot be repaired.
 */
export function repairByPattern(code: string, pattern: string): string | null {
  if (code.length !== pattern.length) return null;
  let out = '';
  for (let i = 0; i < code.length; i++) {
    let ch = code[i]!;
    const p = pattern[i]!;
    if (p === 'A' || p === 'S') {
      if (/[0-9]/.test(ch)) ch = DIGIT_AS_LETTER[ch] ?? ch;
      if (!/[A-Z]/.test(ch)) return null;
      if (p === 'S' && ch !== 'H' && ch !== 'M') return null;
    } else if (p === '9') {
      if (/[A-Z]/.test(ch)) ch = LETTER_AS_DIGIT[ch] ?? ch;
      if (!/[0-9]/.test(ch)) return null;
    } else if (!/[A-Z0-9]/.test(ch)) return null;
    out += ch;
  }
  return out;
}

/** CURP position pattern (RENAPO Instructivo Normativo para la Asignación de la CURP): 4 letters, YYMMDD, sex, state, 3 consonants, homonym, check digit. */
export const CURP_PATTERN = 'AAAA999999SAAAAA*9';
/** Clave de elector pattern (INE): 6 letters (surnames/name), YYMMDD, 2-digit state, sex, 3 digits (homonym key). */
export const CLAVE_ELECTOR_PATTERN = 'AAAAAA99999999S999';
