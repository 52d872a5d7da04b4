/**
 * Face matching over real HTTP: the real server, worker-thread pool and face models (face group's
 * `face.descriptor` / `face.liveness` jobs), the embedded event store, read models and vector index.
 * Identities come from `../shared/data/faces` (skipped with a printed reason where absent) and from the
 * face-api package's demo samples (npm-shipped).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonCalls, startTestServer, type TestServer } from '../../helpers/server.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const facesDir = path.resolve(repoRoot, '../shared/data/faces');
const haveShared = existsSync(path.join(facesDir, 'labels.csv'));
if (!haveShared) console.warn(`face-matching API tests with shared identities skipped: ${facesDir} is absent`);

/** Three images each of three identities (face-api.js's labelled 150x150 crops). */
const PEOPLE = ['sheldon', 'penny', 'raj'] as const;
const shared = (who: string, n: number) => readFileSync(path.join(facesDir, `face-api-js/images/${who}/${who}${n}.png`));

function npmSample(name: string): Buffer | null {
  try {
    const req = createRequire(import.meta.url);
    const dir = path.dirname(req.resolve('@vladmandic/face-api/package.json'));
    return readFileSync(path.join(dir, 'demo', name));
  } catch {
    return null;
  }
}

/** Inference runs on a shared 2-core machine: allow for slow workers (the models load once per worker). */
const INFERENCE_TIMEOUT = 600_000;

let s: TestServer;
let A: { tenantId: string; key: string };
let B: { tenantId: string; key: string };

const { post, get, del } = jsonCalls(() => s, 'img');

beforeAll(async () => {
  s = await startTestServer();
  A = await s.tenantWithKey('enterprise');
  B = await s.tenantWithKey('enterprise');
});
afterAll(async () => s?.close());

