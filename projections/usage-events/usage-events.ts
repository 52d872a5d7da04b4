import type { RecordedEvent } from '../../infra/ports/event-store.ts';
import type { Collection, ReadModelStore } from '../../infra/ports/read-models.ts';
import { USAGE_EVENT_TYPES, callsOfBatch, personalTextOf, serviceGroup, type ApiCallRecorded, type ApiCallsRecorded } from '../../domain/usage/usage.ts';
import type { Projection } from '../projection.ts';
import { USAGE_IPS_TRUNCATED, type UsageIpsTruncated } from '../../domain/privacy/retention.ts';
import { PRIVACY_SUBJECT_ERASED, type PrivacySubjectErased } from '../../domain/privacy/erasure.ts';
import { isTruncatedIp, truncateIp } from '../../domain/privacy/ip-truncation.ts';

/** One row per API call, the shape of the spec's usage "Stats record" plus tenant and credits. */
export interface UsageRecord extends Record<string, unknown> {
  id: string;
  tenant_id: string | null;
  user_id: string | null;
  key_id: string | null;
  endpoint: string;
  service: string;
  method: string;
  status_code: number;
  response_time: number;
  created_at: string;
  request_size: number;
  response_size: number;
  ip_address: string;
  user_agent: string | null;
  credits_charged: number;
  request_id: string;
  /** The row's key ({@link callKey}), so a retention truncation can rewrite the row (absent on rows projected before it was kept). */
  row_key?: string;
  /** The face/fingerprint `subject_id` the call named (absent: none); not in the API's answers. */
  subject_id?: string;
}

export const USAGE_COLLECTION = 'usage_events';

export const usageEventsCollection = (store: ReadModelStore): Promise<Collection<UsageRecord>> =>
  store.collection<UsageRecord>(USAGE_COLLECTION, { indexes: [['tenant_id', 'created_at']] });

/** One API call read from the log, with where it sits there. */
export interface LoggedCall {
  /** The event that holds it. */
  event: RecordedEvent;
  /** Its index in a batch event (`ApiCallsRecorded`), or -1 for a single-call event (`ApiCallRecorded`). */
  index: number;
  data: ApiCallRecorded['data'];
}

/**
 * The calls recorded by usage events, in log order (a batch's calls in recorded order), each with its
 * event: both the single-call events of older logs and the batch events the recorder appends now.
 * Events of other types are skipped.
 */
export function loggedCalls(events: readonly RecordedEvent[]): LoggedCall[] {
  const out: LoggedCall[] = [];
  for (const e of events) {
    if (e.type === 'ApiCallRecorded') out.push({ event: e, index: -1, data: (e as unknown as ApiCallRecorded).data });
    else if (e.type === 'ApiCallsRecorded') {
      const calls = callsOfBatch((e as unknown as ApiCallsRecorded).data);
      for (let i = 0; i < calls.length; i++) out.push({ event: e, index: i, data: calls[i]! });
    }
  }
  return out;
}

/**
 * The events with each batch event (`ApiCallsRecorded`) replaced by one `ApiCallRecorded` per call, in
 * place and in order (same position, id and stream as the batch; only `type` and `data` differ), for
 * folds written per call. Other events pass through unchanged, and so do the batch events `expand`
 * (default: every one) declines.
 */
export function asSingleCallEvents(events: readonly RecordedEvent[], expand: (batch: RecordedEvent) => boolean = () => true): RecordedEvent[] {
  if (!events.some((e) => e.type === 'ApiCallsRecorded')) return events as RecordedEvent[];
  const out: RecordedEvent[] = [];
  for (const e of events) {
    if (e.type !== 'ApiCallsRecorded' || !expand(e)) out.push(e);
    else for (const data of callsOfBatch((e as unknown as ApiCallsRecorded).data)) out.push({ ...e, type: 'ApiCallRecorded', data });
  }
  return out;
}

