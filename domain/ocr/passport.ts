/**
 * Passport data page (ICAO Doc 9303 part 4, TD3: 2 x 44 MRZ plus the visual inspection zone).
 * The MRZ is authoritative for number, dates, sex, nationality and issuing state; the visual zone gives
 * the CURP (Mexican passports print it), the split of the surnames and the accented spelling.
 */
import { validateCurp } from '../curp/validate.ts';
import { parseMrz, type MrzParseResult } from '../mrz/index.ts';
import { below, findLabel, valueCandidates } from './layout.ts';
import { findTd1Lines, mrzFold } from './ine.ts';
import { td3Candidates } from './mrz-zone.ts';
import { isExpired, looksLikeBill, looksLikeIneFront, type IdentityResult, type IdentityValidation, type PassportFields } from './identity.ts';
import { OcrError } from './errors.ts';
import { restoreDiacritics } from './lexicon.ts';
import { CURP_PATTERN, compact, editDistance, repairByPattern, type OcrLine } from './text.ts';

function findCurp(lines: readonly OcrLine[]): string {
  for (const l of lines) {
    const c = compact(l.text);
    for (let i = 0; i + 18 <= c.length; i++) {
      const r = repairByPattern(c.slice(i, i + 18), CURP_PATTERN);
      if (r) return r;
    }
  }
  return '';
}

function cleanName(s: string): string {
  return restoreDiacritics(s.toUpperCase().replace(/[^A-ZÑÁÉÍÓÚÜ '\s-]/g, '').replace(/\s+/g, ' ').trim());
}

const SURNAME_LABELS = ['APELLIDOS / SURNAME', 'APELLIDOS', 'SURNAME'];
const GIVEN_LABELS = ['NOMBRES / GIVEN NAMES', 'NOMBRES', 'GIVEN NAMES'];

/** The visual-zone value lines of the surnames and given names (for a Spanish re-read with accents). */
export function passportTextRegions(lines: readonly OcrLine[]): OcrLine[] {
  const out: OcrLine[] = [];
  for (const labels of [SURNAME_LABELS, GIVEN_LABELS]) {
    const hit = findLabel(lines, labels);
    if (!hit) continue;
    const b = below(lines, hit);
    if (b) out.push(b);
  }
  return out;
}

const PARTICLES = new Set(['DE', 'DEL', 'LA', 'LAS', 'LOS', 'Y', 'MC', 'MAC', 'VAN', 'VON', 'SAN', 'SANTA']);

/**
 * Splits the printed surnames into first and second: particles (DE, DEL, LA, LOS, Y...) belong to the
 * word after them (`DEL ÁNGEL ZÚÑIGA` -> `DEL ÁNGEL` + `ZÚÑIGA`; `DE LA CRUZ PÉREZ` -> `DE LA CRUZ` + `PÉREZ`).
 */
export function splitSurnames(surnames: string): [string, string] {
  const groups: string[] = [];
  let pending: string[] = [];
  for (const w of surnames.split(' ').filter(Boolean)) {
    pending.push(w);
    if (!PARTICLES.has(mrzFold(w))) {
      groups.push(pending.join(' '));
      pending = [];
    }
  }
  if (pending.length) groups.push(pending.join(' '));
  return [groups[0] ?? '', groups.slice(1).join(' ')];
}

/**
 * Builds the passport identity result.
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
  const parsed = candidates.map((rows) => parseMrz(rows, { referenceYear: Number(today.slice(0, 4)) }));
  const m: MrzParseResult = parsed.find((p) => p.valid) ?? parsed[0]!;
  const f = m.fields;
  const curp = findCurp(lines);

  // Visual zone surnames ("Apellidos / Surname") and given names ("Nombres / Given names").
  const surnHit = findLabel(lines, SURNAME_LABELS);
  const givenHit = findLabel(lines, GIVEN_LABELS);
  // A candidate starting with '/' is the rest of a bilingual label ("Apellidos/Sumames"), not a value.
  const pick = (hit: typeof surnHit, labelWords: RegExp) =>
    hit ? cleanName(valueCandidates(lines, hit).find((v) => !v.trim().startsWith('/') && cleanName(v).length > 1 && !labelWords.test(compact(v))) ?? '') : '';
  const vizSurnames = pick(surnHit, /SURNAME|SUMAME|APELLIDO/);
  const vizGiven = pick(givenHit, /GIVEN|NAMES|NOMBRE/);

  const mrzSurnames = (f.lastName ?? '').trim();
  const mrzGiven = (f.firstName ?? '').trim();
  // The MRZ name is transliterated (no Ñ/accents) and not covered by any check digit; the printed
  // visual zone is the better source when read, the MRZ the fallback.
  // Labels too small to read: the printed line closest to the MRZ's name (edit distance on folded text)
  // is the visual-zone value; it repairs MRZ characters the recogniser dropped and carries the accents.
  const nearest = (target: string): string => {
    const t = mrzFold(target);
    if (t.length < 3) return '';
    let best = '';
    let bestD = Math.max(2, Math.floor(t.length / 5)) + 1;
    for (const l of lines) {
      const c = cleanName(l.text);
      if (!c || /</.test(l.text)) continue;
      const d = editDistance(mrzFold(c), t);
      if (d < bestD) {
        bestD = d;
        best = c;
      }
    }
    return best;
  };
  const surnames = vizSurnames || nearest(mrzSurnames) || restoreDiacritics(mrzSurnames);
  const name = vizGiven || nearest(mrzGiven) || restoreDiacritics(mrzGiven);
  const [firstSurname, secondSurname] = splitSurnames(surnames);
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
        name: vizSurnames ? mrzFold(vizSurnames) === mrzFold(mrzSurnames) : null,
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
      layoutScore: [surnHit, givenHit].filter(Boolean).length / 2,
    },
  };
}
