import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { Config } from '../api/config.ts';
import type { EventStore } from '../../infra/ports/event-store.ts';
import { usageStream, type ApiCallRecorded } from '../../domain/usage/usage.ts';
import type { Projection } from '../../projections/projection.ts';

/**
 * A projection that reads usage events (`ApiCallRecorded`: `usage-events`, `usage-analytics`): in an API
 * process with `USAGE_WRITER=thread` it runs on the usage-writer thread, which also feeds it the other
 * event types it lists from the log, so the HTTP thread never reads a call's usage event back. Such a
 * projection may write the read-model store only (the thread gives it no vector index).
 */
export function readsUsageEvents(p: Projection): boolean {
  return p.eventTypes.includes('ApiCallRecorded');
}

/** Appends calls as `ApiCallRecorded` events, one append per tenant stream (`usage-<tenantId>`). */
export async function appendUsage(store: EventStore, batch: readonly ApiCallRecorded['data'][]): Promise<void> {
  const byStream = new Map<string, ApiCallRecorded['data'][]>();
  for (const call of batch) {
    const stream = usageStream(call.tenant_id);
    const list = byStream.get(stream);
    if (list) list.push(call);
    else byStream.set(stream, [call]);
  }
  for (const [stream, calls] of byStream) {
    await store.append(
      stream,
      calls.map((data) => ({ type: 'ApiCallRecorded', data, metadata: { tenant_id: data.tenant_id, request_id: data.request_id } })),
    );
  }
}

/** Where a flushed batch goes: appended here, or posted to the usage-writer thread. */
export interface UsageSink {
  append(batch: ApiCallRecorded['data'][]): Promise<void>;
  /** Resolves once the sink's own projections (if it runs any) have applied everything appended. */
  catchUp(): Promise<void>;
  close(): Promise<void>;
}

/** Appends on this thread (CLI, tests with in-memory stores, `USAGE_WRITER=inline`). */
export function inlineUsageSink(store: EventStore): UsageSink {
  return { append: (batch) => appendUsage(store, batch), catchUp: async () => undefined, close: async () => undefined };
}

/**
 * The usage-writer thread (`./usage-writer-thread.ts`): appends usage batches with its own event-store
 * connection and runs the usage-only projections, so the HTTP thread does neither. It needs adapters
 * that another thread can open on the same data (SQLite files, servers): the platform uses it only when
 * the event store and read models come from configuration, not from in-memory overrides.
 */
export class UsageWriterThread implements UsageSink {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private readonly ready: Promise<void>;
  private closed = false;

  constructor(config: Config, log: Logger) {
    this.worker = new Worker(fileURLToPath(new URL('./usage-writer-entry.mjs', import.meta.url)), { workerData: { config } });
    this.worker.unref();
    let markReady: () => void = () => undefined;
    let failReady: (e: Error) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    this.worker.on('message', (m: { id: number; ok: boolean; error?: string }) => {
      if (m.id === -1) return markReady();
      if (m.id === 0) return log.error({ error: m.error }, 'usage-writer projection failed; it will retry');
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve();
      else p.reject(new Error(m.error ?? 'usage writer failed'));
    });
    const fail = (error: Error) => {
      failReady(error);
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', (error) => {
      log.error({ err: error }, 'usage-writer thread failed');
      fail(error);
    });
    this.worker.on('exit', (code) => {
      if (!this.closed) fail(new Error(`usage-writer thread exited with code ${code}`));
    });
  }

  /** Resolves once the thread has opened its adapters and started its projections. */
  started(): Promise<void> {
    return this.ready;
  }

  private call(message: { op: 'append'; calls: ApiCallRecorded['data'][] } | { op: 'catchUp' } | { op: 'close' }): Promise<void> {
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message });
    });
  }

  append(batch: ApiCallRecorded['data'][]): Promise<void> {
    return this.call({ op: 'append', calls: batch });
  }

  catchUp(): Promise<void> {
    return this.call({ op: 'catchUp' });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.call({ op: 'close' }).catch(() => undefined);
    this.closed = true;
    await this.worker.terminate();
  }
}

/**
 * Records `ApiCallRecorded` events off the request path, in batches: calls are buffered and flushed
 * every `flushMs` (or at `maxBatch`) to the sink: appended here, or handed to the usage-writer thread,
 * one append per tenant stream, so the log takes one write per batch instead of one per call.
 * `close()` flushes what is left; a crash loses at most `flushMs` of usage (credits are exact whatever
 * happens: they live on the credit streams, written before the answer).
 */
export class UsageRecorder {
  private buffer: ApiCallRecorded['data'][] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sink: UsageSink,
    private readonly log: Logger,
    private readonly flushMs = 50,
    private readonly maxBatch = 1000,
  ) {}

  record(call: ApiCallRecorded['data']): void {
    this.buffer.push(call);
    if (this.buffer.length >= this.maxBatch) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      this.timer.unref();
    }
  }

  /** Appends everything buffered so far; resolves when it is in the log. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = this.flushing.then(async () => {
      if (batch.length === 0) return;
      try {
        await this.sink.append(batch);
      } catch (err) {
        this.log.error({ err, calls: batch.length }, 'could not record usage events');
      }
    });
    return this.flushing;
  }

  /** Resolves once the sink's own projections have applied every usage event flushed so far. */
  async catchUp(): Promise<void> {
    await this.sink.catchUp();
  }

  /** Flushes, then stops the sink (the usage-writer thread). */
  async close(): Promise<void> {
    await this.flush();
    await this.sink.close();
  }
}
