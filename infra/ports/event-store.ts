/**
 * Event store port: append with an expected revision, read a stream, read and follow the global log.
 *
 * Embedded adapter: `infra/event-store/sqlite` (SQLite in WAL mode, safe for several processes on one
 * DATA_DIR, e.g. the server and the operator CLI). Scaled-out: EventStoreDB/KurrentDB.
 * Every adapter must pass `test/contract/event-store.contract.ts`.
 *
 * Revisions are 0-based per stream (the first event of a stream has revision 0), like EventStoreDB.
 * Global positions are 1-based and strictly increasing across all streams.
 */
export interface NewEvent<TType extends string = string, TData = unknown> {
  type: TType;
  data: TData;
  metadata?: Record<string, unknown>;
}

export interface RecordedEvent<TType extends string = string, TData = unknown> {
  eventId: string;
  type: TType;
  data: TData;
  metadata: Record<string, unknown>;
  streamName: string;
  /** 0-based position of the event within its stream. */
  streamRevision: number;
  /** 1-based position in the global log. */
  globalPosition: number;
  /** ISO 8601 time the store recorded the event. */
  recordedAt: string;
}

/** `no_stream`: the stream must not exist; `stream_exists`: it must; `any`: no check; a number: the last revision. */
export type ExpectedRevision = number | 'no_stream' | 'stream_exists' | 'any';

export interface AppendResult {
  /** Revision of the last appended event; pass it as `expectedRevision` for the next optimistic append. */
  nextExpectedRevision: number;
  /** Global position of the last appended event. */
  lastGlobalPosition: number;
}

export interface ReadStreamResult<E extends RecordedEvent = RecordedEvent> {
  events: E[];
  /** Revision of the last event in the stream, or null when the stream does not exist. */
  currentRevision: number | null;
}

/** Raised when `expectedRevision` does not match the stream's current revision (optimistic concurrency). */
export class WrongExpectedRevisionError extends Error {
  override readonly name = 'WrongExpectedRevisionError';
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | null,
  ) {
    super(`stream ${streamName}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

/**
 * The optimistic-concurrency rule every adapter applies before an append.
 * @throws WrongExpectedRevisionError when `current` (last revision, null for no stream) does not satisfy `expected`.
 */
export function assertExpectedRevision(streamName: string, expected: ExpectedRevision, current: number | null): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === null) ||
    (expected === 'stream_exists' && current !== null) ||
    (typeof expected === 'number' && current === expected);
  if (!ok) throw new WrongExpectedRevisionError(streamName, expected, current);
}

export interface Subscription {
  /** Resolves once the subscriber has processed every event that existed when this was called. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

export interface SubscribeToAllOptions {
  /** Deliver events with a global position strictly greater than this (0 = from the start). */
  fromPosition: number;
  /** Called with batches in global order; the next batch is not delivered before this resolves. */
  onEvents: (events: RecordedEvent[]) => Promise<void> | void;
  /** Only these event types (all when omitted). */
  types?: readonly string[];
  /** Largest batch handed to `onEvents`. */
  batchSize?: number;
}

export interface EventStore {
  /** Appends atomically. Raises {@link WrongExpectedRevisionError} on a revision mismatch. */
  append(streamName: string, events: readonly NewEvent[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult>;
  readStream(streamName: string, options?: { fromRevision?: number; maxCount?: number }): Promise<ReadStreamResult>;
  /** Events with a global position strictly greater than `fromPosition`, oldest first. */
  readAll(options?: { fromPosition?: number; maxCount?: number; types?: readonly string[] }): Promise<RecordedEvent[]>;
  /** Catches up from `fromPosition`, then follows new events, also those appended by other processes. */
  subscribeToAll(options: SubscribeToAllOptions): Subscription;
  /** Global position of the newest event (0 when empty). */
  headPosition(): Promise<number>;
  close(): Promise<void>;
}