/**
 * The row key and `id` of a logged call. Single-call events: the event's zero-padded global position and
 * its id. Batch events: the same followed by `.` and the call's zero-padded index, and the event's id
 * followed by `.` and the index. Keys are stable across replays (idempotent) and increasing in log
 * order, so inserts append to the key index instead of landing at random places as UUID keys would.
 * `at` is the event's {@link positionKey}; a caller making every key of a batch passes it once computed.
 */
export function callKey(event: RecordedEvent, index: number, at = positionKey(event)): { key: string; id: string } {
  if (index < 0) return { key: at, id: event.eventId };
  return { key: `${at}.${String(index).padStart(6, '0')}`, id: `${event.eventId}.${index}` };
}

/** The zero-padded global position every {@link callKey} of `event` starts with (`at`: computed once per batch event). */
function positionKey(event: RecordedEvent): string {
  return String(event.globalPosition).padStart(16, '0');
}

/** Projects the calls of the usage events (`ApiCallRecorded`, `ApiCallsRecorded`) into `usage_events`, one row per call (keys: {@link callKey}). */
export const usageEventsProjection: Projection = {
  name: 'usage-events',
  collections: [USAGE_COLLECTION],
  eventTypes: [...USAGE_EVENT_TYPES, USAGE_IPS_TRUNCATED, PRIVACY_SUBJECT_ERASED],
  // A batch event holds up to 1,000 calls (the recorder's maxBatch): 500 events bound a batch's memory (500,000 calls at most).
  batchSize: 500,
  async apply(events: readonly RecordedEvent[], { store }) {
    const c = await usageEventsCollection(store);
    const rows: Array<readonly [string, UsageRecord]> = [];
    for (const e of events) {
      if (e.type === USAGE_IPS_TRUNCATED) {
        // Rows of the calls before it in this batch first: the truncation covers them too.
        for (const [k, r] of rows) r.row_key = k;
        await c.putMany(rows.splice(0));
        await truncateIps(c, (e as unknown as UsageIpsTruncated).data);
      } else if (e.type === PRIVACY_SUBJECT_ERASED) {
        for (const [k, r] of rows) r.row_key = k;
        await c.putMany(rows.splice(0));
        await eraseSubjectCalls(c, (e as unknown as PrivacySubjectErased).data);
      } else if (e.type === 'ApiCallRecorded') {
        const d = (e as unknown as ApiCallRecorded).data;
        const { key, id } = callKey(e, -1);
        rows.push([key, usageRecord(id, d.tenant_id, d.key_id, d.endpoint, serviceGroup(d.endpoint), d.method, d.status_code, d.response_time, d.created_at, d.request_size, d.response_size, d.ip_address, d.user_agent, d.credits_charged, d.request_id)]);
      } else if (e.type === 'ApiCallsRecorded') batchRows(e, (e as unknown as ApiCallsRecorded).data, rows);
    }
    // One statement per batch (the read-model port's putMany): the rate at which the log can be projected.
    for (const [k, r] of rows) r.row_key = k;
    await c.putMany(rows);
  },
};

/**
 * Applies an erasure of a face/fingerprint subject (`PrivacySubjectErased`, docs/privacy.md "Usage
 * events") to the rows of the calls that named it: their IP address reads `''` and their user agent null,
 * as the log's sealed copies will once their day's key is destroyed. Rows without a `row_key` are left for
 * the next replay.
 */
async function eraseSubjectCalls(c: Collection<UsageRecord>, d: PrivacySubjectErased['data']): Promise<void> {
  const rows = await c.find({ tenant_id: d.tenant_id, subject_id: d.subject_id });
  const changed = rows.filter((r) => r.row_key && (r.ip_address !== '' || r.user_agent !== null)).map((r) => [r.row_key!, { ...r, ip_address: '', user_agent: null }] as const);
  if (changed.length) await c.putMany(changed);
}

