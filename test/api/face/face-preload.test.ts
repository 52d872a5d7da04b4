/**
 * `FACE_PRELOAD=true`: the API process loads the face models in every worker thread at start (one
 * `face.warmup` job per thread), so the first face request does not load them. Off by default.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

type Warm = { threadId: number; alreadyLoaded: boolean; loadMs: number };
const servers: TestServer[] = [];
afterAll(async () => { await Promise.all(servers.map((s) => s.close())); });

async function until(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('face model preload', () => {
  it('with FACE_PRELOAD=true every worker has the models before the first face job', async () => {
    const s = await startTestServer({ config: { FACE_PRELOAD: 'true' } });
    servers.push(s);
    await until(() => s.ctx.jobs.stats().completed >= 2, 120_000); // the two warm-up jobs
    const warm = await Promise.all([0, 1].map(() => s.ctx.jobs.run<Record<string, never>, Warm>('face.warmup', {})));
    expect(new Set(warm.map((w) => w.threadId)).size).toBe(2);
    for (const w of warm) expect(w.alreadyLoaded).toBe(true);
  }, 180_000);

  it('is off by default: no job runs at start and the first face job loads the models', async () => {
    const s = await startTestServer();
    servers.push(s);
    await new Promise((r) => setTimeout(r, 500));
    expect(s.ctx.jobs.stats().completed).toBe(0);
    const w = await s.ctx.jobs.run<Record<string, never>, Warm>('face.warmup', {});
    expect(w.alreadyLoaded).toBe(false);
    expect(w.loadMs).toBeGreaterThan(0);
  }, 180_000);
});
