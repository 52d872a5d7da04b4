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
  it('an absent body misses the first parameter; a body that is not an object is invalid', () => {
    for (const b of [undefined, null, '']) expect(validateGetCurpRequest(b, TODAY)).toMatchObject({ ok: false, error: { type: 'MISSING_PARAMETER', parameter: 'nombres' } });
    for (const b of ['x', 42, [OK], true]) expect(validateGetCurpRequest(b, TODAY)).toMatchObject({ ok: false, error: { type: 'INVALID_PARAMETER', parameter: 'body' } });
    expect(validateVoterListRequest([{ cic: '123456789' }])).toMatchObject({ ok: false, error: { type: 'INVALID_PARAMETER', parameter: 'body' } });
  });
  const invalid: Array<[string, unknown]> = [
    ['sexo', 'X'], ['sexo', 'h'], ['sexo', 'HM'], ['sexo', 1],
    ['fechaNacimiento', '1956-02-30'], ['fechaNacimiento', '1956-13-01'], ['fechaNacimiento', '27/04/1956'], ['fechaNacimiento', '1956-4-27'],
    ['fechaNacimiento', '2026-11-22'], ['fechaNacimiento', '1899-12-31'], ['fechaNacimiento', 19560427],
    ['claveEntidad', '00'], ['claveEntidad', '33'], ['claveEntidad', '1'], ['claveEntidad', 'JC'], ['claveEntidad', 9], ['claveEntidad', 'ne'],
    ['nombres', 42], ['nombres', ['Ana']], ['nombres', 'Ana<script>'], ['nombres', '123'], ['nombres', '\u0301a'], ['nombres', '-Ana'], ['primerApellido', 'x'.repeat(101)], ['segundoApellido', 7],
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

describe('fingerprint key', () => {
  it('is created once in DATA_DIR (0600) and reused; REGISTRY_FINGERPRINT_KEY wins', async () => {
    const { mkdtempSync, rmSync, statSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { loadConfig } = await import('../../apps/api/config.ts');
    const { loadFingerprintKey } = await import('../../infra/secrets/index.ts');
    const dir = mkdtempSync(join(tmpdir(), 'fp-key-'));
    try {
      const a = loadFingerprintKey(loadConfig({}, { DATA_DIR: dir }));
      const b = loadFingerprintKey(loadConfig({}, { DATA_DIR: dir }));
      expect(a.length).toBe(32);
      expect(b.equals(a)).toBe(true);
      expect(statSync(join(dir, 'registry-fingerprint.key')).mode & 0o777).toBe(0o600);
      expect(loadFingerprintKey(loadConfig({}, { DATA_DIR: dir, REGISTRY_FINGERPRINT_KEY: 'operator-key-0123456789' })).toString()).toBe('operator-key-0123456789');
      expect(() => loadFingerprintKey(loadConfig({}, { DATA_DIR: dir, REGISTRY_FINGERPRINT_KEY: 'short' }))).toThrow(/16 bytes/);
      writeFileSync(join(dir, 'registry-fingerprint.key'), 'abc');
      expect(() => loadFingerprintKey(loadConfig({}, { DATA_DIR: dir }))).toThrow(/16 bytes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
