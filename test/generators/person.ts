/**
 * Synthetic Mexican identities: names with Ñ and accents, compound surnames, birth data, a valid
 * CURP (through the CURP engine, `domain/curp`), an INE clave de elector and a Mexican address.
 * All values are invented; any resemblance to a real person is chance.
 */
import { CURP_STATES, generateCurp } from '../../domain/curp/index.ts';
import type { Rng } from './rng.ts';

const MALE_NAMES = ['JOSÉ', 'JUAN', 'LUIS', 'CARLOS', 'JESÚS', 'MIGUEL ÁNGEL', 'JOSÉ LUIS', 'FRANCISCO', 'ALEJANDRO', 'ÁNGEL', 'RAÚL', 'HÉCTOR', 'ÓSCAR', 'RUBÉN', 'JOAQUÍN', 'MARTÍN', 'GONZALO', 'EFRAÍN', 'SEBASTIÁN', 'IÑAKI', 'NICOLÁS', 'JULIÁN', 'ADRIÁN', 'ROBERTO', 'FERNANDO', 'EDUARDO', 'JORGE', 'DANIEL', 'RAMÓN', 'JOSÉ MARÍA', 'TOMÁS', 'ANDRÉS', 'IVÁN', 'SALVADOR', 'ARTURO'];
const FEMALE_NAMES = ['MARÍA', 'GUADALUPE', 'MARÍA JOSÉ', 'ANA SOFÍA', 'JOSEFINA', 'VERÓNICA', 'MÓNICA', 'BEATRIZ', 'LUCÍA', 'XIMENA', 'ROCÍO', 'MARÍA DE LOS ÁNGELES', 'ITZEL', 'NOEMÍ', 'SOFÍA', 'ANDREA', 'FERNANDA', 'DANIELA', 'RAQUEL', 'INÉS', 'BÁRBARA', 'ESTEFANÍA', 'LETICIA', 'PATRICIA', 'ARACELI', 'ROSALÍA', 'NAYELI', 'YOLANDA', 'MARÍA FERNANDA', 'CONCEPCIÓN', 'ÁNGELA', 'NATALIA'];
const SURNAMES = ['HERNÁNDEZ', 'GARCÍA', 'MARTÍNEZ', 'LÓPEZ', 'GONZÁLEZ', 'PÉREZ', 'RODRÍGUEZ', 'SÁNCHEZ', 'RAMÍREZ', 'CRUZ', 'FLORES', 'GÓMEZ', 'MUÑOZ', 'PEÑA', 'NÚÑEZ', 'IBÁÑEZ', 'ORDÓÑEZ', 'MORALES', 'VÁZQUEZ', 'JIMÉNEZ', 'REYES', 'DÍAZ', 'TORRES', 'GUTIÉRREZ', 'RUIZ', 'MENDOZA', 'AGUILAR', 'ORTIZ', 'CASTILLO', 'MORENO', 'ROMERO', 'ÁLVAREZ', 'CHÁVEZ', 'RÍOS', 'VEGA', 'CASTAÑEDA', 'BAÑUELOS', 'ZÚÑIGA', 'YÁÑEZ', 'QUIÑONES', 'DE LA CRUZ', 'DEL ÁNGEL', 'DE LA ROSA', 'SOLÍS', 'BELTRÁN', 'ACUÑA', 'TREVIÑO', 'VILLASEÑOR', 'ESPAÑA', 'XOCHIPA'];

/** A Mexican state as printed on documents. */
export interface StateInfo {
  /** INEGI numeric key (`01`-`32`). */
  readonly claveEntidad: string;
  /** Abbreviation printed on INE addresses (`JAL`, `CDMX`). */
  readonly abbr: string;
  /** Cities (municipalities) and their colonies with zip codes. */
  readonly cities: ReadonlyArray<{ readonly name: string; readonly colonies: ReadonlyArray<readonly [colony: string, zip: string]> }>;
}

