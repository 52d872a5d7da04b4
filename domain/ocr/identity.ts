/**
 * Combines what the OCR read on an INE front/back or a passport page into the spec's "OCR identity result"
 * (`fields` + `validation`), using the MRZ engine (`domain/mrz`, ICAO Doc 9303) and the CURP engine
 * (`domain/curp`, RENAPO rules). Pure: `today` comes in as an argument.
 */
import { validateCurp } from '../curp/validate.ts';
import { parseMrz, readIneMrz, type MrzParseResult } from '../mrz/index.ts';
import { findTd1Lines, findTd3Lines, mrzFold, parseIneFront, splitIneAddress, type IneFrontRead } from './ine.ts';
import { OcrError } from './errors.ts';
import { containsLabel, editDistance, type OcrLine } from './text.ts';
import { enyeFromCurp } from './curp-spelling.ts';

/** `validation` of an identity result (spec "OCR identity result"). */
export interface IdentityValidation {
  mrz: 'ok' | 'failed' | 'not_present';
  mrzFields?: { documentNumberCheck: boolean; dateOfBirthCheck: boolean; dateOfExpiryCheck: boolean; compositeCheck: boolean };
  curp: 'ok' | 'failed' | 'not_present';
  expired: boolean | null;
}

/** `fields` for `ine` (all strings; '' when not read). */
export interface IneFields {
  curp: string;
  claveElector: string;
  name: string;
  firstSurname: string;
  secondSurname: string;
  surname: string;
  dateOfBirth: string;
  dateOfExpiry: string;
  gender: string;
  address: string;
  detailAddress: { streetAndNumber: string; colony: string; zipCode: string; city: string; state: string };
  section: string;
  mrz: string;
  documentVersion: string;
}

/** `fields` for `passport`. */
export interface PassportFields {
  curp: string;
  documentNumber: string;
  name: string;
  firstSurname: string;
  secondSurname: string;
  surname: string;
  dateOfBirth: string;
  dateOfExpiry: string;
  gender: string;
  nationality: string;
  issuingCountry: string;
  mrz: string;
  documentVersion: string;
}

/** Agreement checks between sources, feeding the authenticity score (`true` agree, `false` disagree, `null` not comparable). */
export interface CrossChecks {
  mrzVsFront: { name: boolean | null; dateOfBirth: boolean | null; sex: boolean | null; section: boolean | null };
  curpVsData: { initials: boolean | null; dateOfBirth: boolean | null; sex: boolean | null };
  /** Expected labels of the detected model found on the front (0..1). */
  layoutScore: number;
}

export interface IdentityResult<F> {
  fields: F;
  validation: IdentityValidation;
  cross: CrossChecks;
}

/**
 * `expired` rule: a full date expires after that day; a year-only expiry (INE "VIGENCIA 2030") means the
 * end of that year (valid through 31 December). `today` is `YYYY-MM-DD`. Null when no expiry was read.
 */
export function isExpired(dateOfExpiry: string, today: string): boolean | null {
  if (/^\d{4}$/.test(dateOfExpiry)) return `${dateOfExpiry}-12-31` < today;
  if (/^\d{4}-\d{2}-\d{2}$/.test(dateOfExpiry)) return dateOfExpiry < today;
  return null;
}

function curpStatus(curp: string, today: string): 'ok' | 'failed' | 'not_present' {
  if (!curp) return 'not_present';
  return validateCurp(curp, { today }).valid ? 'ok' : 'failed';
}

function mrzValidation(m: MrzParseResult | null): Pick<IdentityValidation, 'mrz' | 'mrzFields'> {
  if (!m) return { mrz: 'not_present' };
  if (!m.valid) return { mrz: 'failed' };
  const s = m.checkSummary;
  return {
    mrz: 'ok',
    mrzFields: {
      documentNumberCheck: s.documentNumberCheck ?? true,
      dateOfBirthCheck: s.dateOfBirthCheck ?? true,
      dateOfExpiryCheck: s.dateOfExpiryCheck ?? true,
      compositeCheck: s.compositeCheck ?? true,
    },
  };
}

