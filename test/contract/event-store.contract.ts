import { describe, expect, it, afterEach } from 'vitest';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '../../infra/ports/event-store.ts';

/**
 * The event-store contract. Any adapter runs through it unchanged:
 * `eventStoreContract('sqlite', () => new SqliteEventStore(':memory:'))`.
 */
export function eventStoreContract(name: string, factory: () => Promise<EventStore> | EventStore): void {
  describe(`event store contract: ${name}`, () => {
    const opened: EventStore[] = [];
    const open = async () => {
      const s = await factory();
      opened.push(s);
      return s;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });
    const uid = () => Math.random().toString(36).slice(2);

    it('appends and reads a stream with 0-based revisions', async () => {
      const s = await open();
      const stream = `order-${uid()}`;
      const r1 = await s.append(stream, [{ type: 'A', data: { n: 1 } }, { type: 'B', data: { n: 2 }, metadata: { tenant_id: 't' } }]);
      expect(r1.nextExpectedRevision).toBe(1);
      const read = await s.readStream(stream);
      expect(read.currentRevision).toBe(1);
      expect(read.events.map((e) => [e.type, e.streamRevision, e.data])).toEqual([
        ['A', 0, { n: 1 }],
        ['B', 1, { n: 2 }],
      ]);
      expect(read.events[1]!.metadata).toEqual({ tenant_id: 't' });
      expect(read.events[0]!.eventId).not.toBe(read.events[1]!.eventId);
      expect(read.events[1]!.globalPosition).toBeGreaterThan(read.events[0]!.globalPosition);
      const missing = await s.readStream(`none-${uid()}`);
      expect(missing).toEqual({ events: [], currentRevision: null });
      const partial = await s.readStream(stream, { fromRevision: 1 });
      expect(partial.events.map((e) => e.type)).toEqual(['B']);
    });

    it('enforces expected revisions', async () => {
      const s = await open();
      const stream = `acc-${uid()}`;
      await expect(s.append(stream, [{ type: 'X', data: {} }], { expectedRevision: 'stream_exists' })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await s.append(stream, [{ type: 'X', data: {} }], { expectedRevision: 'no_stream' });
      await expect(s.append(stream, [{ type: 'X', data: {} }], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await expect(s.append(stream, [{ type: 'X', data: {} }], { expectedRevision: 5 })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      const ok = await s.append(stream, [{ type: 'Y', data: {} }], { expectedRevision: 0 });
      expect(ok.nextExpectedRevision).toBe(1);
      // A rejected append leaves nothing behind.
      expect((await s.readStream(stream)).events.map((e) => e.type)).toEqual(['X', 'Y']);
    });

    it('lets exactly one of many concurrent writers with the same expected revision win', async () => {
      const s = await open();
      const stream = `race-${uid()}`;
      await s.append(stream, [{ type: 'Init', data: {} }]);
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => s.append(stream, [{ type: 'W', data: { i } }], { expectedRevision: 0 })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect((await s.readStream(stream)).currentRevision).toBe(1);
    });

    it('reads the global log in order, by position and type', async () => {
      const s = await open();
      const start = await s.headPosition();
      const a = `g-${uid()}`;
      const b = `g-${uid()}`;
      await s.append(a, [{ type: 'T1', data: 1 }]);
      await s.append(b, [{ type: 'T2', data: 2 }]);
      await s.append(a, [{ type: 'T1', data: 3 }]);
      const all = await s.readAll({ fromPosition: start });
      expect(all.map((e) => e.data)).toEqual([1, 2, 3]);
      expect(await s.headPosition()).toBe(all[2]!.globalPosition);
      const t2 = await s.readAll({ fromPosition: start, types: ['T2'] });
      expect(t2.map((e) => e.streamName)).toEqual([b]);
      const page = await s.readAll({ fromPosition: start, maxCount: 2 });
      expect(page).toHaveLength(2);
      const rest = await s.readAll({ fromPosition: page[1]!.globalPosition });
      expect(rest.map((e) => e.data)).toEqual([3]);
    });

    it('subscribes: catches up, then follows new appends in order', async () => {
      const s = await open();
      const start = await s.headPosition();
      const stream = `sub-${uid()}`;
      await s.append(stream, [{ type: 'S', data: 1 }]);
      const seen: RecordedEvent[] = [];
      const sub = s.subscribeToAll({ fromPosition: start, onEvents: (events) => void seen.push(...events), types: ['S'] });
      await sub.caughtUp();
      expect(seen.map((e) => e.data)).toEqual([1]);
      await s.append(stream, [{ type: 'Other', data: 0 }]);
      await s.append(stream, [{ type: 'S', data: 2 }, { type: 'S', data: 3 }]);
      await sub.caughtUp();
      expect(seen.map((e) => e.data)).toEqual([1, 2, 3]);
      await sub.stop();
      await s.append(stream, [{ type: 'S', data: 4 }]);
      await new Promise((r) => setTimeout(r, 150));
      expect(seen).toHaveLength(3);
    });

    it('round-trips JSON data and metadata exactly', async () => {
      const s = await open();
      const stream = `json-${uid()}`;
      const data = { s: 'ñandú "quoted"', n: 1.5, b: false, nil: null, arr: [1, { x: 'y' }] };
      await s.append(stream, [{ type: 'J', data, metadata: { request_id: 'r1' } }]);
      const [e] = (await s.readStream(stream)).events;
      expect(e!.data).toEqual(data);
      expect(e!.metadata).toEqual({ request_id: 'r1' });
      expect(Number.isNaN(Date.parse(e!.recordedAt))).toBe(false);
    });
  });
}
