/**
 * One API call, successful or not (issue 2, item 8). Appended to `usage-<tenantId>` (or
 * `usage-anonymous` when no tenant could be identified) after the response is sent.
 */
export type ApiCallRecorded = {
  type: 'ApiCallRecorded';
  data: {
    request_id: string;
    tenant_id: string | null;
    key_id: string | null;
    /** Route template when matched (e.g. `/v1/face-matching/verify/:subjectId`), else the path. */
    endpoint: string;
    method: string;
    status_code: number;
    /** Seconds. */
    response_time: number;
    /** Bytes (Content-Length of the request, or bytes read). */
    request_size: number;
    /** Bytes. */
    response_size: number;
    ip_address: string;
    user_agent: string | null;
    credits_charged: number;
    created_at: string;
    /** The face/fingerprint `subject_id` the call named (batch events only; absent when none). */
    subject_id?: string;
  };
};

/**
 * Many API calls of one tenant, as columns (issue 18): what the usage recorder appends since the edge
 * batches its calls, one event per tenant per flush (every 50 ms or 1,000 calls) instead of one
 * `ApiCallRecorded` per call, so the log takes, and every follower of the log reads, one row per batch.
 * Call `i` is the `i`-th entry of every column; {@link callsOfBatch} gives each call as the
 * `ApiCallRecorded` data it replaces, so read models count every call exactly as before. Logs written
 * before hold `ApiCallRecorded` events, which stay readable (replay folds both).
 */
export type ApiCallsRecorded = {
  type: 'ApiCallsRecorded';
  data: {
    /** The tenant of every call of the batch (null: no tenant could be identified). */
    tenant_id: string | null;
    /** The batch's distinct texts, referenced by index from the text columns below (key ids, endpoints, methods). */
    strings: string[];
    /**
     * The batch's distinct client IP addresses and user agents, referenced by `ip_address` and `user_agent`
     * (issue 28). Sealed in the log under the tenant's data key of the calls' UTC day ({@link usageDayKeyId}:
     * every call of one event is of one tenant and one day), destroyed by the retention sweep once the day
     * is older than `usage_ip_days` and by off-boarding; the table then reads as `[]`, so each address
     * reads as `''` and each user agent as null. Absent in events written before: `ip_address` and
     * `user_agent` then index `strings`, which held them in clear.
     */
    personal_strings?: string[];
    request_id: string[];
    /** Indexes into `strings`; -1 for null. */
    key_id: number[];
    endpoint: number[];
    method: number[];
    /** Index into `personal_strings` (into `strings` when it is absent). */
    ip_address: number[];
    /** Index into `personal_strings` (into `strings` when it is absent); -1 for null. */
    user_agent: number[];
    /**
     * Index into `strings` of the face/fingerprint `subject_id` the call named (enrol, verify, delete of a
     * subject), -1 for none: an erasure of the subject clears the rows' address and user agent. Absent in
     * events written before.
     */
    subject_id?: number[];
    status_code: number[];
    /** Seconds. */
    response_time: number[];
    /** Bytes. */
    request_size: number[];
    /** Bytes. */
    response_size: number[];
    credits_charged: number[];
    /** Epoch milliseconds (`ApiCallRecorded.created_at` is its ISO 8601 text). */
    created_at: number[];
  };
};

/** The event types that record API calls: one call each (older logs) or a batch of calls. */
export const USAGE_EVENT_TYPES = ['ApiCallRecorded', 'ApiCallsRecorded'] as const;

/** Each call of a batch event as the `ApiCallRecorded` data it stands for, in order. */
export function callsOfBatch(d: ApiCallsRecorded['data']): ApiCallRecorded['data'][] {
  const s = d.strings;
  const text = (k: number): string | null => (k < 0 ? null : s[k]!);
  const { ip, userAgent } = personalTextOf(d);
  const n = d.request_id.length;
  const calls: ApiCallRecorded['data'][] = new Array(n);
  for (let i = 0; i < n; i++) {
    calls[i] = {
      request_id: d.request_id[i]!,
      tenant_id: d.tenant_id,
      key_id: text(d.key_id[i]!),
      endpoint: s[d.endpoint[i]!]!,
      method: s[d.method[i]!]!,
      status_code: d.status_code[i]!,
      response_time: d.response_time[i]!,
      request_size: d.request_size[i]!,
      response_size: d.response_size[i]!,
      ip_address: ip(d.ip_address[i]!),
      user_agent: userAgent(d.user_agent[i]!),
      credits_charged: d.credits_charged[i]!,
      created_at: new Date(d.created_at[i]!).toISOString(),
    };
    const subject = d.subject_id?.[i] ?? -1;
    if (subject >= 0) calls[i]!.subject_id = s[subject]!;
  }
  return calls;
}

/**
 * How a batch event's `ip_address` and `user_agent` indexes read: from `personal_strings` when the event
 * has it (an erased table reads as the documented replacements: `''` for an address, null for a user
 * agent), else from `strings` (events written before issue 28).
 */
export function personalTextOf(d: ApiCallsRecorded['data']): { ip: (k: number) => string; userAgent: (k: number) => string | null } {
  const p = d.personal_strings;
  if (!p) return { ip: (k) => d.strings[k]!, userAgent: (k) => (k < 0 ? null : d.strings[k]!) };
  return { ip: (k) => p[k] ?? '', userAgent: (k) => (k < 0 ? null : (p[k] ?? null)) };
}

/** Milliseconds of a UTC day. */
export const USAGE_DAY_MS = 86_400_000;

/**
 * The data-subject key id sealing a tenant's usage IP addresses and user agents of one UTC day:
 * `usage:<tenant id, or - for calls without one>:<YYYY-MM-DD>` (`dayMs`: any instant of the day, epoch ms).
 */
export function usageDayKeyId(tenantId: string | null, dayMs: number): string {
  return `usage:${tenantId ?? '-'}:${new Date(Math.floor(dayMs / USAGE_DAY_MS) * USAGE_DAY_MS).toISOString().slice(0, 10)}`;
}

export const usageStream = (tenantId: string | null) => `usage-${tenantId ?? 'anonymous'}`;

/** Service group of an endpoint path (`/v1/face/detect` -> `face`), as the usage summary's `by_endpoint`. */
export function serviceGroup(endpoint: string): string {
  const m = /^\/(?:v1|api)\/([^/?]+)/.exec(endpoint);
  return m?.[1] ?? 'other';
}
