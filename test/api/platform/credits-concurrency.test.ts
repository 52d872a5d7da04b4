import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventStore } from '../../../infra/ports/event-store.ts';
import { MemoryEventStore } from '../../../infra/event-store/memory/memory-event-store.ts';
import { SqliteEventStore } from '../../../infra/event-store/sqlite/sqlite-event-store.ts';
import { CreditLedger } from '../../../domain/credits/credit-ledger.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { registerTestRoutes } from '../../helpers/test-routes.ts';

/**
 * Issue 2: 200 parallel calls to a 1-credit route, from a tenant whose rate and concurrency limits the
 * operator lifted, against a balance of exactly 150: 150 charged successes, 50 insufficient-credit
 * answers, balance exactly 0. The same test runs unchanged against every event-store adapter.
 */
const adapters: Array<[string, () => EventStore]> = [
  ['sqlite', () => new SqliteEventStore(join(mkdtempSync(join(tmpdir(), 'sello-cc-')), 'events.sqlite'))],
  ['memory', () => new MemoryEventStore()],
];

describe.each(adapters)('credits under concurrency (%s event store)', (_name, makeStore) => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('200 parallel calls, 150 credits: 150 charged, 50 refused, balance 0', async () => {
    const s = await startTestServer({ overrides: { events: makeStore() }, extend: (app) => registerTestRoutes(app) });
    servers.push(s);
    const { tenantId, key } = await s.tenantWithKey('free'); // 20 monthly credits
    await s.grant(tenantId, 130); // + 130 purchased = 150
    await s.setLimits(tenantId, null, null);

    const responses = await Promise.all(Array.from({ length: 200 }, () => s.fetch('/v1/test/priced', { method: 'POST', key })));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((x) => x === 200)).toHaveLength(150);
    expect(statuses.filter((x) => x === 429)).toHaveLength(50);
    for (const r of responses.filter((x) => x.status === 429)) {
      expect((await r.json()).error_code).toBe('INSUFFICIENT_CREDITS');
    }
    const balance = await (await s.fetch('/v1/credits/balance', { key })).json();
    expect(balance.data.available_credits).toBe(0);
    expect(balance.data.total_used).toBe(150);
    expect(balance.data.reserved_credits).toBe(0);

    // A second ledger over the same log (as another API process would have) agrees to the credit.
    const replayed = await new CreditLedger(s.ctx.events).state(tenantId);
    expect(replayed.totalUsed).toBe(150);
    expect(replayed.open.size).toBe(0);
    expect(replayed.purchasedBalance).toBe(0);
  }, 60_000);

  it('two ledgers (two processes) racing on one stream never spend a credit twice', async () => {
    const store = makeStore();
    const a = new CreditLedger(store);
    const b = new CreditLedger(store);
    await a.grant('t-race', 40);
    const attempts = Array.from({ length: 60 }, (_, i) =>
      (i % 2 ? a : b)
        .reserve('t-race', 1, 0, '/x')
        .then(async (id) => {
          await (i % 2 ? a : b).settle('t-race', id, true);
          return true;
        })
        .catch(() => false),
    );
    const ok = (await Promise.all(attempts)).filter(Boolean).length;
    expect(ok).toBe(40);
    expect((await new CreditLedger(store).state('t-race')).totalUsed).toBe(40);
    await store.close();
  }, 60_000);
});