/**
 * Applies a retention truncation (`UsageIpsTruncated`, docs/privacy.md "Retention"): the tenant's rows
 * created in `[from, before)` keep only the network of their IP address (`truncateIp`). Pages of 1,000
 * rows by a `created_at` cursor (rewritten rows may move among rows of the same instant, so no offsets:
 * the rows of a page's last instant are read whole); rows without a `row_key` (projected before keys were
 * kept) are left for the next replay.
 */
async function truncateIps(c: Collection<UsageRecord>, d: UsageIpsTruncated['data']): Promise<void> {
  const rewrite = async (rows: UsageRecord[]) => {
    const changed = rows.filter((r) => r.row_key && !isTruncatedIp(r.ip_address)).map((r) => [r.row_key!, { ...r, ip_address: truncateIp(r.ip_address) }] as const);
    if (changed.length) await c.putMany(changed);
  };
  let lower: { $gte: string } | { $gt: string } | null = d.from ? { $gte: d.from } : null;
  for (;;) {
    const page = await c.find({ tenant_id: d.tenant_id, created_at: { ...lower, $lt: d.before } }, { sort: [{ field: 'created_at', order: 'asc' }], limit: 1000 });
    if (page.length < 1000) return rewrite(page);
    const last = page[page.length - 1]!.created_at;
    await rewrite(page.filter((r) => r.created_at < last));
    await rewrite(await c.find({ tenant_id: d.tenant_id, created_at: last }));
    lower = { $gt: last };
  }
}

/**
 * Appends the rows of a batch event's calls to `rows`, read from its columns: the same rows as
 * {@link callsOfBatch} then one row per call would give (keys and ids of {@link callKey}), with each
 * endpoint's service group and each instant's ISO 8601 text computed once per batch, not per call.
 */
function batchRows(e: RecordedEvent, d: ApiCallsRecorded['data'], rows: Array<readonly [string, UsageRecord]>): void {
  const s = d.strings;
  const text = (k: number): string | null => (k < 0 ? null : s[k]!);
  const { ip, userAgent } = personalTextOf(d);
  const subjects = d.subject_id;
  const services = new Map<number, string>();
  const at = positionKey(e);
  let lastMs = Number.NaN;
  let lastIso = '';
  for (let i = 0; i < d.request_id.length; i++) {
    const ms = d.created_at[i]!;
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = new Date(ms).toISOString();
    }
    const ep = d.endpoint[i]!;
    let service = services.get(ep);
    if (service === undefined) services.set(ep, (service = serviceGroup(s[ep]!)));
    const { key, id } = callKey(e, i, at);
    const row = usageRecord(id, d.tenant_id, text(d.key_id[i]!), s[ep]!, service, s[d.method[i]!]!, d.status_code[i]!, d.response_time[i]!, lastIso, d.request_size[i]!, d.response_size[i]!, ip(d.ip_address[i]!), userAgent(d.user_agent[i]!), d.credits_charged[i]!, d.request_id[i]!);
    const subject = subjects ? subjects[i]! : -1;
    if (subject >= 0) row.subject_id = s[subject]!;
    rows.push([key, row]);
  }
}

/** A `usage_events` row (field order as the spec's Stats record; `user_id` is the tenant). */
function usageRecord(
  id: string,
  tenantId: string | null,
  keyId: string | null,
  endpoint: string,
  service: string,
  method: string,
  statusCode: number,
  responseTime: number,
  createdAt: string,
  requestSize: number,
  responseSize: number,
  ip: string,
  userAgent: string | null,
  credits: number,
  requestId: string,
): UsageRecord {
  return {
    id,
    tenant_id: tenantId,
    user_id: tenantId,
    key_id: keyId,
    endpoint,
    service,
    method,
    status_code: statusCode,
    response_time: responseTime,
    created_at: createdAt,
    request_size: requestSize,
    response_size: responseSize,
    ip_address: ip,
    user_agent: userAgent,
    credits_charged: credits,
    request_id: requestId,
  };
}
