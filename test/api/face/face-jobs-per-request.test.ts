/**
 * Issue 18, item 5: a request decodes and detects each image once. Over real HTTP (real worker pool,
 * real models), the job queue is wrapped to record every job a request hands to the workers: verify
 * sends one `face.descriptor` job per image, and face-matching enroll computes the template and the
 * liveness score of its one image in a single job (it used to run `face.descriptor` and then
 * `face.liveness`, decoding and detecting the image twice). Inside a job, the workers' counters say
 * one decode and one detection pass per image (`test/unit/face/face-work.test.ts`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerPoolJobQueue } from '../../../infra/job-queue/worker-pool/worker-pool-queue.ts';
import { WORKER_ENTRY } from '../../../apps/platform/platform.ts';
import { loadConfig } from '../../../apps/api/config.ts';
import type { JobQueue } from '../../../infra/ports/job-queue.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { faceCrop } from './fixtures.ts';

/** Every job handed to the queue: its type and the image it carries (byte length), in order. */
const jobs: { type: string; imageBytes: number | null; liveness: boolean }[] = [];
const inner = new WorkerPoolJobQueue({ threads: 2, workerFile: WORKER_ENTRY, workerData: { config: loadConfig({}, { LOG_LEVEL: 'silent', BOOTSTRAP: 'false' }) } });
const recording: JobQueue = {
  run(jobType, input, options) {
    const i = input as { image?: Uint8Array; liveness?: unknown };
    jobs.push({ type: jobType, imageBytes: i?.image?.byteLength ?? null, liveness: i?.liveness !== undefined });
    return inner.run(jobType, input, options);
  },
  stats: () => inner.stats(),
  close: () => inner.close(),
};

let s: TestServer;
let key: string;
beforeAll(async () => {
  s = await startTestServer({ overrides: { jobs: recording } });
  let tenantId: string;
  ({ key, tenantId } = await s.tenantWithKey('enterprise'));
  await s.setLimits(tenantId, null, null);
});
afterAll(async () => { await s?.close(); });

function form(fields: Record<string, string | Buffer>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === 'string') f.set(k, v);
    else f.set(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), `${k}.jpg`);
  }
  return f;
}
async function post(url: string, fields: Record<string, string | Buffer>) {
  const r = await s.fetch(url, { method: 'POST', key, body: form(fields) });
  return { status: r.status, body: (await r.json()) as any };
}

describe('face jobs per request', () => {
  it('verify: one face.descriptor job per image', async () => {
    const a1 = await faceCrop('a', 0.6);
    const a2 = await faceCrop('a', 0.35, { brightness: 1.1, flip: true });
    jobs.length = 0;
    const r = await post('/v1/face/verify', { image1: a1, image2: a2 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.verified).toBe(true);
    expect(jobs.map((j) => j.type)).toEqual(['face.descriptor', 'face.descriptor']);
    expect(jobs.map((j) => j.imageBytes).sort()).toEqual([a1.byteLength, a2.byteLength].sort());
  }, 600_000);

  it('face-matching enroll without a client liveness score: one job gives the template and the liveness', async () => {
    const img = await faceCrop('b', 0.6);
    jobs.length = 0;
    const r = await post('/v1/face-matching/enroll', { image: img, subject_id: 'user-b' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.livenessScoreSource).toBe('computed');
    expect(r.body.livenessScore).toBeGreaterThanOrEqual(0);
    expect(r.body.livenessScore).toBeLessThanOrEqual(1);
    expect(jobs).toEqual([{ type: 'face.descriptor', imageBytes: img.byteLength, liveness: true }]);
    // the score is the face group's liveness of the same image
    const alone = await post('/v1/face/liveness', { image: img });
    expect(alone.status, JSON.stringify(alone.body)).toBe(200);
    expect(r.body.livenessScore).toBeCloseTo(alone.body.data.anti_spoofing_score, 4);

    jobs.length = 0;
    const withScore = await post('/v1/face-matching/enroll', { image: img, subject_id: 'user-b2', liveness_score: '0.9' });
    expect(withScore.status, JSON.stringify(withScore.body)).toBe(200);
    expect(jobs).toEqual([{ type: 'face.descriptor', imageBytes: img.byteLength, liveness: false }]);
  }, 600_000);
});