/** First letter of a name part after leading particles (RENAPO: DE, DEL, LA, LAS, LOS, Y, MC, MAC, VAN, VON...). */
function initialOf(part: string): string {
  const particles = new Set(['DA', 'DAS', 'DE', 'DEL', 'DER', 'DI', 'DIE', 'DD', 'EL', 'LA', 'LOS', 'LAS', 'LE', 'LES', 'MAC', 'MC', 'VAN', 'VON', 'Y']);
  const words = mrzFold(part).split(' ').filter((w) => w && !particles.has(w));
  return words[0]?.[0] ?? '';
}

function givenInitial(names: string): string {
  const skip = new Set(['MARIA', 'MA', 'JOSE', 'J', 'M']);
  const words = mrzFold(names).split(' ').filter(Boolean);
  const w = words.length > 1 && skip.has(words[0]!) ? words[1]! : words[0];
  return w?.[0] ?? '';
}

/**
 * INE model letter (`documentVersion`) from printed cues (INE's published descriptions of the models):
 * - `IFE` heading, or the EDAD/FOLIO boxes: models A-D (IFE, 1991-2013). D (2008-2013) carries the CURP;
 *   C has EDAD but no CURP; B FOLIO only; A neither.
 * - `INE` heading (2014-): E (2014) and F (2016) print ESTADO, MUNICIPIO, LOCALIDAD and EMISIÓN boxes;
 *   F prints those codes on one row of labels with the values below, E next to their labels.
 *   G (2019-) drops those boxes.
 * Returns '' when neither heading nor model cues were read.
 */
export function detectIneModel(front: IneFrontRead): string {
  const has = (k: string) => front.labelsFound.includes(k);
  if (front.issuer === 'IFE' || has('age') || has('folio')) {
    if (front.curp || has('curp')) return 'D';
    if (has('age')) return 'C';
    return has('folio') ? 'B' : 'A';
  }
  if (front.issuer === 'INE' || has('clave')) {
    if (has('state') || has('municipality') || has('locality') || has('issue')) return front.codesOnOneRow ? 'F' : 'E';
    return 'G';
  }
  return '';
}

const FRONT_EXPECTED: Record<string, string[]> = {
  A: ['name', 'address', 'clave', 'sex'],
  B: ['name', 'address', 'clave', 'folio', 'sex'],
  C: ['name', 'address', 'clave', 'age', 'sex', 'state', 'municipality', 'section'],
  D: ['name', 'address', 'clave', 'curp', 'age', 'sex', 'folio', 'registration', 'state', 'municipality', 'section', 'locality', 'issue', 'validity'],
  E: ['name', 'address', 'clave', 'curp', 'sex', 'registration', 'birth', 'state', 'municipality', 'section', 'locality', 'issue', 'validity'],
  F: ['name', 'address', 'clave', 'curp', 'sex', 'registration', 'birth', 'state', 'municipality', 'section', 'locality', 'issue', 'validity'],
  G: ['name', 'address', 'clave', 'curp', 'sex', 'registration', 'birth', 'section', 'validity'],
};

/** True when the lines look like an INE front (labels), used to reject a front sent as a back. */
export function looksLikeIneFront(lines: readonly OcrLine[]): boolean {
  // NOMBRE and CURP also appear on passports; these do not.
  const n = ['DOMICILIO', 'CLAVE DE ELECTOR', 'CREDENCIAL PARA VOTAR', 'ELECTORAL'].filter((l) => lines.some((x) => containsLabel(x.text, l))).length;
  return n >= 2;
}

/**
 * The issuing state of a machine-readable zone printed among `lines` when it is not Mexico's, else null: the
 * first row of a TD1 or TD2 card (`I`, `A` or `C`, a second letter or filler, then the three-letter state;
 * ICAO Doc 9303 parts 5 and 6, 4.2.2) read with at least three fillers. A foreign identity card carries it
 * on the side with the photo; an INE credential carries its own (`IDMEX`) on the back only.
 */
export function foreignMrzState(lines: readonly OcrLine[]): string | null {
  for (const l of lines) {
    const t = l.text.replace(/\s+/g, '').toUpperCase();
    if (t.length < 28 || (t.match(/</g) ?? []).length < 3 || !/^[A-Z0-9<]+$/.test(t)) continue;
    const m = /^[ACI][A-Z<]([A-Z]{3})/.exec(t);
    if (m && m[1] !== 'MEX') return m[1]!;
  }
  return null;
}

