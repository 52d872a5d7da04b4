/**
 * Passport data page (ICAO Doc 9303 part 4, TD3: 2 x 44 MRZ plus the visual inspection zone).
 * The MRZ is authoritative for number, dates, sex, nationality and issuing state; the visual zone gives
 * the CURP (Mexican passports print it), the split of the surnames and the accented spelling.
 */
import { validateCurp } from '../curp/validate.ts';
import { mrzName, parseMrz, type MrzParseResult } from '../mrz/index.ts';
import { findLabel, valueCandidates } from './layout.ts';
import { findTd1Lines, mrzFold } from './ine.ts';
import { td3Candidates } from './mrz-zone.ts';
import { isExpired, looksLikeBill, looksLikeIneFront, type IdentityResult, type IdentityValidation, type PassportFields } from './identity.ts';
import { enyeFromCurp } from './curp-spelling.ts';
import { OcrError } from './errors.ts';
import { passportNameLines, passportNames, splitSurnames } from './passport-names.ts';
import { CURP_PATTERN, compact, editDistance, repairByPattern, type OcrLine } from './text.ts';

/**
 * The first 18-character run of a visual-zone line that fits the CURP pattern once confusable characters
 * are repaired by position (`repairByPattern`); MRZ rows (holding `<`) are skipped: a foreign passport's
 * row 2 (`…CZE1101018M…`) fits the pattern by accident. `''` when none.
 */
export function findCurp(lines: readonly OcrLine[]): string {
  for (const l of lines) {
    if (l.text.includes('<')) continue;
    const c = compact(l.text);
    for (let i = 0; i + 18 <= c.length; i++) {
      const r = repairByPattern(c.slice(i, i + 18), CURP_PATTERN);
      if (r) return r;
    }
  }
  return '';
}

/**
 * TD3 row 2 with its personal number (positions 29-42) written as fillers when it reads as at least 4 fillers
 * followed by fillers and filler look-alikes only (`<<<<<<<<<CC<CC`: a small UK specimen's empty field, whose
 * chevrons the recogniser read `C`, with check digits that happen to pass), else null. A personal number
 * starts at the left of its field and is padded with fillers on the right (ICAO Doc 9303 part 4, 4.2.2), so
 * letters scattered in the fillers are not one; the caller keeps the all-filler reading only when it passes
 * every check digit.
 */
export function fillerPersonalNumber(row2: string): string | null {
  if (row2.length !== 44) return null;
  const field = row2.slice(28, 42);
  if (!/^<{4,}[<CKEL]*$/.test(field) || !/[^<]/.test(field)) return null;
  return row2.slice(0, 28) + '<'.repeat(14) + row2.slice(42);
}

/** The visual-zone value lines of the surnames and given names (for a Spanish re-read with accents). */
export function passportTextRegions(lines: readonly OcrLine[]): OcrLine[] {
  return passportNameLines(lines);
}

export { splitSurnames };

/** The three-letter code under `Clave del país / Code of issuing State` in the visual zone, or ''. */
export function issuingStateInViz(lines: readonly OcrLine[]): string {
  const hit = findLabel(lines, ['CLAVE DEL PAIS / CODE OF ISSUING STATE', 'CLAVE DEL PAIS', 'CODE OF ISSUING STATE']);
  if (!hit) return '';
  for (const v of valueCandidates(lines, hit)) {
    const c = compact(v);
    if (/^[A-Z]{3}$/.test(c)) return c;
  }
  return '';
}

/**
 * Builds the passport identity result from the page's OCR lines (upright boxes). The TD3 zone is found by
 * `td3Candidates` (split rows rejoined); among its readings the first that passes every check digit is
 * kept. Names: `passportNames` (visual zone, MRZ and CURP reconciled); the MRZ name field is rewritten from
 * the visual zone's names when they agree with it within OCR noise or the CURP confirms them.
 * @throws OcrError `wrong_document_type` when no TD3 MRZ is found (with a hint when it is an INE or a bill)
 */
