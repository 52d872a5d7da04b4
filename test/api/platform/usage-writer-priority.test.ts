import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

/** Nice value and scheduling policy of each thread of this process (Linux: fields 19 and 41 of /proc/self/task/<tid>/stat). */
function threads(): Map<number, { nice: number; policy: number }> {
  const out = new Map<number, { nice: number; policy: number }>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      out.set(Number(tid), { nice: Number(fields[16]), policy: Number(fields[38]) });
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}
const threadNices = () => new Map([...threads()].map(([tid, t]) => [tid, t.nice]));
/** sched(7) policy numbers. */
const SCHED_OTHER = 0;
const SCHED_IDLE = 5;

const linux = existsSync('/proc/thread-self');
// Lowering the thread needs CAP_SYS_NICE (to raise it back when it lags); without it nothing is lowered.
const capSysNice = linux && (BigInt(`0x${/^CapEff:\s*([0-9a-f]+)$/im.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '0'}`) & (1n << 23n)) !== 0n;
if (!capSysNice) console.log('usage-writer priority test skipped: needs Linux and CAP_SYS_NICE');

// Issue 18: the usage-writer thread runs below the HTTP thread (USAGE_WRITER_NICE), and usage stays exact.
describe.skipIf(!capSysNice)('usage-writer thread priority (USAGE_WRITER_IDLE=false)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ config: { USAGE_WRITER_NICE: 7, USAGE_WRITER_IDLE: 'false' } });
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

// Issue 18: by default the usage-writer thread runs under SCHED_IDLE while it keeps up.
describe.skipIf(!capSysNice || !existsSync('/usr/bin/chrt'))('usage-writer thread scheduling policy (default)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('runs under SCHED_IDLE, the HTTP thread under SCHED_OTHER, and every call is recorded', async () => {
    const { tenantId, key } = await s.tenantWithKey('pro');
    for (let i = 0; i < 5; i++) expect((await s.fetch('/v1/credits/balance', { key })).status).toBe(200);
    await s.ctx.usage.flush();
    await s.ctx.projections.catchUp();
    const all = threads();
    expect([...all.values()].filter((t) => t.policy === SCHED_IDLE).length).toBe(1);
    expect(all.get(process.pid)!.policy).toBe(SCHED_OTHER);
    expect(await (await s.ctx.readModels.collection('usage_events')).count({ tenant_id: tenantId })).toBe(5);
  });
});
