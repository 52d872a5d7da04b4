/**
 * Sandbox registry provider (the embedded default): answers RENAPO and INE lookups from a fixture
 * registry of synthetic people, so integrators can build against the API with no provider contract.
 * Every answer is marked by the routes (`X-Registry-Sandbox: true` header and `sandbox: true` field).
 *
 * get-curp: a person matching a fixture (same normalised names, sex, birth date and state) gets the
 * fixture's record; anyone else gets a CURP computed by the CURP engine with status `AN`. Homonyms
 * (same first 16 characters, different people) get successive homonym characters, as RENAPO assigns
 * them: `0`, `1`, ... up to 1999 and `A`, `B`, ... from 2000, in order of first appearance.
 *
 * Magic values (documented in docs/registry.md) let integrators exercise failure paths:
 * `primerApellido` `INEXISTENTE` -> not found; `primerApellido` `INDISPONIBLE` or `cic` `999999999`
 * -> provider unavailable (maintenance).
 */
import {
  generateCurp16,
  curpCheckDigit,
  homonymCharacter,
  normalizeCurpName,
  stateByClaveEntidad,
  dayNumber,
} from '../../../domain/curp/index.ts';
import {
  RegistryUnavailableError,
  type CurpLookupRequest,
  type CurpLookupResult,
  type CurpRecord,
  type LookupOptions,
  type RegistryProvider,
  type VoterLookupRequest,
  type VoterLookupResult,
} from '../../ports/registry-provider.ts';
import { DEFAULT_FIXTURES_PATH, loadFixtureFile, type FixturePerson, type FixtureSet, type FixtureVoter } from './fixtures.ts';

/** Options of {@link SandboxRegistryProvider}. */
export interface SandboxProviderOptions {
  /** Extra fixture files (JSON/CSV) added to the embedded ones. */
  fixtureFiles?: readonly string[];
  /** Records given directly (tests). */
  fixtures?: Partial<FixtureSet>;
  /** Skip the embedded fixtures. */
  withoutDefaults?: boolean;
  /** Reference day for birth-date checks (`YYYYMMDD` or `YYYY-MM-DD`); default today (UTC). */
  today?: number | string;
}

/** Upper case, no accents, Ñ kept: how the registry spells names. */
export function registryName(s: string): string {
  return s
    .normalize('NFC')
    .toUpperCase()
    .replace(/Ñ/g, '\u0000')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/\u0000/g, 'Ñ')
    .replace(/\s+/g, ' ')
    .trim();
}

function personKey(p: { nombres: string; primerApellido: string; segundoApellido?: string | undefined; sexo: string; fechaNacimiento: string; claveEntidad: string }): string {
  return [p.nombres, p.primerApellido, p.segundoApellido ?? '', p.sexo, p.fechaNacimiento, p.claveEntidad].map((s) => normalizeCurpName(s)).join('|');
}

const NOT_FOUND_MESSAGE = 'No se encontró ningún registro con los datos proporcionados.';
const VOTER_NOT_FOUND_MESSAGE = 'La credencial no se encuentra en la Lista Nominal de Electores.';
const VOTER_MISMATCH_MESSAGE = 'Los datos proporcionados no coinciden con los de la credencial registrada.';
const VOTER_VALID_MESSAGE = 'Esta credencial es vigente como medio de identificación y puedes votar.';
const MAINTENANCE_MESSAGE = 'The registry is in maintenance (sandbox simulation).';

/** Sandbox adapter of {@link RegistryProvider}. Construction raises `FixtureError` for a bad fixture file. */
export class SandboxRegistryProvider implements RegistryProvider {
  readonly name = 'sandbox';
  readonly sandbox = true;
  private readonly people = new Map<string, CurpRecord>();
  /** first 16 characters -> homonym characters (position 17) already given to fixture people. */
  private readonly homonyms = new Map<string, Set<string>>();
  private readonly voters = new Map<string, FixtureVoter>();
  private readonly todayYmd: number;

  constructor(options: SandboxProviderOptions = {}) {
    this.todayYmd = dayNumber(options.today);
    const sets: FixtureSet[] = [];
    if (!options.withoutDefaults) sets.push(loadFixtureFile(DEFAULT_FIXTURES_PATH, this.todayYmd));
    for (const f of options.fixtureFiles ?? []) sets.push(loadFixtureFile(f, this.todayYmd));
    sets.push({ people: options.fixtures?.people ?? [], voters: options.fixtures?.voters ?? [] });
    for (const s of sets) {
      for (const p of s.people) this.addPerson(p);
      for (const v of s.voters) this.voters.set(v.cic, v);
    }
  }

