import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { Config } from '../api/config.ts';
import type { EventStore } from '../../infra/ports/event-store.ts';
import { USAGE_DAY_MS, USAGE_EVENT_TYPES, usageStream, type ApiCallsRecorded } from '../../domain/usage/usage.ts';
import type { Projection } from '../../projections/projection.ts';

/**
 * A projection that reads usage events (`ApiCallRecorded`, `ApiCallsRecorded`: `usage-events`,
 * `usage-analytics`): in an API process with `USAGE_WRITER=thread` it runs on the usage-writer thread,
 * which also feeds it the other event types it lists from the log, so the HTTP thread never reads a
 * call's usage event back. Such a projection may write the read-model store only (the thread gives it no
 * vector index).
 */
export function readsUsageEvents(p: Projection): boolean {
  return USAGE_EVENT_TYPES.some((t) => p.eventTypes.includes(t));
}

/**
 * Appends a batch of calls as one `ApiCallsRecorded` event per tenant (and UTC day), on the tenant's usage
 * stream (`usage-<tenantId>`): one row in the log per tenant per flush instead of one per call (issue 18).
 */
export async function appendUsage(store: EventStore, batch: UsageColumns): Promise<void> {
  for (const data of batchEventsOf(batch)) {
    await store.append(usageStream(data.tenant_id), [{ type: 'ApiCallsRecorded', data, metadata: { tenant_id: data.tenant_id, calls: data.request_id.length } }]);
  }
}

/**
 * The `ApiCallsRecorded` data of a batch, one per tenant and UTC day of the calls (almost always one per
 * tenant: a batch spans 50 ms) in order of first call, calls in recorded order. IP addresses and user
 * agents go to each event's `personal_strings`, which the event store seals under the tenant's key of that
 * day (`usageDayKeyId`); key ids, endpoints and methods to `strings`, in clear.
 */
export function batchEventsOf(batch: UsageColumns): ApiCallsRecorded['data'][] {
  const n = batch.numbers;
  const r = batch.refs;
  const s = batch.strings;
  // Per tenant (its index in the batch's string table, -1: none) and UTC day: the event and its own string tables.
  const byTenant = new Map<number, { data: ApiCallsRecorded['data']; local: Map<number, number>; personal: Map<number, number> }>();
  for (let i = 0; i < batch.length; i++) {
    const o = i * NUMBER_FIELDS;
    const t = i * TEXT_FIELDS;
    // (tenant index + 1) * 2^20 + day: exact in a double (days since 1970 stay below 2^20 until year 4840).
    const group = (r[t]! + 1) * 1_048_576 + Math.floor(n[o + 5]! / USAGE_DAY_MS);
    let entry = byTenant.get(group);
    if (!entry) {
      const data: ApiCallsRecorded['data'] = {
        tenant_id: r[t]! < 0 ? null : s[r[t]!]!,
        strings: [],
        personal_strings: [],
        subject_id: [],
        request_id: [],
        key_id: [],
        endpoint: [],
        method: [],
        ip_address: [],
        user_agent: [],
        status_code: [],
        response_time: [],
        request_size: [],
        response_size: [],
        credits_charged: [],
        created_at: [],
      };
      byTenant.set(group, (entry = { data, local: new Map(), personal: new Map() }));
    }
    const { data, local, personal } = entry;
    const ref = (k: number): number => {
      if (k < 0) return -1;
      let j = local.get(k);
      if (j === undefined) {
        local.set(k, (j = data.strings.length));
        data.strings.push(s[k]!);
      }
      return j;
    };
    const personalRef = (k: number): number => {
      if (k < 0) return -1;
      let j = personal.get(k);
      if (j === undefined) {
        personal.set(k, (j = data.personal_strings!.length));
        data.personal_strings!.push(s[k]!);
      }
      return j;
    };
    data.request_id.push(batch.requestId[i]!);
    data.key_id.push(ref(r[t + 1]!));
    data.endpoint.push(ref(r[t + 2]!));
    data.method.push(ref(r[t + 3]!));
    data.ip_address.push(personalRef(r[t + 4]!));
    data.user_agent.push(personalRef(r[t + 5]!));
    data.subject_id!.push(ref(r[t + 6]!));
    data.status_code.push(n[o]!);
    data.response_time.push(n[o + 1]!);
    data.request_size.push(n[o + 2]!);
    data.response_size.push(n[o + 3]!);
    data.credits_charged.push(n[o + 4]!);
    data.created_at.push(n[o + 5]!);
  }
  return [...byTenant.values()].map((e) => e.data);
}

/**
 * A batch of calls as columns (what the HTTP thread buffers and posts to the usage-writer thread): the
 * request ids, a table of the batch's distinct other texts referenced by index, and the numbers in a
 * `Float64Array`, so recording a call allocates nothing of its own and the hand-over clones neither a
 * per-call object nor the same tenant, key, endpoint or address text once per call (issue 18).
 */
