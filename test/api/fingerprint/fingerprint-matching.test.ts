/**
 * Fingerprint matching over real HTTP: the real server, worker pool (`fingerprint.extract`), embedded
 * event store and read models. Prints come from `../shared/data/fingerprint` (skipped with a printed
 * reason where absent); the error cases need no data.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonCalls, startTestServer, type TestServer } from '../../helpers/server.ts';
import { ProjectionRunner } from '../../../projections/runner.ts';
import { capabilities, projectionsOf } from '../../../apps/capabilities/index.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fpDir = path.resolve(repoRoot, '../shared/data/fingerprint');
const haveData = existsSync(path.join(fpDir, 'fvc2002/pairs.csv'));
if (!haveData) console.warn(`fingerprint API tests with prints skipped: ${fpDir} is absent`);
const fvc = (db: string, name: string) => readFileSync(path.join(fpDir, 'fvc2002', db, name));
const sample = (name: string) => readFileSync(path.join(fpDir, 'sourceafis-samples', name));
const facePath = path.resolve(repoRoot, '../shared/data/faces/face-api-js/images/sheldon/sheldon1.png');

const TIMEOUT = 300_000;
let s: TestServer;
let A: { tenantId: string; key: string };
let B: { tenantId: string; key: string };

const { post, get, del } = jsonCalls(() => s);

beforeAll(async () => {
  s = await startTestServer();
  A = await s.tenantWithKey('enterprise');
  B = await s.tenantWithKey('enterprise');
});
afterAll(async () => s?.close());

describe('fingerprint matching: errors', () => {
  it('refuses missing files, bad fields, unknown formats and oversized uploads in the structured shape', async () => {
    expect((await s.fetch('/v1/fingerprint-matching/templates')).status).toBe(401);
    const none = await post(A.key, '/v1/fingerprint-matching/enroll', { subject_id: 'x' });
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('missing_image');
    const junk = Buffer.from('not an image at all');
    for (const [url, fields, field] of [
      ['/v1/fingerprint-matching/enroll', { image: junk, subject_id: 'x', finger_position: '11' }, 'finger_position'],
      ['/v1/fingerprint-matching/enroll', { image: junk, subject_id: '' }, 'subject_id'],
      ['/v1/fingerprint-matching/enroll', { image: junk, subject_id: 'x', metadata: '[1]' }, 'metadata'],
      ['/v1/fingerprint-matching/enroll', { image: junk, subject_id: 'x', metadata: `${'{"a":'.repeat(1001)}1${'}'.repeat(1001)}` }, 'metadata'],
      ['/v1/fingerprint-matching/search', { image: junk, threshold: '101' }, 'threshold'],
      ['/v1/fingerprint-matching/search', { image: junk, limit: '0' }, 'limit'],
    ] as const) {
      const r = await post(A.key, url, fields);
      expect(r.status, `${url} ${field}`).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
      expect(r.body.error.details.field).toBe(field);
      expect(r.headers.get('x-credit-cost')).toBe('0');
    }
    // An ISO/IEC 19794-2 record with no minutiae is refused as a probe as it is at enrolment (it was 200 and charged)
    const empty = Buffer.from('464d5200203230000000001e000000e0012000c500c50100000064000000', 'hex');
    for (const url of ['/v1/fingerprint-matching/enroll', '/v1/fingerprint-matching/search', '/v1/fingerprint-matching/verify/someone']) {
      const r = await post(A.key, url, url.endsWith('enroll') ? { template: empty, subject_id: 'x' } : { template: empty });
      expect(r.status, url).toBe(400);
      expect(r.body.error.code, url).toBe('insufficient_quality');
      expect(r.headers.get('x-credit-cost')).toBe('0');
    }
    const fmt = await post(A.key, '/v1/fingerprint-matching/search', { image: junk });
    expect(fmt.status).toBe(400);
    expect(fmt.body.error.code).toBe('unsupported_format');
    const big = await post(A.key, '/v1/fingerprint-matching/search', { image: Buffer.alloc(6 * 1024 * 1024, 1) });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('image_too_large');
  }, TIMEOUT);

  it('refuses blank, tiny and decompression-bomb images', async () => {
    const blank = await sharp({ create: { width: 300, height: 300, channels: 3, background: "#ffffff" } }).png().toBuffer();
    const r1 = await post(A.key, '/v1/fingerprint-matching/search', { image: blank });
    expect(r1.status).toBe(400);
    expect(r1.body.error.code).toBe('blank_image');
    const tiny = await sharp({ create: { width: 60, height: 60, channels: 3, background: "#000000" } }).png().toBuffer();
    const r2 = await post(A.key, '/v1/fingerprint-matching/search', { image: tiny });
    expect(r2.body.error.code).toBe('image_too_small');
    // 10,000 × 10,000 px of one colour compresses to a few kB.
    const bomb = await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: "#ffffff" } }).png({ compressionLevel: 9 }).toBuffer();
    const r3 = await post(A.key, '/v1/fingerprint-matching/search', { image: bomb });
    expect(r3.status).toBe(413);
    expect(r3.body.error.code).toBe('image_too_large');
    const tiff = await sharp({ create: { width: 300, height: 300, channels: 3, background: "#808080" } }).tiff().toBuffer();
    const r4 = await post(A.key, '/v1/fingerprint-matching/search', { image: tiff.subarray(0, 200) });
    expect(r4.status).toBe(400);
    expect(r4.body.error.code).toBe('unsupported_format');
  }, TIMEOUT);

  it('answers 404 for unknown templates and subjects; a new tenant lists nothing', async () => {
    expect((await del(A.key, '/v1/fingerprint-matching/templates/fpt_nope')).body.error.code).toBe('template_not_found');
    expect((await s.fetch('/v1/fingerprint-matching/templates/fpt_nope/iso', { key: A.key })).status).toBe(404);
    expect(await get(B.key, '/v1/fingerprint-matching/templates')).toEqual({ status: 200, body: { success: true, templates: [], count: 0 } });
  });
});

describe.skipIf(!haveData)('fingerprint matching on real prints', () => {
  it('enrolls, verifies, searches, exports, isolates tenants and deletes', async () => {
    const e1 = await post(A.key, '/v1/fingerprint-matching/enroll', { image: fvc('DB1_B', '101_1.tif'), subject_id: 'alice', finger_position: '2', metadata: '{"k":1}' });
    expect(e1.status, JSON.stringify(e1.body)).toBe(200);
    expect(e1.body).toMatchObject({ success: true, subjectId: 'alice', fingerPosition: 2, source: 'image' });
    expect(e1.body.minutiaeCount).toBeGreaterThanOrEqual(8);
    expect(e1.body.qualityScore).toBeGreaterThan(0);
    expect(e1.headers.get('x-credit-cost')).toBe('2');
    const e2 = await post(A.key, '/v1/fingerprint-matching/enroll', { image: fvc('DB1_B', '102_1.tif'), subject_id: 'bob' });
    expect(e2.status).toBe(200);

    // 1:1: the same finger's other impression is verified, another finger is not.
    const same = await post(A.key, '/v1/fingerprint-matching/verify/alice', { image: fvc('DB1_B', '101_2.tif') });
    expect(same.status).toBe(200);
    const other = await post(A.key, '/v1/fingerprint-matching/verify/alice', { image: fvc('DB1_B', '102_2.tif') });
    expect(other.status).toBe(200);
    expect(same.body.score).toBeGreaterThan(other.body.score);
    expect(same.body.verified).toBe(true);
    expect(other.body.verified).toBe(false);
    expect(same.body.templateId).toBe(e1.body.templateId);

    // 1:N: bob's other impression finds bob first.
    const found = await post(A.key, '/v1/fingerprint-matching/search', { image: fvc('DB1_B', '102_2.tif'), threshold: '0' });
    expect(found.status).toBe(200);
    expect(found.body.candidates[0].subjectId).toBe('bob');
    expect(found.body.gallerySize).toBe(2);

    // Tenant B sees none of it.
    expect((await post(B.key, '/v1/fingerprint-matching/verify/alice', { image: fvc('DB1_B', '101_2.tif') })).status).toBe(404);
    expect((await post(B.key, '/v1/fingerprint-matching/search', { image: fvc('DB1_B', '101_2.tif'), threshold: '0' })).body.candidates).toEqual([]);
    expect((await del(B.key, `/v1/fingerprint-matching/templates/${e1.body.templateId}`)).status).toBe(404);
    expect((await s.fetch(`/v1/fingerprint-matching/templates/${e1.body.templateId}/iso`, { key: B.key })).status).toBe(404);

    // ISO export, then enrollment from the exported record.
    const iso = await s.fetch(`/v1/fingerprint-matching/templates/${e1.body.templateId}/iso`, { key: A.key });
    expect(iso.status).toBe(200);
    const isoBytes = Buffer.from(await iso.arrayBuffer());
    expect(isoBytes.subarray(0, 4).toString('latin1')).toBe('FMR\0');
    const e3 = await post(A.key, '/v1/fingerprint-matching/enroll', { template: isoBytes, subject_id: 'alice-iso' });
    expect(e3.status).toBe(200);
    expect(e3.body).toMatchObject({ source: 'iso', fingerPosition: 2, minutiaeCount: e1.body.minutiaeCount });
    // An ISO record has no orientation field: its enrollment event carries none (matching on minutiae alone).
    const isoEvent = (await s.ctx.events.readStream(`fingerprint-template-${e3.body.templateId}`)).events[0]!;
    expect((isoEvent.data as { field_b64?: string }).field_b64).toBeUndefined();
    expect((await s.ctx.events.readStream(`fingerprint-template-${e1.body.templateId}`)).events[0]!.data).toHaveProperty('field_b64');

    const list = await get(A.key, '/v1/fingerprint-matching/templates?subject_id=alice');
    expect(list.body.count).toBe(1);
    expect(list.body.templates[0]).toMatchObject({ id: e1.body.templateId, verification_count: 1, metadata: { k: 1 }, is_active: true });

    // Deletion by id, then by subject, then all.
    expect((await del(A.key, `/v1/fingerprint-matching/templates/${e1.body.templateId}`)).status).toBe(200);
    expect((await del(A.key, `/v1/fingerprint-matching/templates/${e1.body.templateId}`)).status).toBe(404);
    expect((await post(A.key, '/v1/fingerprint-matching/verify/alice', { image: fvc('DB1_B', '101_2.tif') })).status).toBe(404);
    expect((await del(A.key, '/v1/fingerprint-matching/templates?subject_id=bob')).body.message).toMatch(/Deleted 1 template/);
    expect((await del(A.key, '/v1/fingerprint-matching/templates')).body.message).toMatch(/Deleted 1 template/);
    expect((await get(A.key, '/v1/fingerprint-matching/templates')).body.count).toBe(0);
    expect((await get(A.key, '/v1/fingerprint-matching/templates?active_only=false')).body.count).toBe(3);
  }, TIMEOUT);

  it('a replay (what `npm run cli -- replay` runs) rebuilds the same listing, and matching still works', async () => {
    const C = await s.tenantWithKey('enterprise');
    const e1 = await post(C.key, '/v1/fingerprint-matching/enroll', { image: fvc('DB2_B', '103_1.tif'), dpi: '569', subject_id: 'carol' });
    const e2 = await post(C.key, '/v1/fingerprint-matching/enroll', { image: fvc('DB2_B', '104_1.tif'), dpi: '569', subject_id: 'dave' });
    expect([e1.status, e2.status]).toEqual([200, 200]);
    expect((await post(C.key, '/v1/fingerprint-matching/verify/carol', { image: fvc('DB2_B', '103_2.tif'), dpi: '569' })).body.verified).toBe(true);
    expect((await del(C.key, `/v1/fingerprint-matching/templates/${e2.body.templateId}`)).status).toBe(200);
    const before = await get(C.key, '/v1/fingerprint-matching/templates?active_only=false');
    await ProjectionRunner.replay(s.ctx.events, projectionsOf(capabilities), { store: s.ctx.readModels, vectorIndex: s.ctx.vectorIndex });
    const after = await get(C.key, '/v1/fingerprint-matching/templates?active_only=false');
    expect(after).toEqual(before);
    // The orientation field (field.ts) travels in the enrollment event and comes back with the replay.
    const enrolled = (await s.ctx.events.readStream(`fingerprint-template-${e1.body.templateId}`)).events[0]!;
    const fieldB64 = (enrolled.data as { field_b64?: string }).field_b64;
    expect(fieldB64).toMatch(/^[A-Za-z0-9+/]{200,}={0,2}$/);
    const doc = await (await s.ctx.readModels.collection<{ field_b64?: string }>('fingerprint_templates')).get(e1.body.templateId);
    expect(doc?.field_b64).toBe(fieldB64);
    expect(after.body.templates.find((t: { id: string }) => t.id === e1.body.templateId)).toMatchObject({ verification_count: 1, is_active: true });
    expect(after.body.templates.find((t: { id: string }) => t.id === e2.body.templateId)).toMatchObject({ is_active: false });
    const found = await post(C.key, '/v1/fingerprint-matching/search', { image: fvc('DB2_B', '103_3.tif'), dpi: '569', threshold: '0' });
    expect(found.body.candidates.map((c: { subjectId: string }) => c.subjectId)).toEqual(['carol']);
  }, TIMEOUT);

  it('refuses a face photo and truncated ISO templates', async () => {
    if (existsSync(facePath)) {
      const face = await sharp(readFileSync(facePath)).resize(400, 400).png().toBuffer();
      const r = await post(A.key, '/v1/fingerprint-matching/search', { image: face });
      expect(r.status).toBe(400);
      expect(['not_a_fingerprint', 'insufficient_quality', 'blank_image']).toContain(r.body.error.code);
    }
    const dir = path.join(fpDir, 'invalid-iso-templates/fvc2004/DB_1B');
    for (const name of ['101_1_truncate_1_byte.iso', '101_1_truncate_2_bytes.iso', '101_1_truncate_3_bytes.iso']) {
      const r = await post(A.key, '/v1/fingerprint-matching/search', { template: readFileSync(path.join(dir, name)) });
      expect(r.status, name).toBe(400);
      expect(r.body.error.code).toBe('invalid_template');
    }
  }, TIMEOUT);

  it('reads the SourceAFIS samples in PNG, BMP and JPEG', async () => {
    const enrolled = await post(B.key, '/v1/fingerprint-matching/enroll', { image: sample('matching.png'), subject_id: 'afis-matching' });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
    const other = await post(B.key, '/v1/fingerprint-matching/enroll', { image: sample('nonmatching.png'), subject_id: 'afis-nonmatching' });
    expect(other.status).toBe(200);
    for (const probe of ['probe.png', 'probe.bmp', 'probe.jpeg']) {
      const r = await post(B.key, '/v1/fingerprint-matching/search', { image: sample(probe), threshold: '0', limit: '2' });
      expect(r.status, probe).toBe(200);
      expect(r.body.candidates[0].subjectId, probe).toBe('afis-matching');
    }
    // WSQ: test/api/fingerprint/fingerprint-wsq.test.ts
  }, TIMEOUT);
});