/** A sample of states with real city names and plausible colonies/zip codes (synthetic data). */
export const STATES: readonly StateInfo[] = [
  { claveEntidad: '09', abbr: 'CDMX', cities: [
    { name: 'CUAUHTÉMOC', colonies: [['CENTRO', '06000'], ['ROMA NORTE', '06700'], ['JUÁREZ', '06600'], ['CONDESA', '06140']] },
    { name: 'COYOACÁN', colonies: [['DEL CARMEN', '04100'], ['SANTA ÚRSULA COAPA', '04650'], ['PEDREGAL DE SANTO DOMINGO', '04369']] },
    { name: 'IZTAPALAPA', colonies: [['SAN JUAN XALPA', '09850'], ['SANTA CRUZ MEYEHUALCO', '09290']] },
  ] },
  { claveEntidad: '14', abbr: 'JAL', cities: [
    { name: 'GUADALAJARA', colonies: [['AMERICANA', '44160'], ['LADRÓN DE GUEVARA', '44600'], ['SANTA TERESITA', '44200']] },
    { name: 'ZAPOPAN', colonies: [['CIUDAD GRANJA', '45010'], ['LAS ÁGUILAS', '45080']] },
    { name: 'TLAQUEPAQUE', colonies: [['SAN PEDRITO', '45625']] },
  ] },
  { claveEntidad: '19', abbr: 'NL', cities: [
    { name: 'MONTERREY', colonies: [['OBISPADO', '64060'], ['MITRAS CENTRO', '64460'], ['CUMBRES', '64610']] },
    { name: 'SAN NICOLÁS DE LOS GARZA', colonies: [['ANÁHUAC', '66450']] },
  ] },
  { claveEntidad: '21', abbr: 'PUE', cities: [{ name: 'PUEBLA', colonies: [['LA PAZ', '72160'], ['EL CARMEN', '72530'], ['AMOR', '72140']] }] },
  { claveEntidad: '15', abbr: 'MEX', cities: [
    { name: 'TOLUCA', colonies: [['CENTRO', '50000'], ['SANTA ANA TLAPALTITLÁN', '50160']] },
    { name: 'NEZAHUALCÓYOTL', colonies: [['BENITO JUÁREZ', '57000'], ['EVOLUCIÓN', '57700']] },
  ] },
  { claveEntidad: '31', abbr: 'YUC', cities: [{ name: 'MÉRIDA', colonies: [['GARCÍA GINERÉS', '97070'], ['ITZIMNÁ', '97100']] }] },
  { claveEntidad: '20', abbr: 'OAX', cities: [{ name: 'OAXACA DE JUÁREZ', colonies: [['REFORMA', '68050'], ['JALATLACO', '68080']] }] },
  { claveEntidad: '11', abbr: 'GTO', cities: [{ name: 'LEÓN', colonies: [['JARDINES DEL MORAL', '37160'], ['SAN JUAN DE DIOS', '37004']] }] },
];

const STREET_KINDS = ['C', 'AV', 'CALLE', 'AND', 'PRIV', 'CDA', 'BLVD'];
const STREET_NAMES = ['MORELOS', 'HIDALGO', 'BENITO JUÁREZ', 'REFORMA', 'SAN JUAN', 'INSURGENTES', 'NIÑOS HÉROES', 'LÁZARO CÁRDENAS', 'FRANCISCO I MADERO', 'ALLENDE', 'GUERRERO', 'CONSTITUCIÓN', 'EMILIANO ZAPATA', 'DE LA PEÑA', 'AZUCENAS', 'NOGAL', 'PEÑÓN', 'ACUEDUCTO'];

/** A postal address split as the spec's `detailAddress`. */
export interface Address {
  /** `C MORELOS 123 INT 4`. */
  readonly streetAndNumber: string;
  /** `COL CENTRO`. */
  readonly colony: string;
  /** Five digits. */
  readonly zipCode: string;
  /** Municipality / city. */
  readonly city: string;
  /** State abbreviation as printed on INE (`JAL`). */
  readonly state: string;
  readonly claveEntidad: string;
}

/** A synthetic person with everything the documents print. */
export interface Person {
  readonly names: string;
  readonly firstSurname: string;
  readonly secondSurname: string;
  /** `H` or `M`. */
  readonly gender: 'H' | 'M';
  /** `YYYY-MM-DD`. */
  readonly dateOfBirth: string;
  /** INEGI key of the state of birth. */
  readonly birthState: string;
  readonly curp: string;
  /** 18 characters: 6 letters, YYMMDD, 2-digit state, H/M, 3 digits. */
  readonly claveElector: string;
  readonly address: Address;
  /** Ten-digit phone number. */
  readonly phone: string;
}

