/**
 * INE / IFE voter credential (Credencial para Votar) reading from OCR lines.
 *
 * Front: label-driven (NOMBRE, DOMICILIO, CLAVE DE ELECTOR, CURP, FECHA DE NACIMIENTO, SECCIÓN, VIGENCIA,
 * SEXO, ...), see `layout.ts`. Back: the TD1 MRZ (`IDMEX…`, 3 x 30, ICAO Doc 9303 part 5) through the MRZ
 * engine (`domain/mrz`). Spec: "OCR identity result" (fields for `ine`).
 */
import { glueFix } from './bills.ts';
import { restoreDiacritics, snapStateAbbreviation } from './lexicon.ts';
import { blockBelow, findLabel, mergeRows, valueCandidates, type LabelHit } from './layout.ts';
import { fitLength, mrzChars } from './mrz-zone.ts';
import { CLAVE_ELECTOR_PATTERN, CURP_PATTERN, compact, containsLabel, foldAccents, repairByPattern, type OcrLine } from './text.ts';

/** Labels printed on the front of the credential (accents folded when matching). */
export const INE_LABELS = {
  name: 'NOMBRE',
  address: 'DOMICILIO',
  clave: 'CLAVE DE ELECTOR',
  curp: 'CURP',
  birth: 'FECHA DE NACIMIENTO',
  section: 'SECCION',
  validity: 'VIGENCIA',
  sex: 'SEXO',
  registration: 'AÑO DE REGISTRO',
  state: 'ESTADO',
  municipality: 'MUNICIPIO',
  locality: 'LOCALIDAD',
  issue: 'EMISION',
  age: 'EDAD',
  folio: 'FOLIO',
} as const;

export { findTd3Lines, fitLength, mrzChars } from './mrz-zone.ts';

const STOP_LABELS = Object.values(INE_LABELS);

/** Lines of the name and address blocks (original line objects): the caller may re-read them with a Spanish model. */
export function ineTextRegions(lines: readonly OcrLine[]): { name: OcrLine[]; address: OcrLine[] } {
  const nameHit = findLabel(lines, INE_LABELS.name);
  const addrHit = findLabel(lines, INE_LABELS.address);
  return {
    name: nameHit ? blockBelow(lines, nameHit, STOP_LABELS, 4) : [],
    address: addrHit ? blockBelow(lines, addrHit, STOP_LABELS, 4) : [],
  };
}

/** What the front yields, before combination with the back and the CURP. */
export interface IneFrontRead {
  curp: string;
  claveElector: string;
  /** Name rows top to bottom: first surname, second surname, given names (accents kept). */
  nameRows: string[];
  addressRows: string[];
  /** YYYY-MM-DD or ''. */
  dateOfBirth: string;
  section: string;
  /** Year (YYYY) the credential is valid through, or ''. */
  validUntil: string;
  sex: '' | 'H' | 'M';
  /** Issuer heading: `INE` (Instituto Nacional Electoral), `IFE` (Instituto Federal Electoral) or ''. */
  issuer: '' | 'INE' | 'IFE';
  /** Labels found (for model detection and the layout authenticity signal). */
  labelsFound: string[];
  /** Values of the IFE/early INE extra boxes when present. */
  registration: string;
  issueYear: string;
  /** ESTADO/MUNICIPIO/SECCIÓN/LOCALIDAD/EMISIÓN/VIGENCIA labels printed on one row with values below (model F). */
  codesOnOneRow: boolean;
}

/** Extracts the first token that repairs to `pattern`, scanning 18-character windows of the compacted text. */
function findCode(texts: readonly string[], pattern: string, accept: (code: string) => boolean = () => true): string {
  for (const t of texts) {
    const c = compact(t);
    for (let i = 0; i + pattern.length <= c.length; i++) {
      const r = repairByPattern(c.slice(i, i + pattern.length), pattern);
      if (r && accept(r)) return r;
    }
  }
  return '';
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** Parses `DD/MM/YYYY` (separators optional or confused) into ISO `YYYY-MM-DD`, '' if none is valid. */
export function parseDmy(text: string): string {
  const t = text.replace(/[OoQD]/g, '0').replace(/[Il|]/g, '1');
  const m = /(\d{2})\s*[/.\-\s]?\s*(\d{2})\s*[/.\-\s]?\s*(\d{4})/.exec(t);
  if (!m) return '';
  const d = Number(m[1]);
  const mo = Number(m[2]);
  const y = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || y < 1900 || y > 2100) return '';
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCDate() !== d) return '';
  return `${y}-${pad2(mo)}-${pad2(d)}`;
}

