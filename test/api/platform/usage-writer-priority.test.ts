import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

/** Nice value of each thread of this process (Linux: field 19 of /proc/self/task/<tid>/stat). */
function threadNices(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      out.set(Number(tid), Number(fields[16]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

const linux = existsSync('/proc/thread-self');
if (!linux) console.log('usage-writer priority test skipped: needs Linux /proc/thread-self');

// Issue 18: the usage-writer thread runs below the HTTP thread (USAGE_WRITER_NICE), and usage stays exact.
describe.skipIf(!linux)('usage-writer thread priority', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ config: { USAGE_WRITER_NICE: 7 } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('runs USAGE_WRITER_NICE steps below the HTTP thread and still records every call', async () => {
    const before = threadNices();
    const main = before.get(process.pid)!;
    const { tenantId, key } = await s.tenantWithKey('pro');
    for (let i = 0; i < 5; i++) expect((await s.fetch('/v1/credits/balance', { key })).status).toBe(200);
    await s.ctx.usage.flush();
    await s.ctx.projections.catchUp();
    // The writer thread was started by the first flush (or before): exactly one new thread is 7 below.
    const lowered = [...threadNices()].filter(([tid, nice]) => tid !== process.pid && nice === Math.min(19, main + 7));
    expect(lowered.length).toBe(1);
    expect(threadNices().get(process.pid)).toBe(main);
    const rows = await (await s.ctx.readModels.collection('usage_events')).count({ tenant_id: tenantId });
    expect(rows).toBe(5);
  });
});
