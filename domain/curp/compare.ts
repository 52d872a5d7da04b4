/**
 * Consistency of a CURP with the personal data it should encode (e.g. the name and birth date read
 * from an identity document by OCR). Rules as in `generate.ts` (Instructivo Normativo, DOF 18-10-2021).
 */
import { curpInternalConsonants, curpNameInitials, curpStateCode, parseIsoDate } from './generate.ts';

/** Parts of a CURP that can disagree with personal data. */
export type CurpMismatch = 'name_initials' | 'internal_consonants' | 'birth_date' | 'sex' | 'state';

/** Result of {@link compareCurpWithPerson}. */
export interface CurpPersonComparison {
  /** True when every part that could be compared agrees. */
  consistent: boolean;
  mismatches: CurpMismatch[];
  /** Parts not compared because the data lack them or are malformed. */
  unchecked: CurpMismatch[];
}

/**
 * Compares an 18-character CURP (assumed upper case, e.g. from `validateCurp(...).curp`) with personal
 * data; every field is optional, absent ones are reported as `unchecked`. Names follow the generation
 * rules (particles, MARIA/JOSE, Ñ -> X, inconvenient words), so `HEGG...` agrees with
 * "Gloria Hernández García". The homonym character and check digit are not compared: only RENAPO
 * assigns the former. Never throws.
 */
export function compareCurpWithPerson(
  curp: string,
  person: { nombres?: string | null; primerApellido?: string | null; segundoApellido?: string | null; fechaNacimiento?: string | null; sexo?: string | null; entidad?: string | null },
): CurpPersonComparison {
  const mismatches: CurpMismatch[] = [];
  const unchecked: CurpMismatch[] = [];
  const c = curp.trim().toUpperCase();
  if (c.length !== 18) return { consistent: false, mismatches: ['name_initials', 'internal_consonants', 'birth_date', 'sex', 'state'], unchecked: [] };

  if (person.nombres?.trim() && person.primerApellido?.trim()) {
    const names = { nombres: person.nombres, primerApellido: person.primerApellido, segundoApellido: person.segundoApellido ?? null };
    try {
      if (curpNameInitials(names) !== c.slice(0, 4)) mismatches.push('name_initials');
      if (curpInternalConsonants(names) !== c.slice(13, 16)) mismatches.push('internal_consonants');
    } catch {
      unchecked.push('name_initials', 'internal_consonants');
    }
  } else unchecked.push('name_initials', 'internal_consonants');

  const date = person.fechaNacimiento ? parseIsoDate(person.fechaNacimiento) : null;
  if (date) {
    const century = /[0-9]/.test(c[16]!) ? 1900 : 2000;
    const yymmdd = person.fechaNacimiento!.slice(2, 4) + person.fechaNacimiento!.slice(5, 7) + person.fechaNacimiento!.slice(8, 10);
    if (yymmdd !== c.slice(4, 10) || Math.floor(date.year / 100) * 100 !== century) mismatches.push('birth_date');
  } else unchecked.push('birth_date');

  if (person.sexo === 'H' || person.sexo === 'M') {
    if (person.sexo !== c[10]) mismatches.push('sex');
  } else unchecked.push('sex');

  const state = person.entidad ? curpStateCode(person.entidad) : undefined;
  if (state) {
    if (state !== c.slice(11, 13)) mismatches.push('state');
  } else unchecked.push('state');

  return { consistent: mismatches.length === 0, mismatches, unchecked };
}
