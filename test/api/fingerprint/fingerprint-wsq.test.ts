/**
 * WSQ input over real HTTP: the SourceAFIS WSQ sample enrolls, and its template matches the PNG that
 * SourceAFIS converted it to (and not another finger); cut, corrupted and inflated WSQ files get a
 * structured 400/413. Skipped with a printed reason when ../shared/data is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonCalls, startTestServer, type TestServer } from '../../helpers/server.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = path.resolve(repoRoot, '../shared/data/fingerprint/sourceafis-samples');
const have = existsSync(path.join(dir, 'wsq-original.wsq')) && existsSync(path.join(dir, 'wsq-converted.png'));
if (!have) console.warn(`WSQ API tests skipped: ${dir} is absent`);
const sample = (name: string) => readFileSync(path.join(dir, name));

const TIMEOUT = 300_000;
let s: TestServer;

const { post } = jsonCalls(() => s);

beforeAll(async () => {
  if (have) s = await startTestServer();
}, TIMEOUT);
afterAll(async () => s?.close());

describe.skipIf(!have)('fingerprint matching: WSQ input', () => {
  it('enrolls the WSQ sample, and its template matches the PNG conversion but not another finger', async () => {
    const T = await s.tenantWithKey('enterprise');
    const wsq = await post(T.key, '/v1/fingerprint-matching/enroll', { image: sample('wsq-original.wsq'), subject_id: 'wsq-subject', finger_position: '1' });
    expect(wsq.status, JSON.stringify(wsq.body)).toBe(200);
    expect(wsq.body.minutiaeCount).toBeGreaterThan(10);
    const png = await post(T.key, '/v1/fingerprint-matching/enroll', { image: sample('wsq-converted.png'), subject_id: 'png-subject' });
    expect(png.status).toBe(200);
    // The decoded pixels are within 1 grey level of the PNG, so extraction finds the same minutiae count.
    expect(Math.abs(wsq.body.minutiaeCount - png.body.minutiaeCount)).toBeLessThanOrEqual(2);

    const same = await post(T.key, '/v1/fingerprint-matching/verify/wsq-subject', { image: sample('wsq-converted.png') });
    expect(same.status).toBe(200);
    expect(same.body.verified).toBe(true);
    const other = await post(T.key, '/v1/fingerprint-matching/verify/wsq-subject', { image: sample('matching.png') });
    expect(other.status).toBe(200);
    expect(other.body.verified).toBe(false);
    expect(same.body.score).toBeGreaterThan(other.body.score);
    console.log(`WSQ enroll: ${wsq.body.minutiaeCount} minutiae (PNG ${png.body.minutiaeCount}); verify vs PNG score ${same.body.score}, vs another finger ${other.body.score}`);

    // 1:N with the WSQ file as probe finds both templates of that finger first.
    const found = await post(T.key, '/v1/fingerprint-matching/search', { image: sample('wsq-original.wsq'), threshold: '0', limit: '2' });
    expect(found.status).toBe(200);
    expect(found.body.candidates.map((c: { subjectId: string }) => c.subjectId).sort()).toEqual(['png-subject', 'wsq-subject']);
  }, TIMEOUT);

  it('refuses cut, corrupted and inflated WSQ files in the structured shape', async () => {
    const T = await s.tenantWithKey('enterprise');
    const wsq = new Uint8Array(sample('wsq-original.wsq'));
    const cut = await post(T.key, '/v1/fingerprint-matching/enroll', { image: wsq.subarray(0, 20_000), subject_id: 'x' });
    expect(cut.status).toBe(400);
    expect(cut.body.error).toMatchObject({ code: 'unsupported_format', details: { detected: 'wsq' } });
    expect(cut.body.error.message).toMatch(/WSQ/);

    const noTables = wsq.slice(0, 40); // SOI then a comment cut short
    const bad = await post(T.key, '/v1/fingerprint-matching/search', { image: noTables });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('unsupported_format');

    // Frame header rewritten to 65535 x 65535: refused before any allocation.
    const big = wsq.slice();
    let p = 2;
    while (((big[p]! << 8) | big[p + 1]!) !== 0xffa2) p += 2 + ((big[p + 2]! << 8) | big[p + 3]!);
    big.fill(0xff, p + 6, p + 10);
    const huge = await post(T.key, '/v1/fingerprint-matching/enroll', { image: big, subject_id: 'x' });
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('image_too_large');
  }, TIMEOUT);
});
