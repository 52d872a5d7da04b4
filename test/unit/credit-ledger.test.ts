import { describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../../infra/event-store/memory/memory-event-store.ts';
import { CreditLedger } from '../../domain/credits/credit-ledger.ts';
import { InsufficientCreditsError } from '../../domain/credits/credits.ts';
import type { EventStore } from '../../infra/ports/event-store.ts';

describe('credit ledger', () => {
  it('releases reservations left open by a process that died, and only those', async () => {
    let now = Date.UTC(2026, 10, 10, 12, 0, 0);
    const store = new MemoryEventStore();
    const dead = new CreditLedger(store, () => now);
    await dead.reserve('t1', 15, 20, '/v1/x'); // never settled: the process "died"
    now += 16 * 60_000;
    const live = new CreditLedger(store, () => now);
    const fresh = await live.reserve('t1', 3, 20, '/v1/x'); // in flight, must survive the sweep
    await expect(live.reserve('t1', 5, 20, '/v1/x')).rejects.toBeInstanceOf(InsufficientCreditsError);
    expect(await live.releaseStale(15 * 60_000)).toBe(1);
    expect(await live.available('t1', 20)).toBe(17);
    expect((await live.state('t1')).open.has(fresh)).toBe(true);
    expect(await live.releaseStale(15 * 60_000)).toBe(0);
  });

  it('releases the reservations of a gone incarnation at once when it is the only API process (issue 18)', async () => {
    let now = Date.UTC(2026, 10, 10, 12, 0, 0);
    const store = new MemoryEventStore();
    const dead = new CreditLedger(store, () => now, undefined, { incarnation: 'inc_dead', leaseMs: 300_000 });
    const held = await dead.reserve('t3', 15, 20, '/v1/face/detect'); // the process is killed here
    now += 1_000;
    const live = new CreditLedger(store, () => now, undefined, { incarnation: 'inc_live', leaseMs: 300_000 });
    await live.follow();
    const mine = await live.reserve('t3', 3, 20, '/v1/face/detect');
    expect(await live.releaseAbandoned({ otherHolders: true, legacyMaxAgeMs: 15 * 60_000 })).toBe(1);
    const state = await live.state('t3');
    expect([...state.open.keys()]).toEqual([mine]);
    expect(await live.available('t3', 20)).toBe(17);
    // The dead holder's late settle (it cannot happen, but a paused process could) charges nothing.
    expect(await dead.settle('t3', held, true)).toBe('not_open');
    expect(await live.settle('t3', mine, true)).toBe('committed');
    expect((await live.state('t3')).totalUsed).toBe(3);
  });

  it('with several processes sharing the store, releases another holder only at lease expiry (issue 18)', async () => {
    let now = Date.UTC(2026, 10, 10, 12, 0, 0);
    const store = new MemoryEventStore();
    const a = new CreditLedger(store, () => now, undefined, { incarnation: 'inc_a', leaseMs: 60_000 });
    const b = new CreditLedger(store, () => now, undefined, { incarnation: 'inc_b', leaseMs: 60_000 });
    await b.follow();
    const held = await a.reserve('t4', 5, 20, '/v1/x');
    now += 59_000;
    expect(await b.releaseAbandoned({ otherHolders: false, legacyMaxAgeMs: 15 * 60_000 })).toBe(0);
    expect((await b.state('t4')).open.has(held)).toBe(true);
    now += 2_000;
    expect(await b.releaseAbandoned({ otherHolders: false, legacyMaxAgeMs: 15 * 60_000 })).toBe(1);
    expect(await b.available('t4', 20)).toBe(20);
    expect(await a.settle('t4', held, true)).toBe('not_open');
  });

  it('starts the month afresh on the 1st (UTC) and keeps purchased credits', async () => {
    let now = Date.UTC(2026, 10, 30, 23, 59, 0);
    const ledger = new CreditLedger(new MemoryEventStore(), () => now);
    await ledger.grant('t2', 4);
    for (let i = 0; i < 21; i++) await ledger.settle('t2', await ledger.reserve('t2', 1, 20, '/v1/x'), true);
    expect(await ledger.available('t2', 20)).toBe(3);
    now = Date.UTC(2026, 11, 1, 0, 0, 1);
    expect(await ledger.available('t2', 20)).toBe(23);
  });

  it('folds its own append once when the follower delivers it before the append resolves (PostgreSQL NOTIFY order)', async () => {
    const inner = new MemoryEventStore();
    // A store whose subscribers hear of an append before the appender resumes.
    const store: EventStore = {
      append: async (stream, events, options) => {
        const r = await inner.append(stream, events, options);
        await new Promise((resolve) => setTimeout(resolve, 250));
        return r;
      },
      readStream: (stream, options) => inner.readStream(stream, options),
      readAll: (options) => inner.readAll(options),
      subscribeToAll: (options) => inner.subscribeToAll(options),
      headPosition: () => inner.headPosition(),
      close: () => inner.close(),
    };
    const ledger = new CreditLedger(store);
    const sub = await ledger.follow();
    await ledger.grant('t3', 100);
    await ledger.settle('t3', await ledger.reserve('t3', 10, 0, '/v1/x'), true);
    expect((await ledger.snapshot('t3')).purchasedBalance).toBe(90);
    expect(await ledger.available('t3', 0)).toBe(90);
    await sub.stop();
  });
});
