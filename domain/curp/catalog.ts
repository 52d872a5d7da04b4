/**
 * Reference tables of the CURP (Clave Única de Registro de Población).
 *
 * Sources:
 * - "Instructivo Normativo para la Asignación de la Clave Única de Registro de Población",
 *   Secretaría de Gobernación, Diario Oficial de la Federación (DOF) 18-10-2021 (first published
 *   DOF 23-10-1996). Cited below as "Instructivo". Anexo 1 lists the state codes, Anexo 2 the
 *   inconvenient words ("palabras altisonantes o inconvenientes").
 * - Numeric state keys (`claveEntidad` 01-32) follow INEGI's Marco Geoestadístico catalogue, which the
 *   interface spec ("Government registry lookups") reproduces.
 */

/** One state (entidad federativa) as the CURP and the registry API name it. */
export interface CurpState {
  /** Numeric key used by the API (`claveEntidad`), INEGI catalogue: `01`-`32`; `NE` for foreign-born. */
  readonly claveEntidad: string;
  /** Two-letter code in CURP positions 12-13 (Instructivo, Anexo 1). */
  readonly code: string;
  /** Name as the registry spells it (upper case, no accents). */
  readonly name: string;
}

/**
 * Code used both in the CURP (positions 12-13) and as `claveEntidad` for people born abroad:
 * "NE" = "Nacido en el Extranjero" (Instructivo, Anexo 1).
 */
export const FOREIGN_BORN_CODE = 'NE';

/** The 32 states plus `NE` (Instructivo, Anexo 1; numeric keys from INEGI). */
export const CURP_STATES: readonly CurpState[] = [
  { claveEntidad: '01', code: 'AS', name: 'AGUASCALIENTES' },
  { claveEntidad: '02', code: 'BC', name: 'BAJA CALIFORNIA' },
  { claveEntidad: '03', code: 'BS', name: 'BAJA CALIFORNIA SUR' },
  { claveEntidad: '04', code: 'CC', name: 'CAMPECHE' },
  { claveEntidad: '05', code: 'CL', name: 'COAHUILA' },
  { claveEntidad: '06', code: 'CM', name: 'COLIMA' },
  { claveEntidad: '07', code: 'CS', name: 'CHIAPAS' },
  { claveEntidad: '08', code: 'CH', name: 'CHIHUAHUA' },
  { claveEntidad: '09', code: 'DF', name: 'CIUDAD DE MEXICO' },
  { claveEntidad: '10', code: 'DG', name: 'DURANGO' },
  { claveEntidad: '11', code: 'GT', name: 'GUANAJUATO' },
  { claveEntidad: '12', code: 'GR', name: 'GUERRERO' },
  { claveEntidad: '13', code: 'HG', name: 'HIDALGO' },
  { claveEntidad: '14', code: 'JC', name: 'JALISCO' },
  { claveEntidad: '15', code: 'MC', name: 'MEXICO' },
  { claveEntidad: '16', code: 'MN', name: 'MICHOACAN' },
  { claveEntidad: '17', code: 'MS', name: 'MORELOS' },
  { claveEntidad: '18', code: 'NT', name: 'NAYARIT' },
  { claveEntidad: '19', code: 'NL', name: 'NUEVO LEON' },
  { claveEntidad: '20', code: 'OC', name: 'OAXACA' },
  { claveEntidad: '21', code: 'PL', name: 'PUEBLA' },
  { claveEntidad: '22', code: 'QT', name: 'QUERETARO' },
  { claveEntidad: '23', code: 'QR', name: 'QUINTANA ROO' },
  { claveEntidad: '24', code: 'SP', name: 'SAN LUIS POTOSI' },
  { claveEntidad: '25', code: 'SL', name: 'SINALOA' },
  { claveEntidad: '26', code: 'SR', name: 'SONORA' },
  { claveEntidad: '27', code: 'TC', name: 'TABASCO' },
  { claveEntidad: '28', code: 'TS', name: 'TAMAULIPAS' },
  { claveEntidad: '29', code: 'TL', name: 'TLAXCALA' },
  { claveEntidad: '30', code: 'VZ', name: 'VERACRUZ' },
  { claveEntidad: '31', code: 'YN', name: 'YUCATAN' },
  { claveEntidad: '32', code: 'ZS', name: 'ZACATECAS' },
  { claveEntidad: FOREIGN_BORN_CODE, code: FOREIGN_BORN_CODE, name: 'NACIDO EN EL EXTRANJERO' },
];

const BY_CLAVE = new Map(CURP_STATES.map((s) => [s.claveEntidad, s]));
const BY_CODE = new Map(CURP_STATES.map((s) => [s.code, s]));

/** The state for an API `claveEntidad` (`01`-`32` or `NE`), or undefined. */
export function stateByClaveEntidad(claveEntidad: string): CurpState | undefined {
  return BY_CLAVE.get(claveEntidad);
}

/** The state for a CURP two-letter code (positions 12-13), or undefined. */
export function stateByCurpCode(code: string): CurpState | undefined {
  return BY_CODE.get(code);
}

/**
 * Inconvenient words (Instructivo, Anexo 2): when the four initial letters of a CURP would spell one of
 * them, the second letter is replaced by `X` (e.g. BACA -> BXCA). A valid CURP therefore never starts
 * with one of these. The same 81 entries are reproduced by python-stdnum's `stdnum.mx.curp`.
 */
export const INCONVENIENT_WORDS: ReadonlySet<string> = new Set(
  (
    'BACA BAKA BUEI BUEY CACA CACO CAGA CAGO CAKA CAKO COGE COGI COJA COJE COJI COJO COLA CULO FALO ' +
    'FETO GETA GUEI GUEY JETA JOTO KACA KACO KAGA KAGO KAKA KAKO KOGE KOGI KOJA KOJE KOJI KOJO KOLA ' +
    'KULO LILO LOCA LOCO LOKA LOKO MAME MAMO MEAR MEAS MEON MIAR MION MOCO MOKO MULA MULO NACA NACO ' +
    'PEDA PEDO PENE PIPI PITO POPO PUTA PUTO QULO RATA ROBA ROBE ROBO RUIN SENO TETA VACA VAGA VAGO ' +
    'VAKA VUEI VUEY WUEI WUEY'
  ).split(' '),
);

/**
 * Words skipped when a surname or given name is compound (Instructivo, rules for compound names:
 * prepositions, conjunctions and contractions, e.g. "DE LA CRUZ" -> CRUZ, "MC GREGOR" -> GREGOR).
 */
export const NAME_PARTICLES: ReadonlySet<string> = new Set([
  'DA', 'DAS', 'DE', 'DEL', 'DER', 'DI', 'DIE', 'DD', 'EL', 'LA', 'LAS', 'LE', 'LES', 'LOS', 'MAC', 'MC',
  'VAN', 'VON', 'Y',
]);

/**
 * Given names skipped when the person has more than one given name (Instructivo: when the first of
 * several given names is MARIA or JOSE, or an abbreviation of them, the next name is used; e.g.
 * "MARIA LUISA" -> L, "JOSE ANTONIO" -> A, but "MARIA" alone -> M).
 */
export const SKIPPED_GIVEN_NAMES: ReadonlySet<string> = new Set(['MARIA', 'MA.', 'MA', 'M.', 'JOSE', 'J.', 'J']);
