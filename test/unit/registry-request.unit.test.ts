import { describe, expect, it } from 'vitest';
import { validateGetCurpRequest, validateVoterListRequest, lookupFingerprint, maskCurp, maskDigits, maskName } from '../../domain/registry/index.ts';
import { dayNumber } from '../../domain/curp/index.ts';

const TODAY = dayNumber('2026-11-21');
const OK = { nombres: 'Gloria', primerApellido: 'Hernández', segundoApellido: 'García', sexo: 'M', fechaNacimiento: '1956-04-27', claveEntidad: '30' };

describe('get-curp request validation (spec: Government registry lookups)', () => {
  it('accepts a complete request and trims names', () => {
    const r = validateGetCurpRequest({ ...OK, nombres: '  Gloria  ' }, TODAY);
    expect(r).toEqual({ ok: true, value: { ...OK } });
  });
  it('segundoApellido is optional (absent, null or empty)', () => {
    for (const s of [undefined, null, '', '  ']) {
      const r = validateGetCurpRequest({ ...OK, segundoApellido: s }, TODAY);
      expect(r.ok && r.value.segundoApellido).toBeFalsy();
    }
  });
  it.each(['nombres', 'primerApellido', 'sexo', 'fechaNacimiento', 'claveEntidad'])('MISSING_PARAMETER names %s', (k) => {
    for (const v of [undefined, null, '']) {
      const r = validateGetCurpRequest({ ...OK, [k]: v }, TODAY);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error).toMatchObject({ type: 'MISSING_PARAMETER', parameter: k });
      expect(!r.ok && r.error.message).toContain(k);
    }
  });
  it('a body that is not an object is a missing first parameter', () => {
    for (const b of [null, 'x', 42, [OK]]) expect(validateGetCurpRequest(b, TODAY)).toMatchObject({ ok: false, error: { type: 'MISSING_PARAMETER', parameter: 'nombres' } });
  });
  const invalid: Array<[string, unknown]> = [
    ['sexo', 'X'], ['sexo', 'h'], ['sexo', 'HM'], ['sexo', 1],
    ['fechaNacimiento', '1956-02-30'], ['fechaNacimiento', '1956-13-01'], ['fechaNacimiento', '27/04/1956'], ['fechaNacimiento', '1956-4-27'],
    ['fechaNacimiento', '2026-11-22'], ['fechaNacimiento', '1899-12-31'], ['fechaNacimiento', 19560427],
    ['claveEntidad', '00'], ['claveEntidad', '33'], ['claveEntidad', '1'], ['claveEntidad', 'JC'], ['claveEntidad', 9], ['claveEntidad', 'ne'],
    ['nombres', 42], ['nombres', ['Ana']], ['nombres', 'Ana<script>'], ['nombres', '123'], ['primerApellido', 'x'.repeat(101)], ['segundoApellido', 7],
  ];
  it.each(invalid)('INVALID_PARAMETER for %s = %j', (k, v) => {
    const r = validateGetCurpRequest({ ...OK, [k]: v }, TODAY);
    expect(!r.ok && r.error).toMatchObject({ type: 'INVALID_PARAMETER', parameter: k });
  });
  it('accepts the foreign-born code NE, leap days and today', () => {
    expect(validateGetCurpRequest({ ...OK, claveEntidad: 'NE' }, TODAY).ok).toBe(true);
    expect(validateGetCurpRequest({ ...OK, fechaNacimiento: '2000-02-29' }, TODAY).ok).toBe(true);
    expect(validateGetCurpRequest({ ...OK, fechaNacimiento: '2026-11-21' }, TODAY).ok).toBe(true);
    expect(validateGetCurpRequest({ ...OK, nombres: "María-José D'Ángelo Jr." }, TODAY).ok).toBe(true);
  });
});

describe('validate-voter-list request validation', () => {
  it('cic is required, 9 digits, a string', () => {
    expect(validateVoterListRequest({})).toMatchObject({ ok: false, error: { type: 'MISSING_PARAMETER', parameter: 'cic' } });
    for (const cic of ['12345678', '1234567890', '12345678a', 123456789, ' 1234 5678 9']) {
      expect(validateVoterListRequest({ cic })).toMatchObject({ ok: false, error: { type: 'INVALID_PARAMETER', parameter: 'cic' } });
    }
    expect(validateVoterListRequest({ cic: '012345678' })).toEqual({ ok: true, value: { cic: '012345678' } });
  });
  it('identificadorCiudadano 9 digits and ocr 13 digits when given', () => {
    expect(validateVoterListRequest({ cic: '123456789', identificadorCiudadano: '12345678' })).toMatchObject({ ok: false, error: { type: 'INVALID_PARAMETER', parameter: 'identificadorCiudadano' } });
    expect(validateVoterListRequest({ cic: '123456789', ocr: '123456789012' })).toMatchObject({ ok: false, error: { type: 'INVALID_PARAMETER', parameter: 'ocr' } });
    expect(validateVoterListRequest({ cic: '123456789', identificadorCiudadano: '987654321', ocr: '1234567890123' })).toEqual({
      ok: true,
      value: { cic: '123456789', identificadorCiudadano: '987654321', ocr: '1234567890123' },
    });
  });
  it('passes at most 10 well-named short string extras', () => {
    const body: Record<string, unknown> = { cic: '123456789', claveElector: 'ABC', 'bad key': 'x', nested: { a: 1 }, long: 'x'.repeat(101), __proto__x: 'y' };
    for (let i = 0; i < 20; i++) body[`k${i}`] = 'v';
    const r = validateVoterListRequest(body);
    expect(r.ok && r.value.extra?.claveElector).toBe('ABC');
    expect(r.ok && Object.keys(r.value.extra!).length).toBe(10);
    expect(r.ok && r.value.extra!['bad key']).toBeUndefined();
  });
});

describe('privacy helpers', () => {
  it('fingerprints are keyed, stable across case/spacing, and hold no personal data', () => {
    const req = { nombres: 'Gloria', primerApellido: 'Hernández', sexo: 'M' as const, fechaNacimiento: '1956-04-27', claveEntidad: '30' };
    const a = lookupFingerprint('k1', 'renapo.get-curp', req);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(lookupFingerprint('k1', 'renapo.get-curp', { ...req, nombres: ' GLORIA ' })).toBe(a);
    expect(lookupFingerprint('k2', 'renapo.get-curp', req)).not.toBe(a);
    expect(lookupFingerprint('k1', 'renapo.get-curp', { ...req, fechaNacimiento: '1956-04-28' })).not.toBe(a);
    expect(lookupFingerprint('k1', 'ine.validate-voter-list', { cic: '123456789' })).not.toBe(lookupFingerprint('k1', 'ine.validate-voter-list', { cic: '123456788' }));
  });
  it('masks', () => {
    expect(maskCurp('HEGG560427MVZRRL04')).toBe('HE**************04');
    expect(maskDigits('123456789')).toBe('*****6789');
    expect(maskName('María')).toBe('M****');
  });
});
