/**
 * Black-box tests of /v1/ocr/* over real HTTP with the real worker pool and models, on documents rendered
 * by test/helpers/ocr-fixtures.ts (known ground truth). Heavy calls are kept few: each runs the
 * PaddleOCR models in a worker thread.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { generateDocument } from '../../generators/index.ts';
import { SAMPLE_INE, renderBill, renderIneBack, renderIneFront, renderPassport } from '../../helpers/ocr-fixtures.ts';

// Each heavy call runs the OCR models in a worker thread; on a busy 2-core machine that takes seconds.
vi.setConfig({ testTimeout: 240_000 });

let s: TestServer;
let key: string;
let tenantId: string;
let front: Buffer;
let back: Buffer;

beforeAll(async () => {
  // Cold workers load the models on their first job; on a busy machine that exceeds the default 60 s job timeout.
  s = await startTestServer({ config: { JOB_TIMEOUT_MS: 200_000 } });
  ({ key, tenantId } = await s.tenantWithKey('enterprise'));
  front = await renderIneFront(SAMPLE_INE, { rotate: 6, jpeg: 70 });
  back = await renderIneBack(SAMPLE_INE, { rotate: -4, jpeg: 70 });
});
afterAll(async () => s?.close());

function form(parts: Record<string, Buffer | string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(parts)) {
    if (typeof v === 'string') f.append(k, v);
    else f.append(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), `${k}.jpg`);
  }
  return f;
}

async function post(path: string, body: FormData | object) {
  const init: RequestInit & { key: string } =
    body instanceof FormData
      ? { method: 'POST', body, key }
      : { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' }, key };
  const r = await s.fetch(path, init);
  return { status: r.status, headers: r.headers, body: (await r.json()) as any };
}

/**
 * `got` is the printed name as read: the same letters, where a printed accented vowel or Ñ may have been read
 * without its mark, and no letter carries a mark the printed one lacks (issue 18: never add an accent).
 */
function readAs(got: string, printed: string): boolean {
  const plain = (c: string) => c.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  return [...got].length === [...printed].length && [...got].every((c, i) => c === [...printed][i] || c === plain([...printed][i]!));
}

async function webhookEvents(): Promise<{ type: string; data: any }[]> {
  const r = await s.ctx.events.readStream(`webhook-events-${tenantId}`);
  return (r as any).events.map((e: any) => ({ type: e.type, data: e.data }));
}