function labelValue(lines: readonly OcrLine[], hit: LabelHit | null): string[] {
  return hit ? valueCandidates(lines, hit) : [];
}

/** Reads the front fields. Never throws; missing fields are ''. */
export function parseIneFront(lines: readonly OcrLine[]): IneFrontRead {
  const all = lines.map((l) => l.text);
  const labelsFound = Object.entries(INE_LABELS)
    .filter(([, label]) => lines.some((l) => containsLabel(l.text, label)))
    .map(([k]) => k);
  const issuer = all.some((t) => containsLabel(t, 'NACIONAL ELECTORAL')) ? 'INE' : all.some((t) => containsLabel(t, 'FEDERAL ELECTORAL')) ? 'IFE' : '';

  const curpHit = findLabel(lines, INE_LABELS.curp);
  const claveHit = findLabel(lines, INE_LABELS.clave);
  // Prefer the value next to its label; fall back to any line (the code formats are distinctive).
  const curp = findCode(labelValue(lines, curpHit), CURP_PATTERN) || findCode(all, CURP_PATTERN);
  const claveElector = findCode(labelValue(lines, claveHit), CLAVE_ELECTOR_PATTERN) || findCode(all, CLAVE_ELECTOR_PATTERN, (c) => c !== curp);

  const { name, address } = ineTextRegions(lines);
  const nameRows = mergeRows(name).map(cleanNameRow).map(restoreDiacritics).filter(Boolean);
  const addressRows = mergeRows(address).map((r) => restoreDiacritics(glueFix(r.toUpperCase().replace(/\s+/g, ' ').trim()))).filter(Boolean);
  // The last address row ends with the state abbreviation and a period ("MÉRIDA, YUC."): snap a misread
  // abbreviation, and a final comma (a period misread) back to the period.
  const lastRow = addressRows.length - 1;
  if (lastRow >= 0) {
    addressRows[lastRow] = addressRows[lastRow]!.replace(/,\s*([A-Z]{2,5})\s*([.,]?)\s*$/, (_m, st: string, dot: string) => `, ${snapStateAbbreviation(st)}${dot ? '.' : ''}`);
  }

  const birthHit = findLabel(lines, INE_LABELS.birth);
  let dateOfBirth = '';
  for (const v of labelValue(lines, birthHit)) if (!dateOfBirth) dateOfBirth = parseDmy(v);
  if (!dateOfBirth) for (const t of all) if (!dateOfBirth && !containsLabel(t, 'VIGENCIA')) dateOfBirth = parseDmy(t);

  const sectionHit = findLabel(lines, INE_LABELS.section);
  let section = '';
  for (const v of labelValue(lines, sectionHit)) {
    const m = /^\D{0,2}(\d{4})/.exec(compact(v).replace(/O/g, '0'));
    if (!section && m) section = m[1]!;
  }

  const validityHit = findLabel(lines, INE_LABELS.validity);
  let validUntil = '';
  for (const v of labelValue(lines, validityHit)) {
    const years = compact(v).replace(/O/g, '0').match(/(19|20)\d{2}/g);
    if (!validUntil && years?.length) validUntil = years[years.length - 1]!;
  }
  // Older models print "VIGENCIA" then the year in its own box with a dash range (e.g. "2014-2024").
  if (!validUntil) {
    for (const t of all) {
      const m = /((?:19|20)\d{2})\s*[-–]\s*((?:19|20)\d{2})/.exec(t);
      if (m) {
        validUntil = m[2]!;
        break;
      }
    }
  }

  const sexHit = findLabel(lines, INE_LABELS.sex);
  let sex: '' | 'H' | 'M' = '';
  for (const v of labelValue(lines, sexHit)) {
    const c = compact(v);
    if (!sex && (c[0] === 'H' || c[0] === 'M')) sex = c[0];
  }

  const regHit = findLabel(lines, INE_LABELS.registration);
  const registration = regHit ? (compact(labelValue(lines, regHit)[0] ?? '').match(/\d{4}\s*\d{0,2}/)?.[0] ?? '') : '';
  const issueHit = findLabel(lines, INE_LABELS.issue);
  const issueYear = issueHit ? (compact(labelValue(lines, issueHit)[0] ?? '').match(/(19|20)\d{2}/)?.[0] ?? '') : '';

  const stateHit = findLabel(lines, INE_LABELS.state);
  const codesOnOneRow = !!(stateHit && issueHit && Math.abs(stateHit.line.box.y + stateHit.line.box.h / 2 - (issueHit.line.box.y + issueHit.line.box.h / 2)) < 0.6 * stateHit.line.box.h);
  return { curp, claveElector, nameRows, addressRows, dateOfBirth, section, validUntil, sex, issuer, labelsFound, registration, issueYear, codesOnOneRow };
}

