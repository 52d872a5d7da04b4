/**
 * Registry lookups over real HTTP with the embedded sandbox provider: every error row of the spec
 * ("Errors > Registry lookups"), response shapes, billing, events, log masking, the free CURP validator.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const GLORIA = { nombres: 'Gloria', primerApellido: 'Hernández', segundoApellido: 'García', sexo: 'M', fechaNacimiento: '1956-04-27', claveEntidad: '30' };
const GET_CURP = '/v1/mex/renapo/get-curp';
const VOTER = '/v1/mex/ine/validate-voter-list';
const VALIDATE = '/v1/mex/curp/validate';

let s: TestServer;
let key: string;
let tenantId: string;
const logLines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logLines.push(String(chunk));
      cb();
    },
  });
  s = await startTestServer({ overrides: { log: pino({ level: 'info' }, sink) } });
  ({ key, tenantId } = await s.tenantWithKey('pro'));
});
afterAll(async () => s?.close());

function post(path: string, body: unknown, k: string = key, raw?: string): Promise<Response> {
  return s.fetch(path, { method: 'POST', key: k, headers: { 'content-type': 'application/json' }, body: raw ?? JSON.stringify(body) });
}
async function balance(k: string = key): Promise<number> {
  return (await (await s.fetch('/v1/credits/balance', { key: k })).json()).data.available_credits;
}
async function events(t: string = tenantId) {
  return (await s.ctx.events.readStream(`registry-${t}`)).events;
}

describe('POST /v1/mex/renapo/get-curp (sandbox)', () => {
  it('answers the spec shape, marked as sandbox, and charges 5 credits', async () => {
    const before = await balance();
    const r = await post(GET_CURP, GLORIA);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-registry-sandbox')).toBe('true');
    expect(r.headers.get('x-credit-cost')).toBe('5');
    const body = await r.json();
    expect(Object.keys(body).sort()).toEqual(['data', 'processing_time', 'sandbox', 'status', 'success']);
    expect(body).toMatchObject({ success: true, status: 'OK', sandbox: true });
    expect(typeof body.processing_time).toBe('number');
    expect(body.processing_time).toBeGreaterThanOrEqual(0);
    expect(body.data).toEqual({
      curp: 'HEGG560427MVZRRL04',
      nombres: 'GLORIA',
      primerApellido: 'HERNANDEZ',
      segundoApellido: 'GARCIA',
      sexo: 'M',
      fechaNacimiento: '1956-04-27',
      entidadNacimiento: 'VERACRUZ',
      nacionalidad: 'MEX',
      estatus: 'AN',
    });
    for (const v of Object.values(body.data)) expect(typeof v).toBe('string');
    expect(await balance()).toBe(before - 5);
  });

  it('computes any person with the CURP engine (homonym digit before 2000, letter from 2000; NE; one surname)', async () => {
    const a = await (await post(GET_CURP, { nombres: 'María Luisa', primerApellido: 'Pérez', segundoApellido: 'López', sexo: 'M', fechaNacimiento: '1985-07-14', claveEntidad: '14' })).json();
    expect(a.data.curp).toMatch(/^PELL850714MJCRPS0\d$/);
    const b = await (await post(GET_CURP, { nombres: 'Omar', primerApellido: 'Lozano', segundoApellido: 'Cortés', sexo: 'H', fechaNacimiento: '2003-05-20', claveEntidad: '13' })).json();
    expect(b.data.curp).toMatch(/^LXCO030520HHGZRMA\d$/);
    const c = await post(GET_CURP, { nombres: 'Hans', primerApellido: 'Weber', sexo: 'H', fechaNacimiento: '1970-01-01', claveEntidad: 'NE' });
    expect(c.status).toBe(200);
    const cb = await c.json();
    expect(cb.data).toMatchObject({ segundoApellido: '', entidadNacimiento: 'NACIDO EN EL EXTRANJERO' });
    expect(cb.data.curp.slice(0, 16)).toBe('WEXH700101HNEBXN');
  });

  it.each(['nombres', 'primerApellido', 'sexo', 'fechaNacimiento', 'claveEntidad'])('400 MISSING_PARAMETER naming %s, not charged', async (param) => {
    const before = await balance();
    const { [param]: _omit, ...body } = GLORIA as Record<string, string>;
    const r = await post(GET_CURP, body);
    expect(r.status).toBe(400);
    expect(r.headers.get('x-credit-cost')).toBe('0');
    const b = await r.json();
    expect(b).toEqual({ success: false, status: 'ERROR', type: 'MISSING_PARAMETER', message: `Missing required parameter: ${param}`, sandbox: true });
    expect(await balance()).toBe(before);
  });

  it('400 for an empty body, with or without a JSON content type', async () => {
    const r = await s.fetch(GET_CURP, { method: 'POST', key });
    expect(r.status).toBe(400);
    expect((await r.json()).type).toBe('MISSING_PARAMETER');
    const j = await s.fetch(GET_CURP, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '' });
    expect(j.status).toBe(400);
    expect((await j.json()).status).toBe('ERROR');
  });

  const invalid: Array<[string, unknown]> = [
    ['sexo', 'X'],
    ['sexo', 'Hombre'],
    ['fechaNacimiento', '1990-02-30'],
    ['fechaNacimiento', '15/05/1990'],
    ['fechaNacimiento', '2999-01-01'],
    ['claveEntidad', '33'],
    ['claveEntidad', '00'],
    ['claveEntidad', '7'],
    ['claveEntidad', 9],
    ['nombres', 12345],
    ['primerApellido', '<script>alert(1)</script>'],
    ['segundoApellido', ['x']],
  ];
  it.each(invalid)('400 INVALID_PARAMETER for %s = %j', async (param, value) => {
    const r = await post(GET_CURP, { ...GLORIA, [param]: value });
    expect(r.status).toBe(400);
    const b = await r.json();
    expect(b).toMatchObject({ success: false, status: 'ERROR', type: 'INVALID_PARAMETER' });
    expect(b.message).toContain(param);
    expect(JSON.stringify(b)).not.toMatch(/stack|at \w+ \(/);
  });

  it('400 INVALID_PARAMETER for a body that is not JSON, or not an object', async () => {
    const r = await post(GET_CURP, null, key, '{"nombres": "Gl');
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ status: 'ERROR', type: 'INVALID_PARAMETER' });
    const arr = await post(GET_CURP, [GLORIA]);
    expect(arr.status).toBe(400);
    expect((await arr.json()).type).toBe('INVALID_PARAMETER');
  });

  it('hostile bodies: too large (413), text or form bodies (400/415), deep nesting, __proto__, all in the registry shape', async () => {
    const big = await post(GET_CURP, null, key, JSON.stringify({ ...GLORIA, nombres: 'A'.repeat(2 * 1024 * 1024) }));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ success: false, status: 'ERROR' });
    const text = await s.fetch(GET_CURP, { method: 'POST', key, headers: { 'content-type': 'text/plain' }, body: 'nombres=Gloria' });
    expect(text.status).toBe(400);
    expect(await text.json()).toMatchObject({ status: 'ERROR', type: 'INVALID_PARAMETER' });
    const form = await s.fetch(GET_CURP, { method: 'POST', key, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'nombres=Gloria' });
    expect(form.status).toBe(415);
    expect((await form.json()).status).toBe('ERROR');
    const deep = await post(GET_CURP, null, key, '['.repeat(300_000) + ']'.repeat(300_000));
    expect(deep.status).toBe(400);
    expect((await deep.json()).status).toBe('ERROR');
    const proto = await post(GET_CURP, null, key, '{"__proto__":{"admin":true},"nombres":"Gloria"}');
    expect(proto.status).toBe(400);
    expect((await proto.json()).status).toBe('ERROR');
    // The server is still fine.
    expect((await post(GET_CURP, GLORIA)).status).toBe(200);
  });

  it('404 NOT_FOUND (registry shape) when nobody has these data, not charged', async () => {
    const before = await balance();
    const r = await post(GET_CURP, { ...GLORIA, primerApellido: 'Inexistente' });
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ success: false, status: 'ERROR', type: 'NOT_FOUND' });
    expect(await balance()).toBe(before);
  });

  it('503 SERVICE_UNAVAILABLE with error_code and details.service/error_message, not charged', async () => {
    const before = await balance();
    const r = await post(GET_CURP, { ...GLORIA, primerApellido: 'Indisponible' });
    expect(r.status).toBe(503);
    expect(r.headers.get('x-credit-cost')).toBe('0');
    const b = await r.json();
    expect(b).toMatchObject({ success: false, status: 'ERROR', type: 'SERVICE_UNAVAILABLE', error_code: 'SERVICE_UNAVAILABLE', details: { service: 'RENAPO' }, sandbox: true });
    expect(r.headers.get('x-registry-sandbox')).toBe('true');
    expect(typeof b.message).toBe('string');
    expect(typeof b.details.error_message).toBe('string');
    expect(await balance()).toBe(before);
  });
});

describe('POST /v1/mex/ine/validate-voter-list (sandbox)', () => {
  it('answers a valid credential with every field, charging 15', async () => {
    const before = await balance();
    const r = await post(VOTER, { cic: '123456789', identificadorCiudadano: '987654321', ocr: '1234567890123' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-credit-cost')).toBe('15');
    const b = await r.json();
    expect(b).toMatchObject({ success: true, status: 'OK', sandbox: true });
    expect(Object.keys(b.data).sort()).toEqual(['cic', 'entidad', 'estatus', 'fechaVigencia', 'identificadorCiudadano', 'message', 'municipio', 'ocr', 'seccion', 'valid']);
    expect(b.data).toMatchObject({ valid: true, cic: '123456789', estatus: 'VIGENTE', fechaVigencia: '2031-12-31' });
    expect(await balance()).toBe(before - 15);
  });

  it.each([['000000001', 'unknown'], ['345678912', 'expired'], ['456789123', 'reported stolen']])('200 with only valid=false, cic and message for %s (%s)', async (cic) => {
    const r = await post(VOTER, { cic });
    expect(r.status).toBe(200);
    const b = await r.json();
    expect(b.success).toBe(true);
    expect(b.status).toBe('OK');
    expect(Object.keys(b.data).sort()).toEqual(['cic', 'message', 'valid']);
    expect(b.data).toMatchObject({ valid: false, cic });
  });

  it('400 MISSING_PARAMETER for cic', async () => {
    const r = await post(VOTER, { ocr: '1234567890123' });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ success: false, status: 'ERROR', type: 'MISSING_PARAMETER', message: 'Missing required parameter: cic', sandbox: true });
  });

  const invalid: Array<[string, unknown]> = [
    ['cic', '12345678'],
    ['cic', '1234567890'],
    ['cic', 'ABCDEFGHI'],
    ['cic', 123456789],
    ['identificadorCiudadano', '1234'],
    ['ocr', '123456789012'],
    ['ocr', '12345678901234'],
  ];
  it.each(invalid)('400 INVALID_PARAMETER for %s = %j', async (param, value) => {
    const r = await post(VOTER, { cic: '123456789', [param]: value });
    expect(r.status).toBe(400);
    const b = await r.json();
    expect(b).toMatchObject({ success: false, status: 'ERROR', type: 'INVALID_PARAMETER' });
    expect(b.message).toContain(param);
  });

  it('503 SERVICE_UNAVAILABLE names the INE service', async () => {
    const r = await post(VOTER, { cic: '999999999' });
    expect(r.status).toBe(503);
    expect(await r.json()).toMatchObject({ type: 'SERVICE_UNAVAILABLE', error_code: 'SERVICE_UNAVAILABLE', details: { service: 'INE' } });
  });
});

describe('credits, authentication and permissions', () => {
  it('402 with the registry body when credits are insufficient, without calling the provider', async () => {
    const free = await s.tenantWithKey('free'); // 20 credits a month
    expect((await post(VOTER, { cic: '123456789' }, free.key)).status).toBe(200); // 20 -> 5
    const eventsBefore = (await events(free.tenantId)).length;
    const r = await post(VOTER, { cic: '123456789' }, free.key);
    expect(r.status).toBe(402);
    expect(await r.json()).toEqual({ success: false, error: 'Insufficient credits', credits_required: 15, credits_available: 5 });
    expect(r.headers.get('x-credit-cost')).toBe('15');
    expect((await events(free.tenantId)).length).toBe(eventsBefore);
    expect((await post(GET_CURP, GLORIA, free.key)).status).toBe(200); // 5 credits still buy a get-curp
    const r2 = await post(GET_CURP, GLORIA, free.key);
    expect(r2.status).toBe(402);
    expect(await r2.json()).toEqual({ success: false, error: 'Insufficient credits', credits_required: 5, credits_available: 0 });
  });

  it('401 without a key, 403 for a key without read permission', async () => {
    for (const path of [GET_CURP, VOTER, VALIDATE]) {
      const r = await s.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(r.status, path).toBe(401);
    }
    const { key: writeOnly } = await s.createKey(tenantId, ['write']);
    for (const path of [GET_CURP, VOTER, VALIDATE]) {
      const r = await post(path, {}, writeOnly);
      expect(r.status, path).toBe(403);
    }
  });
});

describe('lookup events and logs', () => {
  it('every lookup appends an event with a fingerprint, outcome and provider latency, and no personal data', async () => {
    const t = await s.tenantWithKey('pro');
    await post(GET_CURP, GLORIA, t.key);
    await post(GET_CURP, GLORIA, t.key);
    await post(GET_CURP, { ...GLORIA, primerApellido: 'Inexistente' }, t.key);
    await post(VOTER, { cic: '123456789', ocr: '1234567890123' }, t.key);
    await post(VOTER, { cic: '12345' }, t.key);
    const ev = await events(t.tenantId);
    expect(ev.map((e) => (e.data as { outcome: string }).outcome)).toEqual(['found', 'found', 'not_found', 'valid', 'rejected']);
    for (const e of ev) {
      expect(e.type).toBe('registry.lookup.completed');
      expect(e.metadata.tenant_id).toBe(t.tenantId);
      expect(typeof e.metadata.request_id).toBe('string');
      const text = JSON.stringify(e);
      for (const pii of ['GLORIA', 'Gloria', 'Hern', '1956', 'HEGG', '123456789', '1234567890123']) expect(text).not.toContain(pii);
    }
    const d = ev.map((e) => e.data as Record<string, unknown>);
    expect(d[0]!.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    expect(d[0]!.fingerprint).toBe(d[1]!.fingerprint); // same request, same fingerprint
    expect(d[2]!.fingerprint).not.toBe(d[0]!.fingerprint);
    expect(typeof d[0]!.provider_latency_ms).toBe('number');
    expect(d[0]).toMatchObject({ operation: 'renapo.get-curp', provider: 'sandbox', sandbox: true, http_status: 200, registry_status: 'AN' });
    expect(d[4]).toMatchObject({ operation: 'ine.validate-voter-list', outcome: 'rejected', reason: 'INVALID_PARAMETER', parameter: 'cic', fingerprint: null, provider_latency_ms: null });
    // Another tenant's stream holds none of them.
    expect((await events(tenantId)).every((e) => e.metadata.tenant_id === tenantId)).toBe(true);
  });

  it('logs carry no personal data or credentials', async () => {
    await post(GET_CURP, { ...GLORIA, nombres: 'Zacarías Eustaquio' });
    await post(VOTER, { cic: '234567891', ocr: '2345678901234' });
    const text = logLines.join('');
    expect(text).toContain('registry lookup');
    for (const pii of ['Zacar', 'ZACAR', 'Eustaquio', 'EUSTAQUIO', '234567891', '2345678901234', '1956-04-27', key]) expect(text, pii).not.toContain(pii);
  });
});

describe('POST /v1/mex/curp/validate (free)', () => {
  it('validates and decodes a CURP without charging', async () => {
    const before = await balance();
    const r = await post(VALIDATE, { curp: ' hegg560427mvzrrl04 ' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-credit-cost')).toBe('0');
    expect(await r.json()).toEqual({
      success: true,
      data: {
        curp: 'HEGG560427MVZRRL04',
        valid: true,
        errors: [],
        components: {
          name_initials: 'HEGG',
          birth_date: '1956-04-27',
          sex: 'M',
          state: 'VERACRUZ',
          state_code: 'VZ',
          clave_entidad: '30',
          foreign_born: false,
          internal_consonants: 'RRL',
          homonym_character: '0',
          check_digit: '4',
          expected_check_digit: '4',
        },
      },
    });
    expect(await balance()).toBe(before);
  });
  it('lists every broken rule', async () => {
    const b = await (await post(VALIDATE, { curp: 'BACA891313QQQRMS05' })).json();
    expect(b.data.valid).toBe(false);
    expect(b.data.errors.map((e: { code: string }) => e.code).sort()).toEqual(['inconvenient_word', 'invalid_birth_date', 'invalid_check_digit', 'invalid_sex', 'invalid_state']);
    const short = await (await post(VALIDATE, { curp: 'HEGG56' })).json();
    expect(short.data).toMatchObject({ valid: false, components: null, errors: [{ code: 'invalid_length' }] });
  });
  it('400 MISSING_PARAMETER / INVALID_PARAMETER in the registry shape', async () => {
    expect(await (await post(VALIDATE, {})).json()).toEqual({ success: false, status: 'ERROR', type: 'MISSING_PARAMETER', message: 'Missing required parameter: curp', sandbox: true });
    const r = await post(VALIDATE, { curp: 42 });
    expect(r.status).toBe(400);
    expect((await r.json()).type).toBe('INVALID_PARAMETER');
    const arr = await post(VALIDATE, ['HEGG560427MVZRRL04']);
    expect(arr.status).toBe(400);
    expect((await arr.json()).type).toBe('INVALID_PARAMETER');
    const empty = await s.fetch(VALIDATE, { method: 'POST', key });
    expect((await empty.json()).type).toBe('MISSING_PARAMETER');
  });
  it('survives a hostile body (900 KB string)', async () => {
    const r = await post(VALIDATE, { curp: 'A'.repeat(900_000) });
    expect(r.status).toBe(200);
    const b = await r.json();
    expect(b.data.valid).toBe(false);
    expect(b.data.curp.length).toBeLessThanOrEqual(64);
  });
  it('is documented in the OpenAPI document with the lookups', async () => {
    const doc = await (await fetch(`${s.url}/openapi.json`)).json();
    for (const p of [GET_CURP, VOTER, VALIDATE]) {
      expect(doc.paths[p]?.post?.summary, p).toBeTruthy();
      expect(doc.paths[p].post.tags).toContain('mex');
    }
    expect(JSON.stringify(doc.paths[VALIDATE].post)).toContain('components');
    // 401, 403 and 429: the edge's answers (apps/api/openapi-edge.ts); 409 and 422: the Idempotency-Key's (charged calls)
    expect(Object.keys(doc.paths[GET_CURP].post.responses).sort()).toEqual(['200', '400', '401', '402', '403', '404', '409', '422', '429', '503']);
    expect(Object.keys(doc.paths[VOTER].post.responses).sort()).toEqual(['200', '400', '401', '402', '403', '409', '422', '429', '503']);
    expect(doc.paths[GET_CURP].post.parameters.some((p: { $ref?: string }) => p.$ref === '#/components/parameters/IdempotencyKey')).toBe(true);
    expect(JSON.stringify(doc.paths[GET_CURP].post)).toContain('claveEntidad');
  });
});
