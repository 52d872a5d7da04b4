import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../../../infra/event-store/memory/memory-event-store.ts';
import type { EventStore } from '../../../infra/ports/event-store.ts';
import { pollingSubscription } from '../../../infra/shared/poller.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

/** An event store whose reads for the usage-events projection wait until `open()`: an instance still catching up. */
function gatedStore(): { store: EventStore; open: () => void } {
  const inner = new MemoryEventStore();
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const store: EventStore = {
    append: (s, e, o) => inner.append(s, e, o),
    readStream: (s, o) => inner.readStream(s, o),
    readAll: async (o) => {
      if (o?.types?.includes('ApiCallRecorded')) await gate;
      return inner.readAll(o);
    },
    subscribeToAll: (o) => {
      if (!o.types?.includes('ApiCallRecorded')) return inner.subscribeToAll(o);
      // The same polling subscription, but its reads pass the gate.
      return pollingSubscription((from, max, types) => store.readAll({ fromPosition: from, maxCount: max, types }), () => inner.headPosition(), o, () => () => undefined, 50);
    },
    headPosition: () => inner.headPosition(),
    close: () => inner.close(),
  };
  return { store, open };
}

describe('readiness', () => {
  let s: TestServer;
  let gate: ReturnType<typeof gatedStore>;
  beforeAll(async () => {
    gate = gatedStore();
    s = await startTestServer({ overrides: { events: gate.store } });
  }, 120_000);
  afterAll(async () => s?.close(), 60_000);

  it('GET /ready answers 503 with Retry-After until the projections caught up, then 200; /v1/status reports it', async () => {
    const { key } = await s.tenantWithKey('pro');
    const before = await fetch(`${s.url}/ready`);
    expect(before.status).toBe(503);
    expect(before.headers.get('retry-after')).toBe('1');
    expect(await before.json()).toEqual({ ready: false });
    const status = (await (await s.fetch('/v1/status', { key })).json()) as { data: { ready: boolean; status: string } };
    expect(status.data).toMatchObject({ ready: false, status: 'degraded' });
    gate.open();
    await expect.poll(async () => (await fetch(`${s.url}/ready`)).status, { timeout: 10_000 }).toBe(200);
    expect(await (await fetch(`${s.url}/ready`)).json()).toEqual({ ready: true });
  }, 60_000);
});
