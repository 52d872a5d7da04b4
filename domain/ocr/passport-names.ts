/**
 * The holder's names on a passport data page from three readings that each fail in their own way:
 * - the visual zone value under `Apellidos / Surnames` and `Nombres / Given names` (accents, but the label may
 *   be unreadable, its remainder taken for a value, or word spaces dropped: `ALVAREZORDONEZ`);
 * - the MRZ name field (word boundaries as `<`, but no check digit covers it and the recogniser drops
 *   characters: `RUZ` for `CRUZ`);
 * - the CURP (RENAPO check digit), whose positions 1-4 and 14-16 encode initials and internal consonants of
 *   both surnames and the given name (Instructivo Normativo para la Asignación de la CURP; `domain/curp`).
 * The visual zone reading is kept when it agrees with the MRZ within OCR noise or with the CURP; its word
 * spaces are restored from the MRZ's `<`.
 */
import { compareCurpWithPerson } from '../curp/compare.ts';
import { findLabel, valueCandidates, type LabelHit } from './layout.ts';
import { enyeFromCurp } from './curp-spelling.ts';
import { isLexiconWord, restoreDiacritics } from './lexicon.ts';
import { compact, editDistance, type OcrLine } from './text.ts';

/** Visual-zone labels of the surnames and given names (bilingual, Mexican passport). */
export const SURNAME_LABELS = ['APELLIDOS / SURNAMES', 'APELLIDOS / SURNAME', 'APELLIDOS', 'SURNAMES', 'SURNAME'];
export const GIVEN_LABELS = ['NOMBRES / GIVEN NAMES', 'NOMBRES', 'GIVEN NAMES'];
/** Particles that belong to the word after them in a surname (RENAPO; `DEL ÁNGEL`, `DE LA CRUZ`). */
export const SURNAME_PARTICLES = new Set(['DE', 'DEL', 'LA', 'LAS', 'LOS', 'Y', 'MC', 'MAC', 'VAN', 'VON', 'SAN', 'SANTA']);