  /** Number of fixture people and voters (operators' start-up log line). */
  get size(): { people: number; voters: number } {
    return { people: this.people.size, voters: this.voters.size };
  }

  private addPerson(p: FixturePerson): CurpRecord {
    const key = personKey(p);
    const existing = this.people.get(key);
    if (existing) return existing;
    const first16 = generateCurp16({ ...p, entidad: p.claveEntidad });
    // An operator-given CURP wins even when it differs from the computed one (RENAPO assigned some
    // keys under older rules); it was checked to be a valid CURP at load.
    let curp = p.curp;
    if (!curp) curp = this.nextCurp(first16, Number(p.fechaNacimiento.slice(0, 4)));
    const used = this.homonyms.get(curp.slice(0, 16)) ?? new Set<string>();
    used.add(curp[16]!);
    this.homonyms.set(curp.slice(0, 16), used);
    const state = stateByClaveEntidad(p.claveEntidad)!;
    const record: CurpRecord = {
      curp,
      nombres: registryName(p.nombres),
      primerApellido: registryName(p.primerApellido),
      segundoApellido: registryName(p.segundoApellido ?? ''),
      sexo: p.sexo,
      fechaNacimiento: p.fechaNacimiento,
      entidadNacimiento: state.name,
      nacionalidad: p.nacionalidad ?? 'MEX',
      estatus: p.estatus ?? 'AN',
    };
    this.people.set(key, record);
    return record;
  }

  /** The CURP RENAPO would give the next homonym: the first homonym character not yet used, then the check digit. */
  private nextCurp(first16: string, year: number): string {
    const used = this.homonyms.get(first16);
    const max = year < 2000 ? 9 : 25;
    let i = 0;
    while (i < max && used?.has(homonymCharacter(year, i))) i++;
    const h = homonymCharacter(year, i);
    return first16 + h + curpCheckDigit(first16 + h);
  }

  async getCurp(request: CurpLookupRequest, options: LookupOptions = {}): Promise<CurpLookupResult> {
    options.signal?.throwIfAborted();
    const surname = normalizeCurpName(request.primerApellido);
    if (surname === 'INEXISTENTE') return { found: false, message: NOT_FOUND_MESSAGE };
    if (surname === 'INDISPONIBLE') throw new RegistryUnavailableError('renapo', 'maintenance', MAINTENANCE_MESSAGE);
    const known = this.people.get(personKey(request));
    if (known) return { found: true, record: { ...known } };
    // Anyone else "is registered" with the computed CURP; not stored, so the sandbox stays stateless
    // across requests and tenants (a homonym of a fixture person still gets the next character).
    const first16 = generateCurp16({ ...request, entidad: request.claveEntidad });
    const state = stateByClaveEntidad(request.claveEntidad)!;
    return {
      found: true,
      record: {
        curp: this.nextCurp(first16, Number(request.fechaNacimiento.slice(0, 4))),
        nombres: registryName(request.nombres),
        primerApellido: registryName(request.primerApellido),
        segundoApellido: registryName(request.segundoApellido ?? ''),
        sexo: request.sexo,
        fechaNacimiento: request.fechaNacimiento,
        entidadNacimiento: state.name,
        nacionalidad: 'MEX',
        estatus: 'AN',
      },
    };
  }

  async validateVoter(request: VoterLookupRequest, options: LookupOptions = {}): Promise<VoterLookupResult> {
    options.signal?.throwIfAborted();
    if (request.cic === '999999999') throw new RegistryUnavailableError('ine', 'maintenance', MAINTENANCE_MESSAGE);
    const v = this.voters.get(request.cic);
    if (!v) return { valid: false, cic: request.cic, message: VOTER_NOT_FOUND_MESSAGE };
    if (
      (request.identificadorCiudadano && v.identificadorCiudadano && request.identificadorCiudadano !== v.identificadorCiudadano) ||
      (request.ocr && v.ocr && request.ocr !== v.ocr)
    ) {
      return { valid: false, cic: request.cic, message: VOTER_MISMATCH_MESSAGE };
    }
    if (!v.valid) return { valid: false, cic: request.cic, message: v.message ?? 'Esta credencial no es válida.' };
    return {
      valid: true,
      cic: v.cic,
      identificadorCiudadano: v.identificadorCiudadano ?? '',
      ocr: v.ocr ?? '',
      estatus: v.estatus ?? 'VIGENTE',
      seccion: v.seccion ?? '',
      municipio: v.municipio ?? '',
      entidad: v.entidad ?? '',
      fechaVigencia: v.fechaVigencia ?? '',
      message: v.message ?? VOTER_VALID_MESSAGE,
    };
  }

  async close(): Promise<void> {}
}