export function buildPassportResult(lines: readonly OcrLine[], today: string): IdentityResult<PassportFields> {
  const candidates = td3Candidates(lines);
  if (!candidates.length) {
    if (looksLikeIneFront(lines) || findTd1Lines(lines).length) throw new OcrError('wrong_document_type', 'The image is a voter credential; send document_type=ine.');
    if (looksLikeBill(lines)) throw new OcrError('wrong_document_type', 'The image is a utility bill; use /v1/ocr/extract/document.');
    throw new OcrError('wrong_document_type', 'No passport machine readable zone (2 lines of 44 characters) was found.');
  }
  // Check-digit-guided choice among the readings of the zone (the first unless a variant passes every check).
  // A reading whose personal number is fillers with filler look-alikes among them comes first as all fillers
  // when that passes every check too (`fillerPersonalNumber`).
  const readings = candidates.flatMap((rows) => {
    const f = fillerPersonalNumber(rows[1]);
    return f ? [[rows[0], f] as [string, string], rows] : [rows];
  });
  const parsed = readings.map((rows) => parseMrz(rows, { referenceYear: Number(today.slice(0, 4)) }));
  let m: MrzParseResult = parsed.find((p) => p.valid) ?? parsed[readings.indexOf(candidates[0]!)]!;
  const f0 = m.fields;
  const curp = findCurp(lines);
  const curpOk = curp ? validateCurp(curp, { today }).valid : false;
  // The issuing state and nationality fields of the MRZ are codes, never names (a Taiwanese page printed `TWN` by its name).
  const codes = [m.lines[0]!.slice(2, 5), f0.issuingState ?? '', f0.nationality ?? ''].map((c) => c.replace(/[^A-Z]/g, '')).filter((c) => c.length === 3);
  const names = passportNames(lines, (f0.lastName ?? '').trim(), (f0.firstName ?? '').trim(), curpOk ? curp : '', codes);
  // The MRZ name field carries no check digit and the recogniser drops characters in it; when the visual
  // zone's names agree with it within OCR noise, or the CURP confirms them, the field is the visual zone's
  // names transliterated (Doc 9303 part 3, 6: what the issuer prints there).
  // The issuing state (row 1, positions 3-5) has no check digit either: a code printed in the visual zone
  // one character away from it is taken.
  const vizState = issuingStateInViz(lines);
  const mrzState = m.lines[0]!.slice(2, 5);
  const state = vizState && vizState !== mrzState && editDistance(vizState, mrzState) <= 1 ? vizState : mrzState;
  const nameField = names.fromVisualZone && (names.mrzAgrees || names.confirmedByCurp) ? mrzName(names.surnames, names.givenNames, 39) : m.lines[0]!.slice(5);
  const row1 = m.lines[0]!.slice(0, 2) + state + nameField;
  if (row1 !== m.lines[0] && m.lines.length === 2) m = parseMrz([row1, m.lines[1]!], { referenceYear: Number(today.slice(0, 4)) });
  const f = m.fields;
  // An `N` the CURP shows to be an `Ñ` (RENAPO writes Ñ as X; `curp-spelling.ts`); nothing else is added to what was read.
  const [firstSurname, secondSurname, name] = curpOk ? enyeFromCurp(curp, ...splitSurnames(names.surnames), names.givenNames) : [...splitSurnames(names.surnames), names.givenNames];
  const surnames = `${firstSurname} ${secondSurname}`.trim();
  const sex = f.sex === 'M' ? 'H' : f.sex === 'F' ? 'M' : '';

  const s = m.checkSummary;
  const validation: IdentityValidation = {
    mrz: m.valid ? 'ok' : 'failed',
    ...(m.valid
      ? {
          mrzFields: {
            documentNumberCheck: s.documentNumberCheck ?? true,
            dateOfBirthCheck: s.dateOfBirthCheck ?? true,
            dateOfExpiryCheck: s.dateOfExpiryCheck ?? true,
            compositeCheck: s.compositeCheck ?? true,
          },
        }
      : {}),
    curp: curp ? (validateCurp(curp, { today }).valid ? 'ok' : 'failed') : 'not_present',
    expired: isExpired(f.dateOfExpiryIso ?? '', today),
  };
  const comps = curp ? validateCurp(curp, { today }).components : null;
  return {
    fields: {
      curp,
      documentNumber: f.documentNumber ?? '',
      name,
      firstSurname,
      secondSurname,
      surname: surnames,
      dateOfBirth: f.dateOfBirthIso ?? '',
      dateOfExpiry: f.dateOfExpiryIso ?? '',
      gender: sex,
      nationality: f.nationality ?? '',
      issuingCountry: f.issuingState ?? '',
      mrz: m.lines.join('\n'),
      documentVersion: '',
    },
    validation,
    cross: {
      mrzVsFront: {
        name: names.mrzAgrees,
        dateOfBirth: null,
        sex: null,
        section: null,
      },
      curpVsData: {
        initials: comps && firstSurname ? comps.name_initials[0] === mrzFold(firstSurname.replace(/^((DE|DEL|LA|LAS|LOS|Y|MC|VAN|VON)\s+)+/, ''))[0] : null,
        // Only against an MRZ whose check digits passed: a misread MRZ is not a contradiction.
        dateOfBirth: m.valid && comps?.birth_date && f.dateOfBirthIso ? comps.birth_date === f.dateOfBirthIso : null,
        sex: m.valid && comps?.sex && sex ? comps.sex === sex : null,
      },
      layoutScore: names.labelsFound / 2,
    },
  };
}