/** Upper case letters (with Ñ and accents), apostrophes, hyphens and single spaces only. */
export function cleanName(s: string): string {
  return s.toUpperCase().replace(/[^A-ZÑÁÉÍÓÚÜ '\s-]/g, '').replace(/\s+/g, ' ').trim();
}

/** Letters only, accents and Ñ folded (compares a printed name with an MRZ name). */
const letters = (s: string) => compact(s).replace(/[0-9]/g, '');

/**
 * Two readings of one name agree within OCR noise: letter strings at most max(2, 25 %) edits apart, and at
 * most 1 edit when the shorter has 4 letters or fewer (2 of 3 letters is another word: `TWN` is not `LIN`).
 */
export function namesAgree(a: string, b: string): boolean {
  const x = letters(a);
  const y = letters(b);
  if (!x || !y) return false;
  const tol = Math.min(x.length, y.length) <= 4 ? 1 : Math.max(2, Math.floor(Math.max(x.length, y.length) / 4));
  return editDistance(x, y) <= tol;
}

/**
 * Puts the word spaces of `reference` (an MRZ name, words separated by spaces) into `text` when `text` has
 * fewer words: the letters of both are aligned by edit distance and a space is inserted after each letter
 * of `text` aligned with the last letter of a reference word (moved right over up to 2 letters the reference
 * lacks when that makes a listed name, `lexicon.ts`). `text`'s own characters (accents) are kept.
 */
export function respaceLike(text: string, reference: string): string {
  const words = reference.split(' ').filter(Boolean);
  if (text.split(/[\s-]+/).filter(Boolean).length >= words.length) return text; // a hyphen separates words too (`CHIEN-SHENG`)
  const p = [...text.replace(/\s+/g, '')];
  const pf = p.map((ch) => letters(ch) || ch);
  const r = words.join('');
  const ends = new Set<number>();
  let acc = 0;
  for (const w of words.slice(0, -1)) ends.add((acc += w.length) - 1);
  const n = p.length;
  const m = r.length;
  const dp: number[][] = Array.from({ length: n + 1 }, (_, i) => Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= n; i++) for (let j = 1; j <= m; j++) dp[i]![j] = Math.min(dp[i - 1]![j]! + 1, dp[i]![j - 1]! + 1, dp[i - 1]![j - 1]! + (pf[i - 1] === r[j - 1] ? 0 : 1));
  const breaks = new Set<number>();
  const inserted = new Set<number>(); // letters of `text` the reference lacks
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    if (dp[i]![j] === dp[i - 1]![j - 1]! + (pf[i - 1] === r[j - 1] ? 0 : 1)) {
      if (ends.has(j - 1)) breaks.add(i - 1);
      i--;
      j--;
    } else if (dp[i]![j] === dp[i - 1]![j]! + 1) inserted.add(--i);
    else {
      if (ends.has(j - 1) && i > 0) breaks.add(i - 1);
      j--;
    }
  }
  // A letter the reference lacks next to a word end (`ORDONEZAGUILAR` against `ORDONE AGUILAR`) may belong to
  // either word: the break moves right over up to 2 letters when that makes the word before it a listed name.
  const out = [...breaks].sort((a, b) => a - b);
  for (let k = 0; k < out.length; k++) {
    const start = k === 0 ? 0 : out[k - 1]! + 1;
    const word = (end: number) => p.slice(start, end + 1).join('');
    if (isLexiconWord(word(out[k]!))) continue;
    for (const shift of [1, 2]) {
      const end = out[k]! + shift;
      if (!inserted.has(end)) break;
      if (end < n - 1 && (k + 1 >= out.length || end < out[k + 1]!) && isLexiconWord(word(end))) {
        out[k] = end;
        break;
      }
    }
  }
  const finalBreaks = new Set(out);
  return p.map((ch, k) => (finalBreaks.has(k) && k < n - 1 ? ch + ' ' : ch)).join('');
}

/**
 * Splits the printed surnames into first and second: particles (DE, DEL, LA, LOS, Y...) belong to the
 * word after them (`DEL ÁNGEL ZÚÑIGA` -> `DEL ÁNGEL` + `ZÚÑIGA`; `DE LA CRUZ PÉREZ` -> `DE LA CRUZ` + `PÉREZ`).
 */
export function splitSurnames(surnames: string): [string, string] {
  const groups: string[] = [];
  let pending: string[] = [];
  for (const w of surnames.split(' ').filter(Boolean)) {
    pending.push(w);
    if (!SURNAME_PARTICLES.has(letters(w))) {
      groups.push(pending.join(' '));
      pending = [];
    }
  }
  if (pending.length) groups.push(pending.join(' '));
  return [groups[0] ?? '', groups.slice(1).join(' ')];
}

/**
 * A value line of a visual-zone label: printed in capitals, while the bilingual labels are mixed case with a
 * `/`. Text with a `/`, fewer than 2 capitals or a lower-case majority is label text (the recogniser may
 * return a few capitals in lower case: `ROCio`).
 */
function isValueText(v: string): boolean {
  const t = v.trim();
  const lower = (t.match(/[a-zñáéíóú]/g) ?? []).length;
  const upper = (t.match(/[A-ZÑÁÉÍÓÚ]/g) ?? []).length;
  return !t.includes('/') && upper >= 2 && lower <= 0.5 * (lower + upper);
}

/**
 * The value lines of the surname and given-name labels (for a Spanish re-read with accents): per label found,
 * the nearest capitalised line ({@link isValueText}) whose vertical centre lies 0.15-3 label heights under the
 * label's and whose left edge is within 3 label heights of it.
 */
export function passportNameLines(lines: readonly OcrLine[]): OcrLine[] {
  const out: OcrLine[] = [];
  for (const labels of [SURNAME_LABELS, GIVEN_LABELS]) {
    const hit = findLabel(lines, labels);
    if (!hit) continue;
    const h = hit.line.box.h;
    const cy = (l: OcrLine) => l.box.y + l.box.h / 2;
    let best: OcrLine | null = null;
    for (const l of lines) {
      const dy = cy(l) - cy(hit.line);
      if (l === hit.line || dy < 0.15 * h || dy > 3 * h || Math.abs(l.box.x - hit.line.box.x) > 3 * h || !isValueText(l.text)) continue;
      if (!best || dy < cy(best) - cy(hit.line)) best = l;
    }
    if (best) out.push(best);
  }
  return out;
}

function labelValue(lines: readonly OcrLine[], hit: LabelHit | null, labelWords: RegExp): string {
  if (!hit) return '';
  const v = valueCandidates(lines, hit).find((c) => isValueText(c) && !labelWords.test(compact(c)) && cleanName(c).length > 1);
  return v ? cleanName(v) : '';
}

/**
 * Capitalised lines, and the parts of a `SURNAME, GIVEN NAMES` line (pages that print one name line, e.g.
 * `LIN, CHIEN-SHENG`), that agree with `mrzName` (see {@link namesAgree}), closest first.
 */
function linesNear(lines: readonly OcrLine[], mrzName: string): string[] {
  if (letters(mrzName).length < 3) return [];
  return lines
    .filter((l) => !/[<«]/.test(l.text) && isValueText(l.text))
    .flatMap((l) => (l.text.includes(',') ? [l.text, ...l.text.split(',')] : [l.text]))
    .filter((t) => namesAgree(t, mrzName))
    .map((t) => cleanName(t))
    .sort((a, b) => editDistance(letters(a), letters(mrzName)) - editDistance(letters(b), letters(mrzName)));
}

/**
 * The CURP's name letters (positions 1-4 and 14-16) agree with the surnames and given names, as read or with
 * an `N` read where the CURP holds the `X` of an `Ñ` taken for `Ñ` (`curp-spelling.ts`: the recogniser reads
 * `Ñ` as `N`, while RENAPO writes `X` for it).
 */
export function curpAgrees(curp: string, surnames: string, givenNames: string): boolean {
  const [f, sec] = splitSurnames(surnames);
  const [f2, sec2, g2] = enyeFromCurp(curp, f, sec, givenNames);
  for (const [first, second, g] of [[f, sec, givenNames], [f2, sec2, g2]] as const) {
    const cmp = compareCurpWithPerson(curp, { primerApellido: first, segundoApellido: second || null, nombres: g });
    if (!cmp.unchecked.includes('name_initials') && !cmp.mismatches.includes('name_initials') && !cmp.mismatches.includes('internal_consonants')) return true;
  }
  return false;
}

interface Candidate {
  text: string;
  /** Read in the visual zone (not the MRZ's name). */
  viz: boolean;
  /** Any capitalised line, tried only against the CURP. */
  extra: boolean;
}

/** Result of {@link passportNames}. */
export interface PassportNames {
  surnames: string;
  givenNames: string;
  /** Both names come from the visual zone (not the MRZ fallback). */
  fromVisualZone: boolean;
  /** The CURP's name letters (initials, internal consonants) agree with the chosen names. */
  confirmedByCurp: boolean;
  /**
   * The visual zone's names and the MRZ's (as read) agree within OCR noise; false when they differ and the MRZ
   * name is a clean reading (CURP-consistent or no CURP); null when not comparable.
   */
  mrzAgrees: boolean | null;
  /** Labels found (for the layout signal): 0, 1 or 2. */
  labelsFound: number;
}

/**
 * Chooses the holder's surnames and given names (spelling of the visual zone as read, upper case; accents
 * only where the recogniser read them) from the page lines, the MRZ name field as read (`mrzSurnames`/`mrzGiven`, words separated by
 * spaces) and a CURP whose check digit passed (or ''). Candidates per name: the label's value, the lines
 * agreeing with the MRZ's name, the MRZ's name itself; the first pair the CURP agrees with (initials and internal
 * consonants) wins; without a usable CURP, a label value is kept when it agrees with the MRZ (or the MRZ name
 * is too short to compare), else the closest line, else the MRZ's name. `codes`: the MRZ's issuing state and
 * nationality (`TWN`), never taken for a name. Never throws.
 */
export function passportNames(lines: readonly OcrLine[], mrzSurnames: string, mrzGiven: string, curp: string, codes: readonly string[] = []): PassportNames {
  // The issuing state and nationality codes (`TWN`) are printed in the visual zone next to the name: never a name.
  // (Unless the MRZ's own name field reads exactly that.)
  const isCode = (t: string) => codes.includes(letters(t)) && letters(t) !== letters(mrzSurnames) && letters(t) !== letters(mrzGiven);
  const surnHit = findLabel(lines, SURNAME_LABELS);
  const givenHit = findLabel(lines, GIVEN_LABELS);
  const vizS = labelValue(lines, surnHit, /SURNAME|SUMAME|APELLIDO/);
  const vizG = labelValue(lines, givenHit, /GIVEN|NAMES|NOMBRE/);
  // With a CURP, every other capitalised line is a last-resort candidate (labels unreadable and the MRZ name
  // misread): the CURP's seven name letters decide.
  const others = curp.length === 18 ? lines.filter((l) => !/[<«]/.test(l.text) && isValueText(l.text)).map((l) => cleanName(l.text)) : [];
  const candidates = (viz: string, mrz: string): Candidate[] => {
    const out: Candidate[] = [];
    const push = (text: string, isViz: boolean, extra = false) => {
      if (text && !isCode(text) && !out.some((c) => c.text === text)) out.push({ text, viz: isViz, extra });
    };
    if (viz && (letters(mrz).length < 3 || namesAgree(viz, mrz))) push(viz, true);
    for (const l of linesNear(lines, mrz)) push(l, true);
    if (viz) push(viz, true);
    push(cleanName(mrz), false);
    for (const l of others) push(l, true, true);
    return out;
  };
  const cs = candidates(vizS, mrzSurnames);
  const cg = candidates(vizG, mrzGiven);
  let chosen: [Candidate, Candidate] | null = null;
  if (curp.length === 18) {
    search: for (const s of cs) {
      for (const g of cg) {
        if (s.text === g.text) continue;
        if (curpAgrees(curp, respaceLike(s.text, mrzSurnames), respaceLike(g.text, mrzGiven))) {
          chosen = [s, g];
          break search;
        }
      }
    }
  }
  const byCurp = chosen !== null;
  const none: Candidate = { text: '', viz: false, extra: false };
  chosen ??= [cs.find((c) => !c.extra) ?? none, cg.find((c) => !c.extra) ?? none];
  const [s, g] = chosen;
  // As read (an accent placed by the lexicon only where the recogniser read one; never added: issue 18).
  const surnames = restoreDiacritics(respaceLike(s.text, mrzSurnames));
  const givenNames = restoreDiacritics(respaceLike(g.text, mrzGiven));
  // MRZ vs visual zone (authenticity): the label values (else the chosen visual-zone lines) against the MRZ as
  // read. A disagreement counts only when the MRZ's name is a clean reading (the CURP agrees with it, or no
  // CURP to tell): a misread MRZ name is not a contradiction.
  const vs = (isCode(vizS) ? '' : vizS) || (s.viz ? s.text : '');
  const vg = (isCode(vizG) ? '' : vizG) || (g.viz ? g.text : '');
  let mrzAgrees: boolean | null = vs && vg && letters(mrzSurnames).length >= 3 && letters(mrzGiven).length >= 2 ? namesAgree(vs, mrzSurnames) && namesAgree(vg, mrzGiven) : null;
  if (mrzAgrees === false && curp.length === 18 && !curpAgrees(curp, mrzSurnames, mrzGiven)) mrzAgrees = null;
  return {
    surnames,
    givenNames,
    fromVisualZone: s.viz && g.viz,
    confirmedByCurp: byCurp,
    mrzAgrees,
    labelsFound: [surnHit, givenHit].filter(Boolean).length,
  };
}
