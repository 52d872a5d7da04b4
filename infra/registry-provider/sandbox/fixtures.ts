/**
 * Fixture registry of the sandbox provider: synthetic people (RENAPO) and voter credentials (INE).
 *
 * The embedded `fixtures.json` beside this file is always loaded; an operator adds records with
 * files listed in `REGISTRY_SANDBOX_FIXTURES` (comma-separated paths):
 * - JSON: `{ "people": [...], "voters": [...] }` with the fields of {@link FixturePerson} / {@link FixtureVoter};
 * - CSV with a header row: a file whose header has `cic` holds voters, one with `nombres` holds people
 *   (parsed with `csv-parse`).
 * Records are validated at load; a bad file raises {@link FixtureError} naming the file and record, so a
 * typo fails at start-up rather than at a lookup.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseCsv } from 'csv-parse/sync';
import { z } from 'zod';
import { validateGetCurpRequest, validateVoterListRequest } from '../../../domain/registry/validate-request.ts';
import { validateCurp } from '../../../domain/curp/index.ts';

/** Raised for an unreadable or invalid fixture file. */
export class FixtureError extends Error {
  override readonly name = 'FixtureError';
}

/** Largest fixture file read, bytes. */
export const MAX_FIXTURE_FILE_BYTES = 20 * 1024 * 1024;

const optionalString = z
  .string()
  .optional()
  .transform((s) => (s === undefined || s.trim() === '' ? undefined : s.trim()));

/** A synthetic person. `curp` is computed by the CURP engine when absent. */
export const FixturePerson = z.object({
  nombres: z.string(),
  primerApellido: z.string(),
  segundoApellido: optionalString,
  sexo: z.enum(['H', 'M']),
  fechaNacimiento: z.string(),
  claveEntidad: z.string(),
  /** Must agree with the data (first 16 characters) and be valid when given. */
  curp: optionalString,
  /** Nationality code; default `MEX` (`NE` born: still `MEX` unless given). */
  nacionalidad: optionalString,
  /** RENAPO status; default `AN`. */
  estatus: optionalString,
});
/** A fixture person after validation. */
export type FixturePerson = z.output<typeof FixturePerson>;

/** A synthetic voter credential. `valid` false models an invalidated credential (HTTP 200, `valid:false`). */
export const FixtureVoter = z.object({
  cic: z.string(),
  identificadorCiudadano: optionalString,
  ocr: optionalString,
  estatus: optionalString,
  seccion: optionalString,
  municipio: optionalString,
  entidad: optionalString,
  fechaVigencia: optionalString,
  message: optionalString,
  valid: z
    .union([z.boolean(), z.enum(['true', 'false', 'TRUE', 'FALSE', '1', '0', ''])])
    .optional()
    .transform((v) => !(v === false || v === 'false' || v === 'FALSE' || v === '0')),
});
/** A fixture voter credential after validation. */
export type FixtureVoter = z.output<typeof FixtureVoter>;

/** Records of one or more fixture files. */
export interface FixtureSet {
  people: FixturePerson[];
  voters: FixtureVoter[];
}

const FixtureFile = z.object({
  people: z.array(z.unknown()).optional(),
  voters: z.array(z.unknown()).optional(),
});

/** Path of the embedded fixtures. */
export const DEFAULT_FIXTURES_PATH = fileURLToPath(new URL('./fixtures.json', import.meta.url));

function checkPerson(raw: unknown, where: string, todayYmd: number): FixturePerson {
  const parsed = FixturePerson.safeParse(raw);
  if (!parsed.success) throw new FixtureError(`${where}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const p = parsed.data;
  const v = validateGetCurpRequest(p, todayYmd);
  if (!v.ok) throw new FixtureError(`${where}: ${v.error.message}`);
  if (p.curp) {
    const c = validateCurp(p.curp, { today: todayYmd });
    if (!c.valid) throw new FixtureError(`${where}: curp ${p.curp} is not valid (${c.errors.map((e) => e.code).join(', ')})`);
    p.curp = c.curp;
  }
  return p;
}

function checkVoter(raw: unknown, where: string): FixtureVoter {
  const parsed = FixtureVoter.safeParse(raw);
  if (!parsed.success) throw new FixtureError(`${where}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const v = validateVoterListRequest(parsed.data);
  if (!v.ok) throw new FixtureError(`${where}: ${v.error.message}`);
  return parsed.data;
}

/**
 * Parses fixture text. `format` from the file extension (`.json` / `.csv`). Raises {@link FixtureError}.
 * `todayYmd` (`YYYYMMDD`) bounds birth dates.
 */
export function parseFixtures(text: string, format: 'json' | 'csv', source: string, todayYmd: number): FixtureSet {
  const out: FixtureSet = { people: [], voters: [] };
  if (format === 'json') {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw new FixtureError(`${source}: not JSON (${(e as Error).message})`);
    }
    const file = FixtureFile.safeParse(data);
    if (!file.success) throw new FixtureError(`${source}: expected {"people": [...], "voters": [...]}`);
    file.data.people?.forEach((p, i) => out.people.push(checkPerson(p, `${source} people[${i}]`, todayYmd)));
    file.data.voters?.forEach((v, i) => out.voters.push(checkVoter(v, `${source} voters[${i}]`)));
    return out;
  }
  let rows: Record<string, string>[];
  try {
    rows = parseCsv(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
  } catch (e) {
    throw new FixtureError(`${source}: not CSV (${(e as Error).message})`);
  }
  if (!rows.length) return out;
  const header = Object.keys(rows[0]!);
  if (header.includes('cic')) rows.forEach((r, i) => out.voters.push(checkVoter(r, `${source} row ${i + 2}`)));
  else if (header.includes('nombres')) rows.forEach((r, i) => out.people.push(checkPerson(r, `${source} row ${i + 2}`, todayYmd)));
  else throw new FixtureError(`${source}: the CSV header must hold "cic" (voters) or "nombres" (people)`);
  return out;
}

/** Reads a fixture file (JSON or CSV by extension). Raises {@link FixtureError}. */
export function loadFixtureFile(path: string, todayYmd: number): FixtureSet {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (e) {
    throw new FixtureError(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (buf.length > MAX_FIXTURE_FILE_BYTES) throw new FixtureError(`${path}: larger than ${MAX_FIXTURE_FILE_BYTES} bytes`);
  const lower = path.toLowerCase();
  const format = lower.endsWith('.csv') ? 'csv' : lower.endsWith('.json') ? 'json' : null;
  if (!format) throw new FixtureError(`${path}: fixture files end in .json or .csv`);
  return parseFixtures(buf.toString('utf8'), format, path, todayYmd);
}