describe('face matching without inference', () => {
  it('rejects a request without credentials, without an image, or with bad fields, in the structured shape', async () => {
    expect((await s.fetch('/v1/face-matching/embeddings')).status).toBe(401);
    const noImage = await post(A.key, '/v1/face-matching/enroll', { subject_id: 'x' });
    expect(noImage.status).toBe(400);
    expect(noImage.body).toEqual({ success: false, error: { code: 'missing_image', message: expect.any(String), details: { field: 'image' } } });
    const img = Buffer.from('not an image');
    for (const [url, fields, fieldName] of [
      ['/v1/face-matching/enroll', { image: img, subject_id: 'x', metadata: '[1,2]' }, 'metadata'],
      // nested past 32 levels (1,001 levels made SQLite's JSON index refuse the row: the projection failed for every tenant)
      ['/v1/face-matching/enroll', { image: img, subject_id: 'x', metadata: `${'{"a":'.repeat(1001)}1${'}'.repeat(1001)}` }, 'metadata'],
      ['/v1/face-matching/enroll', { image: img, subject_id: 'x', metadata: `${'{"a":'.repeat(33)}1${'}'.repeat(33)}` }, 'metadata'],
      ['/v1/face-matching/enroll', { image: img, subject_id: 'x', quality_score: '1.5' }, 'quality_score'],
      ['/v1/face-matching/enroll', { image: img, subject_id: '' }, 'subject_id'],
      ['/v1/face-matching/search', { image: img, threshold: 'abc' }, 'threshold'],
      ['/v1/face-matching/search', { image: img, limit: '0' }, 'limit'],
      ['/v1/face-matching/verify/someone', { image: img, threshold: '2' }, 'threshold'],
    ] as const) {
      const r = await post(A.key, url, fields);
      expect(r.status, `${url} ${fieldName}`).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
      expect(r.body.error.details.field).toBe(fieldName);
      // Failed requests are not charged.
      expect(r.headers.get('x-credit-cost')).toBe('0');
    }
    const json = await s.fetch('/v1/face-matching/search', { method: 'POST', key: A.key, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect([400, 415]).toContain(json.status);
    const big = await post(A.key, '/v1/face-matching/search', { image: Buffer.alloc(6 * 1024 * 1024, 1) });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('image_too_large');
  });

  it('answers 404 for unknown embeddings and subjects, and lists nothing for a new tenant', async () => {
    const r = await del(A.key, '/v1/face-matching/embeddings/emb_doesnotexist');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('embedding_not_found');
    expect(await get(B.key, '/v1/face-matching/embeddings')).toEqual({ status: 200, body: { success: true, embeddings: [], count: 0 } });
    const bad = await get(A.key, '/v1/face-matching/embeddings?active_only=maybe');
    expect(bad.status).toBe(400);
  });

  it('documents every route and its errors in the OpenAPI document', async () => {
    const doc = await (await s.fetch('/openapi.json')).json();
    const paths = doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    expect(Object.keys(paths['/v1/face-matching/enroll']!.post!.responses)).toEqual(expect.arrayContaining(['200', '400', '413']));
    expect(Object.keys(paths['/v1/face-matching/verify/{subjectId}']!.post!.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
    expect(paths['/v1/face-matching/embeddings']!.get).toBeDefined();
    expect(Object.keys(paths['/v1/face-matching/embeddings/{embeddingId}']!.delete!.responses)).toContain('404');
    expect(JSON.stringify(paths['/v1/face-matching/verify/{subjectId}'])).toContain('subject_not_found');
  });
});

describe.skipIf(!haveShared)('face matching with real faces (shared data)', () => {
  const enrolled: Record<string, string[]> = {};

  beforeAll(async () => {
    for (const who of PEOPLE) {
      enrolled[who] = [];
      for (const n of [1, 2]) {
        const r = await post(A.key, '/v1/face-matching/enroll', {
          image: shared(who, n),
          subject_id: `user-${who}`,
          liveness_score: '0.9',
          enrollment_source: n === 1 ? 'onboarding' : 'branch',
          metadata: JSON.stringify({ label: who, n }),
        });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        enrolled[who]!.push(r.body.embeddingId);
      }
    }
  }, INFERENCE_TIMEOUT);

  it('enrolls with the spec response, charging 2 credits, and computes liveness when not given', async () => {
    const r = await post(A.key, '/v1/face-matching/enroll', { image: shared('sheldon', 5), subject_id: 'user-sheldon' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, subjectId: 'user-sheldon', embeddingDimension: 512, livenessScoreSource: 'computed' });
    expect(r.body.embeddingId).toMatch(/^emb_/);
    expect(typeof r.body.processing_time).toBe('number');
    expect(r.body.livenessScore).toBeGreaterThanOrEqual(0);
    expect(r.body.livenessScore).toBeLessThanOrEqual(1);
    expect(r.headers.get('x-credit-cost')).toBe('2');
    enrolled.sheldon!.push(r.body.embeddingId);
  }, INFERENCE_TIMEOUT);

  it('searches: a new photo of each person finds that person first, with spec field names', async () => {
    for (const who of PEOPLE) {
      const r = await post(A.key, '/v1/face-matching/search', { image: shared(who, 4), threshold: '0.3' });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-credit-cost')).toBe('2');
      expect(r.body).toMatchObject({ success: true, thresholdUsed: 0.3, matchCount: r.body.matches.length });
      const top = r.body.matches[0];
      expect(top.subject_id, who).toBe(`user-${who}`);
      expect(Object.keys(top).sort()).toEqual(['created_at', 'enrollment_source', 'id', 'liveness_score', 'metadata', 'quality_score', 'similarity', 'subject_id']);
      expect(top.metadata.label).toBe(who);
      const sims = r.body.matches.map((m: { similarity: number }) => m.similarity);
      expect([...sims].sort((a, b) => b - a)).toEqual(sims);
      for (const v of sims) expect(v).toBeGreaterThanOrEqual(0.3);
    }
    const strict = await post(A.key, '/v1/face-matching/search', { image: shared('penny', 4), threshold: '0.99', limit: '5' });
    expect(strict.body.matches.every((m: { similarity: number }) => m.similarity >= 0.99)).toBe(true);
  }, INFERENCE_TIMEOUT);

  it('verifies: same person verified, another person not; successes counted in the listing', async () => {
    const ok = await post(A.key, '/v1/face-matching/verify/user-penny', { image: shared('penny', 5) });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ success: true, verified: true, threshold: 0.6, enrollmentSource: expect.any(String) });
    expect(enrolled.penny).toContain(ok.body.embeddingId);
    const other = await post(A.key, '/v1/face-matching/verify/user-penny', { image: shared('raj', 5) });
    expect(other.status).toBe(200);
    expect(other.body.verified).toBe(false);
    expect(other.body.similarity).toBeLessThan(ok.body.similarity);
    const unknown = await post(A.key, '/v1/face-matching/verify/user-nobody', { image: shared('raj', 5) });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('subject_not_found');
    const list = await get(A.key, '/v1/face-matching/embeddings?subject_id=user-penny');
    expect(list.body.count).toBe(2);
    const hit = list.body.embeddings.find((e: { id: string }) => e.id === ok.body.embeddingId);
    expect(hit).toMatchObject({ subject_id: 'user-penny', verification_count: 1, embeddingDimension: 512 });
    expect(hit.last_verified_at).toEqual(expect.any(String));
  }, INFERENCE_TIMEOUT);

  it('keeps tenant B away from tenant A on every route, even knowing ids', async () => {
    const search = await post(B.key, '/v1/face-matching/search', { image: shared('sheldon', 4), threshold: '0' });
    expect(search.status).toBe(200);
    expect(search.body.matches).toEqual([]);
    const verify = await post(B.key, '/v1/face-matching/verify/user-sheldon', { image: shared('sheldon', 4) });
    expect(verify.status).toBe(404);
    expect((await get(B.key, '/v1/face-matching/embeddings?active_only=false')).body.count).toBe(0);
    expect((await get(B.key, '/v1/face-matching/embeddings?subject_id=user-sheldon')).body.count).toBe(0);
    const delOne = await del(B.key, `/v1/face-matching/embeddings/${enrolled.sheldon![0]}`);
    expect(delOne.status).toBe(404);
    expect((await del(B.key, '/v1/face-matching/embeddings?subject_id=user-sheldon')).status).toBe(200);
    expect((await del(B.key, '/v1/face-matching/embeddings')).status).toBe(200);
    // A still has everything.
    const listA = await get(A.key, '/v1/face-matching/embeddings?subject_id=user-sheldon');
    expect(listA.body.count).toBe(enrolled.sheldon!.length);
    // Enroll: the same subject_id in B is B's own subject; B's verification only ever sees B's embedding.
    const enrolB = await post(B.key, '/v1/face-matching/enroll', { image: shared('sheldon', 4), subject_id: 'user-sheldon', liveness_score: '0.7' });
    expect(enrolB.status).toBe(200);
    const verifyB = await post(B.key, '/v1/face-matching/verify/user-sheldon', { image: shared('sheldon', 1) });
    expect(verifyB.body.embeddingId).toBe(enrolB.body.embeddingId);
    expect((await get(A.key, '/v1/face-matching/embeddings?subject_id=user-sheldon')).body.count).toBe(enrolled.sheldon!.length);
    const searchA = await post(A.key, '/v1/face-matching/search', { image: shared('sheldon', 4), threshold: '0', limit: '100' });
    expect(searchA.body.matches.map((m: { id: string }) => m.id)).not.toContain(enrolB.body.embeddingId);
  }, INFERENCE_TIMEOUT);

  it('deletes by id, by subject and all; deleted embeddings never come back', async () => {
    const gone = enrolled.raj![0]!;
    expect(await del(A.key, `/v1/face-matching/embeddings/${gone}`)).toEqual({ status: 200, body: { success: true, message: expect.any(String) } });
    expect((await del(A.key, `/v1/face-matching/embeddings/${gone}`)).status).toBe(404);
    const s1 = await post(A.key, '/v1/face-matching/search', { image: shared('raj', 1), threshold: '0', limit: '100' });
    expect(s1.body.matches.map((m: { id: string }) => m.id)).not.toContain(gone);
    const subj = await del(A.key, '/v1/face-matching/embeddings?subject_id=user-raj');
    expect(subj.status).toBe(200);
    expect(subj.body.message).toContain('1');
    expect((await post(A.key, '/v1/face-matching/verify/user-raj', { image: shared('raj', 1) })).status).toBe(404);
    const all = await get(A.key, '/v1/face-matching/embeddings?active_only=false');
    expect(all.body.embeddings.filter((e: { is_active: boolean }) => !e.is_active).map((e: { subject_id: string }) => e.subject_id)).toEqual(['user-raj', 'user-raj']);
    expect((await del(A.key, '/v1/face-matching/embeddings')).status).toBe(200);
    expect((await get(A.key, '/v1/face-matching/embeddings')).body.count).toBe(0);
    const after = await post(A.key, '/v1/face-matching/search', { image: shared('sheldon', 4), threshold: '0' });
    expect(after.body.matches).toEqual([]);
  }, INFERENCE_TIMEOUT);
});

describe('face matching with npm-shipped and generated images', () => {
  it('refuses a group photo, enrolls one face cropped from it and finds it from another crop; refuses a faceless image', async () => {
    const sample = npmSample('sample1.jpg');
    if (!sample) {
      console.warn('npm sample @vladmandic/face-api/demo/sample1.jpg not installed; skipping');
      return;
    }
    const C = await s.tenantWithKey('enterprise');
    // sample1.jpg (1920x1280) shows three people.
    const group = await post(C.key, '/v1/face-matching/enroll', { image: sample, subject_id: 'group', liveness_score: '0.5' });
    expect(group.status).toBe(400);
    expect(group.body.error.code).toBe('multiple_faces_detected');
    // The left person's head, cropped two ways.
    const crop1 = await sharp(sample).extract({ left: 330, top: 240, width: 420, height: 480 }).jpeg().toBuffer();
    const crop2 = await sharp(sample).extract({ left: 300, top: 200, width: 460, height: 520 }).resize(400).png().toBuffer();
    const r = await post(C.key, '/v1/face-matching/enroll', { image: crop1, subject_id: 'demo-left', liveness_score: '0.5' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const found = await post(C.key, '/v1/face-matching/search', { image: crop2 });
    expect(found.status).toBe(200);
    expect(found.body.matches[0]).toMatchObject({ id: r.body.embeddingId, subject_id: 'demo-left' });
    expect(found.body.matches[0].similarity).toBeGreaterThan(0.6);
    const blank = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 120, g: 130, b: 140 } } }).jpeg().toBuffer();
    const none = await post(C.key, '/v1/face-matching/enroll', { image: blank, subject_id: 'blank' });
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('no_face_detected');
    const garbage = await post(C.key, '/v1/face-matching/search', { image: Buffer.from('GIF89a garbage') });
    expect(garbage.status).toBe(400);
    expect(garbage.body.error.code).toBe('unsupported_format');
  }, INFERENCE_TIMEOUT);
});
