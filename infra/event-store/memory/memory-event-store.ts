import { randomUUID } from 'node:crypto';
import {
  WrongExpectedRevisionError,
  assertExpectedRevision,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadStreamResult,
  type RecordedEvent,
  type SubscribeToAllOptions,
  type Subscription,
} from '../../ports/event-store.ts';
import { pollingSubscription } from '../../shared/poller.ts';

/**
 * In-memory event store for tests and throwaway runs. Same contract as the SQLite adapter; appends
 * yield to the event loop before committing so concurrent writers really interleave (which is what
 * optimistic concurrency must survive).
 */
export class MemoryEventStore implements EventStore {
  private readonly log: RecordedEvent[] = [];
  private readonly streams = new Map<string, RecordedEvent[]>();
  private readonly wakers = new Set<() => void>();

  async append(streamName: string, events: readonly NewEvent[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append: no events');
    const expected = options?.expectedRevision ?? 'any';
    await new Promise<void>((r) => setImmediate(r));
    const stream = this.streams.get(streamName) ?? [];
    const current = stream.length === 0 ? null : stream.length - 1;
    assertExpectedRevision(streamName, expected, current);
    const now = new Date().toISOString();
    for (const e of events) {
      const recorded: RecordedEvent = {
        eventId: randomUUID(),
        type: e.type,
        data: structuredClone(e.data ?? null),
        metadata: structuredClone(e.metadata ?? {}),
        streamName,
        streamRevision: stream.length,
        globalPosition: this.log.length + 1,
        recordedAt: now,
      };
      stream.push(recorded);
      this.log.push(recorded);
    }
    this.streams.set(streamName, stream);
    for (const wake of this.wakers) wake();
    return { nextExpectedRevision: stream.length - 1, lastGlobalPosition: this.log.length };
  }

  async readStream(streamName: string, options?: { fromRevision?: number; maxCount?: number }): Promise<ReadStreamResult> {
    const stream = this.streams.get(streamName) ?? [];
    const from = options?.fromRevision ?? 0;
    const events = stream.slice(from, from + (options?.maxCount ?? Number.MAX_SAFE_INTEGER));
    return { events: structuredClone(events), currentRevision: stream.length === 0 ? null : stream.length - 1 };
  }

  async readAll(options?: { fromPosition?: number; maxCount?: number; types?: readonly string[] }): Promise<RecordedEvent[]> {
    const from = options?.fromPosition ?? 0;
    const max = options?.maxCount ?? 1000;
    const out: RecordedEvent[] = [];
    for (let i = from; i < this.log.length && out.length < max; i++) {
      const e = this.log[i]!;
      if (!options?.types || options.types.includes(e.type)) out.push(e);
    }
    return structuredClone(out);
  }

  subscribeToAll(options: SubscribeToAllOptions): Subscription {
    return pollingSubscription(
      (from, max, types) => this.readAll({ fromPosition: from, maxCount: max, types }),
      () => this.headPosition(),
      options,
      (wake) => {
        this.wakers.add(wake);
        return () => this.wakers.delete(wake);
      },
      50,
    );
  }

  async headPosition(): Promise<number> {
    return this.log.length;
  }

  async close(): Promise<void> {
    this.wakers.clear();
  }
}