/** Upper case, keeps letters (incl. Ñ and accented vowels), spaces, apostrophes and dots; collapses spaces. */
function cleanNameRow(s: string): string {
  return s
    .toUpperCase()
    .replace(/[^A-ZÑÁÉÍÓÚÜ .'\s-]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The colony's name from the address row's text before the postal code: the credential prints `COL ` (colonia)
 * before it, which is not part of the name (issue 30), so it is dropped, also as OCR reads it (`COLCENTRO`, the
 * space lost; `C0L`, `CQL`, `COR`, `COI`). A word that starts with those letters is kept (`COLINAS DEL SUR`,
 * `COLONIAL`, `COLEGIO`), and so are the other settlement types the credential prints (`FRACC`, `BARRIO`,
 * `UNIDAD`...), which tell a different kind of place.
 */
export function colonyName(text: string): string {
  const t = text.trim();
  const spaced = /^(?:COLONIA|C[O0Q][LRI1])(?:\s+|\.\s*)(\S.*)$/.exec(t);
  if (spaced) return spaced[1]!.trim();
  // Glued to the next word, `COL` is the prefix only when the word does not itself start with it.
  const glued = /^COL([A-ZÁÉÍÓÚÑ]{3}.*)$/.exec(t);
  if (glued && !/^COL(?:INA|ON|OR|EGIO|ECT|IMA|OMB|LAD)/.test(t)) return glued[1]!.trim();
  return t;
}

/**
 * Splits the address block into the spec's `detailAddress`. Layout on the credential (INE, "Domicilio"):
 * row 1 street and number, row 2 colony followed by the 5-digit postal code, row 3 `MUNICIPALITY, STATE.`
 * (a 4-row variant wraps a long street). Parsed by content (postal code, comma), not by position alone. The
 * colony comes without its printed `COL ` prefix ({@link colonyName}).
 */
export function splitIneAddress(rows: readonly string[]): { streetAndNumber: string; colony: string; zipCode: string; city: string; state: string } {
  const r = rows.map((x) => x.trim()).filter(Boolean);
  const zipRow = r.findIndex((x) => /\b\d{5}\b\s*$/.test(x));
  let street = '';
  let colony = '';
  let zip = '';
  let cityState = '';
  if (zipRow >= 0) {
    const m = /^(.*?)[\s,]*\b(\d{5})\s*$/.exec(r[zipRow]!)!;
    colony = m[1]!.trim();
    zip = m[2]!;
    street = r.slice(0, zipRow).join(' ');
    cityState = r.slice(zipRow + 1).join(' ');
  } else {
    street = r[0] ?? '';
    colony = r[1] ?? '';
    cityState = r.slice(2).join(' ');
  }
  colony = colonyName(colony);
  let city = cityState;
  let state = '';
  const comma = cityState.lastIndexOf(',');
  if (comma >= 0) {
    city = cityState.slice(0, comma).trim();
    state = cityState.slice(comma + 1).trim();
  }
  state = state.replace(/\.+$/, '').trim();
  return { streetAndNumber: street.trim(), colony, zipCode: zip, city: city.replace(/\.+$/, '').trim(), state };
}

/** Finds the three MRZ rows of an INE back (30 characters, first starting `ID`) among OCR lines; [] if none. */
export function findTd1Lines(lines: readonly OcrLine[]): string[] {
  const cand = lines
    .map((l) => ({ l, t: mrzChars(l.text) }))
    .filter((x) => x.t.length >= 25 && x.t.length <= 34 && (x.t.includes('<') || /^[I1]D/.test(x.t)));
  const start = cand.findIndex((x) => /^[I1][DO0]/.test(x.t));
  if (start < 0) return [];
  const rows = cand.slice(start, start + 3).map((x) => fitLength(x.t, 30));
  return rows.length === 3 ? rows : [];
}

/** Folds accents and `Ñ`->`N` for comparing printed names with MRZ names (ICAO 9303 part 3 transliteration). */
export function mrzFold(s: string): string {
  return foldAccents(s).replace(/Ñ/g, 'N').replace(/[^A-Z ]/g, ' ').replace(/\s+/g, ' ').trim();
}
