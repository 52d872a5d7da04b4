/**
 * Validation of registry lookup requests exactly as the interface spec states ("Government registry
 * lookups" and "Errors > Registry lookups"): `MISSING_PARAMETER` naming the parameter when a required
 * one is absent, `INVALID_PARAMETER` for format violations. Pure: the reference day comes in.
 */
import { FOREIGN_BORN_CODE, parseIsoDate, stateByClaveEntidad } from '../curp/index.ts';
import type { CurpLookupRequest, VoterLookupRequest } from '../../infra/ports/registry-provider.ts';
import type { RegistryRequestError } from './errors.ts';

/** A validated value, or the spec's 400 error for the first fault. */
export type Validated<T> = { ok: true; value: T } | { ok: false; error: RegistryRequestError };

/** Longest accepted name field, characters (RENAPO's own fields are shorter). */
export const MAX_NAME_LENGTH = 100;

// A letter (any script) first, then letters, combining marks and the separators names use: space,
// apostrophe, hyphen, dot.
const NAME_RE = /^\p{L}[\p{L}\p{M} '’.\-]*$/u;

const missing = (parameter: string): Validated<never> => ({
  ok: false,
  error: { type: 'MISSING_PARAMETER', parameter, message: `Missing required parameter: ${parameter}` },
});
const invalid = (parameter: string, why: string): Validated<never> => ({
  ok: false,
  error: { type: 'INVALID_PARAMETER', parameter, message: `Invalid parameter ${parameter}: ${why}` },
});

function isAbsent(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

/** The body as an object; an absent body is an empty one (so the first required parameter is reported missing). */
function asObject(body: unknown): Record<string, unknown> | null {
  if (body === undefined || body === null || body === '') return {};
  return typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
}

const NOT_AN_OBJECT: Validated<never> = {
  ok: false,
  error: { type: 'INVALID_PARAMETER', parameter: 'body', message: 'Invalid parameter body: the request body must be a JSON object' },
};

function nameField(body: Record<string, unknown>, key: string, required: boolean): Validated<string | undefined> {
  const v = body[key];
  if (isAbsent(v)) return required ? missing(key) : { ok: true, value: undefined };
  if (typeof v !== 'string') return invalid(key, 'must be a string');
  const s = v.normalize('NFC').trim().replace(/\s+/g, ' ');
  if (s.length > MAX_NAME_LENGTH) return invalid(key, `must be at most ${MAX_NAME_LENGTH} characters`);
  if (!NAME_RE.test(s)) return invalid(key, 'must be a name: letters, spaces, apostrophes, hyphens and dots');
  return { ok: true, value: s };
}

/**
 * Validates a `POST /v1/mex/renapo/get-curp` body. Required: `nombres`, `primerApellido`, `sexo`,
 * `fechaNacimiento`, `claveEntidad` (checked in that order; the first fault is reported).
 * `sexo` is `H` or `M`; `fechaNacimiento` a real `YYYY-MM-DD` date from 1900 on and not after `todayYmd`
 * (`YYYYMMDD` integer); `claveEntidad` `01`-`32` or `NE` (born abroad, RENAPO's code).
 */
export function validateGetCurpRequest(body: unknown, todayYmd: number): Validated<CurpLookupRequest> {
  const b = asObject(body);
  if (!b) return NOT_AN_OBJECT;
  const nombres = nameField(b, 'nombres', true);
  if (!nombres.ok) return nombres;
  const primer = nameField(b, 'primerApellido', true);
  if (!primer.ok) return primer;
  const segundo = nameField(b, 'segundoApellido', false);
  if (!segundo.ok) return segundo;

  const sexo = b.sexo;
  if (isAbsent(sexo)) return missing('sexo');
  if (sexo !== 'H' && sexo !== 'M') return invalid('sexo', 'must be H or M');

  const fecha = b.fechaNacimiento;
  if (isAbsent(fecha)) return missing('fechaNacimiento');
  if (typeof fecha !== 'string') return invalid('fechaNacimiento', 'must be a string YYYY-MM-DD');
  const date = parseIsoDate(fecha);
  if (!date) return invalid('fechaNacimiento', 'must be a calendar date YYYY-MM-DD');
  if (date.year < 1900) return invalid('fechaNacimiento', 'must be 1900-01-01 or later');
  if (date.year * 10000 + date.month * 100 + date.day > todayYmd) return invalid('fechaNacimiento', 'must not be in the future');

  const clave = b.claveEntidad;
  if (isAbsent(clave)) return missing('claveEntidad');
  if (typeof clave !== 'string' || !(/^\d{2}$/.test(clave) || clave === FOREIGN_BORN_CODE) || !stateByClaveEntidad(clave)) {
    return invalid('claveEntidad', `must be two digits 01-32, or ${FOREIGN_BORN_CODE} for people born abroad`);
  }

  const value: CurpLookupRequest = { nombres: nombres.value!, primerApellido: primer.value!, sexo, fechaNacimiento: fecha, claveEntidad: clave };
  if (segundo.value) value.segundoApellido = segundo.value;
  return { ok: true, value };
}

const EXTRA_KEY_RE = /^[A-Za-z][A-Za-z0-9_]{0,40}$/;
/** Most extra parameters passed through to the provider; longest extra value (characters). */
export const MAX_EXTRA_PARAMETERS = 10;
/** Longest extra parameter value passed to the provider, characters. */
export const MAX_EXTRA_VALUE_LENGTH = 100;

function digits(b: Record<string, unknown>, key: string, n: number, required: boolean): Validated<string | undefined> {
  const v = b[key];
  if (isAbsent(v)) return required ? missing(key) : { ok: true, value: undefined };
  // A number loses leading zeros, so only strings are accepted, as the spec types them.
  if (typeof v !== 'string' || !new RegExp(`^\\d{${n}}$`).test(v.trim())) return invalid(key, `must be a string of ${n} digits`);
  return { ok: true, value: v.trim() };
}

/**
 * Validates a `POST /v1/mex/ine/validate-voter-list` body: `cic` 9 digits (required),
 * `identificadorCiudadano` 9 digits and `ocr` 13 digits (optional). Other string parameters
 * (up to {@link MAX_EXTRA_PARAMETERS}, names `[A-Za-z][A-Za-z0-9_]*`) are passed to the provider as
 * `extra`; anything else is ignored.
 */
export function validateVoterListRequest(body: unknown): Validated<VoterLookupRequest> {
  const b = asObject(body);
  if (!b) return NOT_AN_OBJECT;
  const cic = digits(b, 'cic', 9, true);
  if (!cic.ok) return cic;
  const id = digits(b, 'identificadorCiudadano', 9, false);
  if (!id.ok) return id;
  const ocr = digits(b, 'ocr', 13, false);
  if (!ocr.ok) return ocr;
  const value: VoterLookupRequest = { cic: cic.value! };
  if (id.value) value.identificadorCiudadano = id.value;
  if (ocr.value) value.ocr = ocr.value;
  const extra: Record<string, string> = {};
  let n = 0;
  for (const [k, v] of Object.entries(b)) {
    if (k === 'cic' || k === 'identificadorCiudadano' || k === 'ocr') continue;
    if (n >= MAX_EXTRA_PARAMETERS) break;
    if (!EXTRA_KEY_RE.test(k) || typeof v !== 'string' || v.length > MAX_EXTRA_VALUE_LENGTH) continue;
    extra[k] = v;
    n++;
  }
  if (n) value.extra = extra;
  return { ok: true, value };
}