export interface UsageColumns {
  length: number;
  /** One per call. */
  requestId: string[];
  /** The distinct texts of the batch that {@link refs} point into. */
  strings: string[];
  /** Per call, {@link TEXT_FIELDS} indexes into `strings` (-1: null): tenant id, key id, endpoint, method, IP address, user agent, data subject. */
  refs: Int32Array;
  /** Per call, {@link NUMBER_FIELDS} numbers: status code, response time (s), request size (bytes), response size (bytes), credits charged, created at (epoch ms). */
  numbers: Float64Array;
}

/** Texts per call in {@link UsageColumns.refs}. */
export const TEXT_FIELDS = 7;
/** Numbers per call in {@link UsageColumns.numbers}. */
export const NUMBER_FIELDS = 6;

function emptyColumns(capacity: number): UsageColumns {
  return { length: 0, requestId: [], strings: [], refs: new Int32Array(capacity * TEXT_FIELDS), numbers: new Float64Array(capacity * NUMBER_FIELDS) };
}

/** Where a flushed batch goes: appended here, or posted to the usage-writer thread. */
export interface UsageSink {
  append(batch: UsageColumns): Promise<void>;
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

  private call(message: { op: 'append'; batch: UsageColumns; postedAt: number } | { op: 'catchUp' } | { op: 'close' }): Promise<void> {
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // The numbers' buffer is moved, not copied (the recorder hands over each batch's columns once).
      if (message.op === 'append') this.worker.postMessage({ id, ...message }, [message.batch.numbers.buffer as ArrayBuffer, message.batch.refs.buffer as ArrayBuffer]);
      else this.worker.postMessage({ id, ...message });
    });
  }

  append(batch: UsageColumns): Promise<void> {
    return this.call({ op: 'append', batch, postedAt: Date.now() });
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
 * Records API calls off the request path, in batches: calls are buffered and flushed every `flushMs` (or
 * at `maxBatch`) to the sink: appended here, or handed to the usage-writer thread, as one
 * `ApiCallsRecorded` event per tenant stream, so the log takes one row per batch instead of one per call.
 * `close()` flushes what is left; a crash loses at most `flushMs` of usage (credits are exact whatever
 * happens: they live on the credit streams, written before the answer).
 */
export class UsageRecorder {
  private buffer: UsageColumns;
  /** Index of each text in `buffer.strings`. */
  private textIndex = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sink: UsageSink,
    private readonly log: Logger,
    private readonly flushMs = 50,
    private readonly maxBatch = 1000,
  ) {
    this.buffer = emptyColumns(maxBatch);
  }


  /**
   * Buffers one call, field by field (the edge's hot path: no object per call). Units as in
   * `ApiCallRecorded`: response time in seconds, sizes in bytes; `createdAtMs` epoch milliseconds;
   * `subjectId`: the face/fingerprint `subject_id` the call named (see `recordUsageSubject` in
   * apps/api/edge.ts), so an erasure of that subject also clears the call's address and user agent.
   */
  recordCall(
    requestId: string,
    tenantId: string | null,
    keyId: string | null,
    endpoint: string,
    method: string,
    statusCode: number,
    responseTimeS: number,
    requestSize: number,
    responseSize: number,
    ip: string,
    userAgent: string | null,
    creditsCharged: number,
    createdAtMs: number,
    subjectId: string | null = null,
  ): void {
    const b = this.buffer;
    const o = b.length * NUMBER_FIELDS;
    const t = b.length * TEXT_FIELDS;
    b.requestId.push(requestId);
    const r = b.refs;
    r[t] = this.ref(tenantId);
    r[t + 1] = this.ref(keyId);
    r[t + 2] = this.ref(endpoint);
    r[t + 3] = this.ref(method);
    r[t + 4] = this.ref(ip);
    r[t + 5] = this.ref(userAgent);
    r[t + 6] = this.ref(subjectId);
    const n = b.numbers;
    n[o] = statusCode;
    n[o + 1] = responseTimeS;
    n[o + 2] = requestSize;
    n[o + 3] = responseSize;
    n[o + 4] = creditsCharged;
    n[o + 5] = createdAtMs;
    b.length += 1;
    if (b.length >= this.maxBatch) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      this.timer.unref();
    }
  }

  /** Index of `text` in the batch's string table (added on first use); -1 for null. */
  private ref(text: string | null): number {
    if (text === null) return -1;
    let k = this.textIndex.get(text);
    if (k === undefined) {
      k = this.buffer.strings.length;
      this.buffer.strings.push(text);
      this.textIndex.set(text, k);
    }
    return k;
  }

  /** Appends everything buffered so far; resolves when it is in the log. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.buffer;
    if (batch.length === 0) return this.flushing;
    this.buffer = emptyColumns(this.maxBatch);
    this.textIndex = new Map();
    this.flushing = this.flushing.then(async () => {
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