/** True when the lines look like a utility bill or other non-identity document. */
export function looksLikeBill(lines: readonly OcrLine[]): boolean {
  const n = ['TOTAL A PAGAR', 'PERIODO', 'FECHA LIMITE', 'NO. DE SERVICIO', 'NUMERO DE CUENTA', 'FACTURA', 'RECIBO'].filter((l) => lines.some((x) => containsLabel(x.text, l))).length;
  return n >= 2;
}

/**
 * Builds the INE identity result.
 * @param frontLines OCR lines of the front (name/address rows preferably re-read with a Spanish model)
 * @param backLines OCR lines of the back, or null when no back was sent
 * @param today `YYYY-MM-DD`
 * @throws OcrError `wrong_side` (a back sent as front or vice versa), `wrong_document_type` (a bill or a passport)
 */
export function buildIneResult(frontLines: readonly OcrLine[], backLines: readonly OcrLine[] | null, today: string): IdentityResult<IneFields> {
  // A passport data page (a TD3 machine-readable zone, which no voter credential carries) is refused before
  // any field is read: a Mexican passport prints the holder's CURP, and a Czech specimen's page yielded a
  // CURP-shaped token, so the field test below alone let both through as a credential.
  // Likewise a foreign identity card (its TD1/TD2 zone next to the photo): a Romanian card's zone yielded a
  // clave-shaped token and its expiry was taken for a date of birth (200, charged).
  if (!looksLikeIneFront(frontLines)) {
    if (findTd3Lines(frontLines).length) throw new OcrError('wrong_document_type', 'The image is a passport; send document_type=passport.');
    const foreign = foreignMrzState(frontLines);
    if (foreign) throw new OcrError('wrong_document_type', `The image is an identity document issued by ${foreign}, not a Mexican voter credential.`);
  }
  const front = parseIneFront(frontLines);
  // Without a CURP or clave de elector, name rows alone do not make a credential: a bill has a holder's name too.
  if (!front.curp && !front.claveElector && (front.nameRows.length === 0 || looksLikeBill(frontLines))) {
    if (findTd1Lines(frontLines).length) throw new OcrError('wrong_side', 'The front image shows the back of the credential (MRZ); send the side with the photo as front.');
    if (looksLikeBill(frontLines)) throw new OcrError('wrong_document_type', 'The image is a utility bill, not a voter credential; use /v1/ocr/extract/document.');
    throw new OcrError('wrong_document_type', 'No voter-credential fields (NOMBRE, CURP, CLAVE DE ELECTOR) were found on the front image.');
  }
  const refYear = Number(today.slice(0, 4));
  let mrz: MrzParseResult | null = null;
  let mrzText = '';
  if (backLines) {
    const rows = findTd1Lines(backLines);
    if (!rows.length && looksLikeIneFront(backLines)) throw new OcrError('wrong_side', 'The back image shows the front of the credential; send the side with the MRZ as back.');
    if (rows.length) {
      mrz = parseMrz(rows, { referenceYear: refYear });
      mrzText = mrz.lines.join('\n');
    }
  }

  // Name rows: [first surname, second surname, given names]; a single-surname holder has two rows.
  const rows = front.nameRows;
  let firstSurname = rows[0] ?? '';
  let secondSurname = rows.length >= 3 ? rows[1]! : '';
  let name = rows.length >= 3 ? rows.slice(2).join(' ') : (rows[1] ?? '');
  const curpV = front.curp ? validateCurp(front.curp, { today }) : null;
  const comps = curpV?.components ?? null;

  let dateOfBirth = front.dateOfBirth;
  let gender: string = front.sex;
  let section = front.section;
  const cross: CrossChecks = {
    mrzVsFront: { name: null, dateOfBirth: null, sex: null, section: null },
    curpVsData: { initials: null, dateOfBirth: null, sex: null },
    layoutScore: 0,
  };

  const ine = mrz && mrz.format ? readIneMrz(mrz, { curp: front.curp || null, knownSurnames: rows.length >= 3 ? [mrzFold(rows[0]!), mrzFold(rows[1]!)] : undefined }) : null;
  if (ine && mrz?.valid) {
    // MRZ values are authoritative (check digits passed); the front keeps Ñ/accents where it agrees.
    // TD1 line 3 holds 30 characters: a long name is truncated there (ICAO 9303 part 3, 4.6), so a front
    // reading that extends the MRZ's is kept.
    const truncated = (mrz?.lines[2] ?? '').length === 30 && !(mrz?.lines[2] ?? '').endsWith('<');
    // Line 3 (the name) carries no check digit: a printed reading within OCR distance of it (at most
    // max(2, one edit per five letters) over the whole name) is the same name misread on one side, and
    // the printed one keeps Ñ/accents; a larger difference is a contradiction, and the MRZ wins.
    const frontName = mrzFold(`${firstSurname} ${secondSurname} ${name}`);
    const mrzName = mrzFold(`${ine.firstSurname} ${ine.secondSurname} ${ine.names}`);
    const sameName =
      rows.length > 0 && (editDistance(frontName, mrzName) <= Math.max(2, Math.floor(mrzName.length / 5)) || (truncated && frontName.startsWith(mrzName)));
    cross.mrzVsFront.name = rows.length ? sameName : null;
    // The MRZ writes names without accents or Ñ (Doc 9303 part 3 transliteration): taken as it is, never
    // with accents added (issue 18: an identity service writes only what was read).
    const keep = (printed: string, fromMrz: string) => (sameName && printed ? printed : fromMrz);
    firstSurname = keep(firstSurname, ine.firstSurname);
    secondSurname = keep(secondSurname, ine.secondSurname);
    name = keep(name, ine.names);
    if (ine.dateOfBirth) {
      cross.mrzVsFront.dateOfBirth = front.dateOfBirth ? front.dateOfBirth === ine.dateOfBirth : null;
      dateOfBirth = ine.dateOfBirth;
    }
    if (ine.gender) {
      cross.mrzVsFront.sex = front.sex ? front.sex === ine.gender : null;
      gender = ine.gender;
    }
    if (ine.section) {
      cross.mrzVsFront.section = front.section ? front.section === ine.section : null;
      if (!section) section = ine.section;
    }
  } else if (comps) {
    // No (valid) back: the spec derives the date of birth from the CURP (positions 5-10, century from 17).
    if (comps.birth_date) dateOfBirth = comps.birth_date;
    if (!gender && comps.sex) gender = comps.sex;
  }
  // An `N` the CURP (check digit passed) shows to be an `Ñ` (RENAPO writes Ñ as X): the recogniser saw the letter.
  if (curpV?.valid) [firstSurname, secondSurname, name] = enyeFromCurp(front.curp, firstSurname, secondSurname, name);
  if (comps) {
    const initials = comps.name_initials;
    if (firstSurname && name) {
      const i1 = initialOf(firstSurname);
      const i3 = secondSurname ? initialOf(secondSurname) : 'X';
      const i4 = givenInitial(name);
      cross.curpVsData.initials = initials[0] === i1 && initials[2] === i3 && initials[3] === i4;
    }
    if (comps.birth_date && dateOfBirth) cross.curpVsData.dateOfBirth = comps.birth_date === dateOfBirth;
    if (comps.sex && gender) cross.curpVsData.sex = comps.sex === gender;
  }

  const documentVersion = detectIneModel(front);
  const expected = FRONT_EXPECTED[documentVersion] ?? [];
  cross.layoutScore = expected.length ? expected.filter((k) => front.labelsFound.includes(k)).length / expected.length : 0;

  let dateOfExpiry = front.validUntil;
  if (!dateOfExpiry && ine?.dateOfExpiry) dateOfExpiry = ine.dateOfExpiry.slice(0, 4);

  const detail = splitIneAddress(front.addressRows);
  const fields: IneFields = {
    curp: front.curp,
    claveElector: front.claveElector,
    name,
    firstSurname,
    secondSurname,
    surname: `${firstSurname} ${secondSurname}`.trim(),
    dateOfBirth,
    dateOfExpiry,
    gender,
    address: front.addressRows.join(' '),
    detailAddress: detail,
    section,
    mrz: mrzText,
    documentVersion,
  };
  return {
    fields,
    validation: { ...mrzValidation(mrz), curp: curpStatus(front.curp, today), expired: isExpired(dateOfExpiry, today) },
    cross,
  };
}