describe('POST /v1/ocr/extract/id', () => {
  it('reads a generated INE front and back (multipart): every field equals the ground truth, MRZ checked, events emitted, 3 credits', async () => {
    const doc = await generateDocument({ type: 'ine', seed: 'api-test', index: 3, model: 'G' });
    const r = await post('/v1/ocr/extract/id', form({ front: doc.images.front!.data, back: doc.images.back!.data, document_type: 'ine' }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.headers.get('x-credit-cost')).toBe('3');
    expect(r.body).toMatchObject({ success: true, type: 'ine' });
    expect(r.body.fields).toEqual(doc.truth.fields);
    const today = new Date().toISOString().slice(0, 10);
    const expiryYear = (doc.truth.fields as { dateOfExpiry: string }).dateOfExpiry;
    expect(r.body.validation).toEqual({ ...doc.truth.validation, expired: `${expiryYear}-12-31` < today });
    expect(typeof r.body.processing_time).toBe('number');
    const events = await webhookEvents();
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['ocr.completed', 'ocr.id.extracted']));
    const extracted = events.find((e) => e.type === 'ocr.id.extracted')!;
    // The event log is not a PII store: nothing of the holder, not even a masked CURP (issue 28).
    const curp = (doc.truth.fields as { curp: string }).curp;
    expect(extracted.data).not.toHaveProperty('curp');
    expect(JSON.stringify(events)).not.toContain(curp.slice(0, 4));
  });

  it('front only as JSON base64 (data URL): date of birth from the CURP, mrz not_present, authenticity in parallel', async () => {
    const r = await post('/v1/ocr/extract/id', { image: `data:image/jpeg;base64,${front.toString('base64')}`, include_authenticity: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.fields.dateOfBirth).toBe('1990-01-02');
    expect(r.body.fields.mrz).toBe('');
    expect(r.body.validation.mrz).toBe('not_present');
    expect(r.body.validation).not.toHaveProperty('mrzFields');
    expect(r.body.validation.curp).toBe('ok');
    expect(r.body.authenticity.success).toBe(true);
    const v = r.body.authenticity.validity_check;
    expect(v.method).toMatch(/paddleocr/);
    expect(v.confidence).toBeGreaterThan(0.7);
    expect(v.is_authentic).toBe(true);
    expect(v.tampering_detected).toBe(false);
  });

  it('reads a passport TD3 with every check digit', async () => {
    const p = await renderPassport({ jpeg: 80 });
    const r = await post('/v1/ocr/extract/id', form({ front: p.image, document_type: 'passport' }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.type).toBe('passport');
    // Names as read (issue 18): a printed accent may be missed on the photo, never one added.
    for (const [k, printed] of [['firstSurname', 'GARCÍA'], ['secondSurname', 'LÓPEZ'], ['name', 'MARÍA FERNANDA']] as const) expect(readAs(r.body.fields[k], printed), `${k} ${r.body.fields[k]}`).toBe(true);
    expect(r.body.fields).toMatchObject({ documentNumber: 'G12345678', dateOfBirth: '1985-03-15', dateOfExpiry: '2031-01-01', gender: 'M', nationality: 'MEX', issuingCountry: 'MEX', curp: 'GALM850315MDFRPR06' });
    expect(r.body.fields.mrz).toBe(p.mrz.join('\n'));
    expect(r.body.validation).toMatchObject({ mrz: 'ok', curp: 'ok', expired: false, mrzFields: { documentNumberCheck: true, dateOfBirthCheck: true, dateOfExpiryCheck: true, compositeCheck: true } });
  });

  it('reads a degraded passport photo whose MRZ rows the text detector splits; an INE sent as passport is wrong_document_type', async () => {
    // Generator page whose filler runs the detector leaves out (rows come back as head + tail boxes).
    const doc = await generateDocument({ type: 'passport', seed: 'eval', index: 4, degrade: true });
    const r = await post('/v1/ocr/extract/id', form({ front: doc.images.front!.data, document_type: 'passport' }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const names = ['name', 'firstSurname', 'secondSurname', 'surname'] as const;
    const truth = doc.truth.fields as unknown as Record<string, string>;
    for (const k of names) expect(readAs(r.body.fields[k], truth[k]!), `${k} ${r.body.fields[k]} vs ${truth[k]}`).toBe(true);
    expect({ ...r.body.fields, ...Object.fromEntries(names.map((k) => [k, truth[k]])) }).toEqual(doc.truth.fields);
    expect(r.body.validation).toEqual(doc.truth.validation);
    const ine = await post('/v1/ocr/extract/id', form({ front, document_type: 'passport' }));
    expect(ine.status).toBe(400);
    expect(ine.body).toMatchObject({ success: false, error: 'wrong_document_type' });
    expect(ine.body.message).toMatch(/voter credential/);
  });

  it('rejects the back sent as front (wrong_side) without charging', async () => {
    const before = (await (await s.fetch('/v1/credits/balance', { key })).json()) as any;
    const r = await post('/v1/ocr/extract/id', form({ front: back }));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, error: 'wrong_side' });
    expect(r.headers.get('x-credit-cost')).toBe('0');
    const after = (await (await s.fetch('/v1/credits/balance', { key })).json()) as any;
    expect(after.data.total_used).toBe(before.data.total_used);
  });
});

describe('POST /v1/ocr/extract/document', () => {
  it('reads a generated bill from labels and layout (2 credits)', async () => {
    const doc = await generateDocument({ type: 'electricity_bill', seed: 'api-test', index: 1 });
    const r = await post('/v1/ocr/extract/document', form({ image: doc.images.front!.data, document_type: 'electricity_bill' }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.headers.get('x-credit-cost')).toBe('2');
    expect(r.body.type).toBe('electricity_bill');
    expect(r.body.fields).toEqual(doc.truth.fields);
    expect(r.body.validation).toEqual({ mrz: 'not_present', curp: 'not_present', expired: null });
    // The same bill asked for as a cable bill is refused.
    const wrong = await post('/v1/ocr/extract/document', form({ image: doc.images.front!.data, document_type: 'cable_bill' }));
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('wrong_document_type');
  });
});

describe('POST /v1/ocr/verify/authenticity', () => {
  it('flags an INE whose MRZ contradicts the front (tampering)', async () => {
    const forged = await renderIneBack({ ...SAMPLE_INE, dateOfBirth: '1985-07-04' }, { jpeg: 80 });
    const r = await post('/v1/ocr/verify/authenticity', form({ image: front, back: forged }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.headers.get('x-credit-cost')).toBe('3');
    const v = r.body.validity_check;
    expect(v.tampering_detected).toBe(true);
    expect(v.is_authentic).toBe(false);
    expect(v.details.signals.mrz_matches_front).toBe(false);
    expect(Number.isInteger(v.details.validity_indicators)).toBe(true);
  });
});

describe('errors (flat shape)', () => {
  it('removed endpoints answer 400 not_supported', async () => {
    for (const p of ['/v1/ocr/extract', '/v1/ocr/extract/receipt']) {
      const r = await post(p, {});
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, error: 'not_supported' });
    }
  });

  it('image_required, unsupported_document_type, invalid base64, bad boolean', async () => {
    expect((await post('/v1/ocr/extract/id', {})).body.error).toBe('image_required');
    expect((await post('/v1/ocr/extract/id', form({ document_type: 'ine' }))).body.error).toBe('image_required');
    expect((await post('/v1/ocr/extract/id', { front: 'aGk=', document_type: 'licence' })).body.error).toBe('unsupported_document_type');
    expect((await post('/v1/ocr/extract/document', { image: 'aGk=' })).body.error).toBe('unsupported_document_type');
    expect((await post('/v1/ocr/extract/document', { document_type: 'phone_bill' })).body.error).toBe('image_required');
    const bad = await post('/v1/ocr/extract/id', { front: '%%%not base64%%%' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_request');
    expect((await post('/v1/ocr/extract/id', { front: 'aGk=', include_authenticity: 'maybe' })).body.error).toBe('invalid_request');
    expect((await post('/v1/ocr/extract/id', { front: 12345 })).body.error).toBe('invalid_request');
  });

  it('unsupported_format for non-images and truncated files; image_too_small; no_document_detected; 413 over 10 MB', async () => {
    const junk = await post('/v1/ocr/extract/id', form({ front: Buffer.from('this is not an image at all'.repeat(20)) }));
    expect(junk.status).toBe(400);
    expect(junk.body.error).toBe('unsupported_format');
    const truncated = await post('/v1/ocr/extract/id', form({ front: front.subarray(0, Math.floor(front.length / 3)) }));
    expect(truncated.status).toBe(400);
    expect(truncated.body.error).toBe('unsupported_format');
    const tiny = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#fff' } }).png().toBuffer();
    expect((await post('/v1/ocr/extract/id', form({ front: tiny }))).body.error).toBe('image_too_small');
    const noise = Buffer.alloc(640 * 480 * 3);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
    const blank = await sharp(noise, { raw: { width: 640, height: 480, channels: 3 } }).png().toBuffer();
    const nd = await post('/v1/ocr/extract/id', form({ front: blank }));
    expect(nd.status).toBe(400);
    expect(['no_document_detected', 'image_too_blurry']).toContain(nd.body.error);
    const big = await post('/v1/ocr/extract/document', form({ image: Buffer.alloc(10 * 1024 * 1024 + 10, 1), document_type: 'phone_bill' }));
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ success: false, error: 'file_too_large' });
  });

  it('a blurred photo is image_too_blurry; a bill sent as an INE is wrong_document_type', async () => {
    const blurred = await renderIneFront(SAMPLE_INE, { blur: 6, jpeg: 80 });
    expect((await post('/v1/ocr/extract/id', form({ front: blurred }))).body.error).toBe('image_too_blurry');
    const bill = await renderBill('phone_bill', { jpeg: 80 });
    expect((await post('/v1/ocr/extract/id', form({ front: bill }))).body.error).toBe('wrong_document_type');
  });

  it('401 without a key, in the flat shape', async () => {
    const r = await s.fetch('/v1/ocr/extract/id', { method: 'POST', body: form({ front }) });
    expect(r.status).toBe(401);
    expect(((await r.json()) as any).success).toBe(false);
  });
});
