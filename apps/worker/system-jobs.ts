/**
 * Jobs the platform itself uses: `system.health` answers with the worker's thread id and memory, so
 * `/v1/status` can show the pool is alive; `system.checksum`, `system.fail` and `system.sleep` are
 * cheap probes used by the job-queue contract suite (bytes in, a coded error out, a slow job).
 */
import { threadId } from 'node:worker_threads';
import { setTimeout as sleep } from 'node:timers/promises';

export const handlers = {
  'system.health': async () => ({ threadId, rss: process.memoryUsage().rss }),
  'system.checksum': async (input: { bytes: Uint8Array }) => ({
    length: input.bytes.length,
    sum: input.bytes.reduce((a, b) => a + b, 0),
  }),
  'system.fail': async (input: { code: string; details?: Record<string, unknown> }) => {
    throw Object.assign(new Error(`requested failure ${input.code}`), { code: input.code, details: input.details });
  },
  'system.sleep': async (input: { ms: number }) => {
    await sleep(Math.min(input.ms, 10_000));
    return { slept: input.ms };
  },
};