const CONSONANT = /[BCDFGHJKLMNÑPQRSTVWXYZ]/;

function plain(s: string): string {
  return s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Z ]/g, '');
}

/** Clave de elector letters: initial + first internal consonant of surname 1, surname 2, first name. */
function electorLetters(first: string, second: string, names: string): string {
  const two = (w: string) => {
    const p = plain(w).replace(/^(DE LA|DEL|DE) /, '').replace(/ /g, '') || 'X';
    const cons = [...p.slice(1)].find((c) => CONSONANT.test(c)) ?? 'X';
    return (p.charAt(0) + cons).padEnd(2, 'X');
  };
  return two(first) + two(second) + two(names.split(' ')[0] ?? names);
}

/** Options of {@link randomPerson}. */
export interface PersonOptions {
  /**
   * Names and address written with their accents and Ñ (default true). False writes them in plain
   * capitals (`MARIA`, `NUNEZ`, `CUAUHTEMOC`), as some credentials, older registrations and foreign
   * systems print them; the CURP is then derived from the plain spelling (an `N`, not the `X` of an `Ñ`).
   * Folding draws nothing from `rng`, so the same seed gives the same person either way.
   */
  accents?: boolean;
}

/** `MARÍA NÚÑEZ` -> `MARIA NUNEZ` (accents dropped, `Ñ` -> `N`). */
export function unaccented(s: string): string {
  return s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').normalize('NFC');
}

/**
 * Draws a person. Dates of birth fall between 1950 and 2005 (adults holding an INE or passport).
 * @throws never for the built-in name lists (the CURP engine accepts them).
 */
export function randomPerson(rng: Rng, options: PersonOptions = {}): Person {
  const spell = options.accents === false ? unaccented : (s: string) => s;
  const gender: 'H' | 'M' = rng.chance(0.5) ? 'H' : 'M';
  const names = spell(rng.pick(gender === 'H' ? MALE_NAMES : FEMALE_NAMES));
  const firstSurname = spell(rng.pick(SURNAMES));
  let secondSurname = spell(rng.pick(SURNAMES));
  if (secondSurname === firstSurname) secondSurname = spell('SOLÍS');
  const year = rng.int(1950, 2005);
  const month = rng.int(1, 12);
  const day = rng.int(1, 28);
  const dateOfBirth = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  const birthState = rng.pick(CURP_STATES.filter((s) => /^\d{2}$/.test(s.claveEntidad))).claveEntidad;
  const homonym = year < 2000 ? String(rng.int(0, 9)) : String.fromCharCode(65 + rng.int(0, 5));
  const curp = generateCurp({ nombres: names, primerApellido: firstSurname, segundoApellido: secondSurname, sexo: gender, fechaNacimiento: dateOfBirth, entidad: birthState }, { homonym });
  const claveElector = electorLetters(firstSurname, secondSurname, names) + dateOfBirth.slice(2, 4) + dateOfBirth.slice(5, 7) + dateOfBirth.slice(8, 10) + birthState + gender + rng.digits(3);
  const st = rng.pick(STATES);
  const city = rng.pick(st.cities);
  const [colony, zip] = rng.pick(city.colonies);
  const number = String(rng.int(1, 2999));
  const interior = rng.chance(0.3) ? ` INT ${rng.int(1, 40)}` : '';
  const address: Address = {
    streetAndNumber: spell(`${rng.pick(STREET_KINDS)} ${rng.pick(STREET_NAMES)} ${number}${interior}`),
    colony: spell(`COL ${colony}`),
    zipCode: zip,
    city: spell(city.name),
    state: st.abbr,
    claveEntidad: st.claveEntidad,
  };
  const lada = rng.pick(['55', '33', '81', '222', '999', '951', '477', '722']);
  const phone = lada + rng.digits(10 - lada.length);
  return { names, firstSurname, secondSurname, gender, dateOfBirth, birthState, curp, claveElector, address, phone };
}
