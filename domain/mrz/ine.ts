/**
 * Conventions of the MRZ on the back of the Mexican INE voter credential (`credencial para
 * votar`, models D-H, which carry a TD1 MRZ: `IDMEX...`, 3 x 30).
 *
 * INE publishes no MRZ specification; what follows is what the cards carry as described in public
 * material, and what our synthetic generator renders (see docs/mrz.md):
 * - line 1: `ID` + `MEX` + the CIC (Código de Identificación de la Credencial, 9 digits) as the
 *   document number + its Doc 9303 check digit + `<<` + 13 digits: the electoral section
 *   (4 digits) followed by the citizen identifier (identificador del ciudadano, 9 digits).
 *   Model D (IFE 2008-2013) uses the same 13-digit slot for its "OCR" number.
 * - line 2: TD1 standard: date of birth, sex, date of expiry (the card prints only the expiry
 *   year; the MRZ carries 31 December of that year), `MEX`, optional data (emission number),
 *   composite check digit.
 * - line 3: `FIRSTSURNAME<SECONDSURNAME<<GIVEN<NAMES`, transliterated (Ñ -> N, accents dropped).
 * - sex: the front prints `H` (hombre) / `M` (mujer); the MRZ follows ICAO (`M` male, `F` female).
 *   Because `M` means opposite things on the two sides, {@link ineGender} resolves it (and
 *   accepts `H`, which some readers and forged cards put in the MRZ).
 */
import type { MrzParseResult } from './parse.ts';
import { buildTd1, transliterateForMrz } from './build.ts';

/** INE fields read from a parsed `IDMEX` MRZ. Dates ISO `YYYY-MM-DD`; `null` when unreadable. */
export interface IneMrzData {
  /** CIC, 9 digits (the MRZ document number). */
  readonly cic: string | null;
  /** The 13 digits after `<<` on line 1 (section + citizen identifier; model D's OCR number). */
  readonly ocr: string | null;
  /** Identificador del ciudadano: last 9 of the 13 digits. */
  readonly identificadorCiudadano: string | null;
  /** Electoral section: first 4 of the 13 digits. */
  readonly section: string | null;
  /** Whole primary identifier with spaces (`GARCIA DE LA CRUZ`). */
  readonly surnames: string;
  /** First surname: first word of the primary identifier unless `knownSurnames` splits it. */
  readonly firstSurname: string;
  readonly secondSurname: string;
  readonly names: string;
  /** Front convention: `H` hombre, `M` mujer. */
  readonly gender: 'H' | 'M' | null;
  readonly dateOfBirth: string | null;
  readonly dateOfExpiry: string | null;
  /** Year of `dateOfExpiry`, as the front prints it (`VIGENCIA 2031`). */
  readonly expiryYear: string | null;
}

/**
 * Maps the MRZ sex character of an INE credential to the front's `H`/`M`.
 * `F` -> `M`; `H` -> `H`; `M` is ICAO "male" -> `H`, unless the CURP (position 11, `H`/`M`) says
 * `M` and no other sign exists, then the card used the Spanish letter: `M` -> `M`.
 * @returns `null` for `<`, `X` or anything else.
 */
export function ineGender(mrzSex: string | null, curp?: string | null): 'H' | 'M' | null {
  if (mrzSex === 'F') return 'M';
  if (mrzSex === 'H') return 'H';
  if (mrzSex === 'M') return curp && curp.length >= 11 && curp.charAt(10) === 'M' ? 'M' : 'H';
  return null;
}

/**
 * Reads the INE fields of a parsed MRZ.
 * @param knownSurnames the surnames as printed on the front, if read; used to split a compound
 *   primary identifier (`DE<LA<CRUZ<PEREZ`) the MRZ alone cannot split.
 * @returns `null` when `mrz` is not an INE (`IDMEX`) TD1.
 */
export function readIneMrz(mrz: MrzParseResult, opts: { curp?: string | null; knownSurnames?: readonly [string, string] } = {}): IneMrzData | null {
  if (!mrz.ine || mrz.format !== 'TD1') return null;
  const digits = (v: string | undefined, n: number) => (v !== undefined && new RegExp(`^\\d{${n}}$`).test(v) ? v : null);
  const ocr = digits(mrz.raw.optional1, 13);
  const surnames = mrz.fields.lastName ?? '';
  let firstSurname = surnames;
  let secondSurname = '';
  const known = opts.knownSurnames?.map((s) => transliterateForMrz(s).replace(/</g, ' '));
  if (known && known[0] && `${known[0]} ${known[1]}`.trim() === surnames) {
    firstSurname = known[0];
    secondSurname = known[1] ?? '';
  } else {
    const sp = surnames.indexOf(' ');
    if (sp > 0) {
      firstSurname = surnames.slice(0, sp);
      secondSurname = surnames.slice(sp + 1);
    }
  }
  return {
    cic: digits(mrz.fields.documentNumber ?? undefined, 9),
    ocr,
    identificadorCiudadano: ocr ? ocr.slice(4) : null,
    section: ocr ? ocr.slice(0, 4) : null,
    surnames,
    firstSurname,
    secondSurname,
    names: mrz.fields.firstName ?? '',
    gender: ineGender(mrz.fields.sex, opts.curp),
    dateOfBirth: mrz.fields.dateOfBirthIso,
    dateOfExpiry: mrz.fields.dateOfExpiryIso,
    expiryYear: mrz.fields.dateOfExpiryIso ? mrz.fields.dateOfExpiryIso.slice(0, 4) : null,
  };
}

/** Input of {@link buildIneMrz}. */
export interface IneMrzInput {
  /** 9 digits. */
  readonly cic: string;
  /** 4 digits. */
  readonly section: string;
  /** 9 digits. */
  readonly identificadorCiudadano: string;
  /** `YYYY-MM-DD`. */
  readonly dateOfBirth: string;
  /** Front convention `H`/`M`; written as ICAO `M`/`F`. */
  readonly gender: 'H' | 'M';
  /** Four-digit year. */
  readonly expiryYear: string;
  /** Two digits (emission number), written in the optional data of line 2. */
  readonly emission?: string;
  readonly firstSurname: string;
  readonly secondSurname: string;
  readonly names: string;
}

/** Builds the three lines of an INE MRZ with the conventions above and valid check digits. */
export function buildIneMrz(i: IneMrzInput): [string, string, string] {
  const surname = [i.firstSurname, i.secondSurname].filter((s) => s.trim()).join(' ');
  return buildTd1({
    documentCode: 'ID',
    issuingState: 'MEX',
    documentNumber: i.cic,
    optional1: `<<${i.section}${i.identificadorCiudadano}`,
    dateOfBirth: i.dateOfBirth.slice(2, 4) + i.dateOfBirth.slice(5, 7) + i.dateOfBirth.slice(8, 10),
    sex: i.gender === 'H' ? 'M' : 'F',
    dateOfExpiry: `${i.expiryYear.slice(2)}1231`,
    nationality: 'MEX',
    optional2: `<${i.emission ?? '01'}`,
    primaryIdentifier: surname,
    secondaryIdentifier: i.names,
  });
}
