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
    /** The batch's distinct texts, referenced by index from the text columns below. */
    strings: string[];
    request_id: string[];
    /** Indexes into `strings`; -1 for null. */
    key_id: number[];
    endpoint: number[];
    method: number[];
    ip_address: number[];
    /** Index into `strings`; -1 for null. */
    user_agent: number[];
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
      ip_address: s[d.ip_address[i]!]!,
      user_agent: text(d.user_agent[i]!),
      credits_charged: d.credits_charged[i]!,
      created_at: new Date(d.created_at[i]!).toISOString(),
    };
  }
  return calls;
}

export const usageStream = (tenantId: string | null) => `usage-${tenantId ?? 'anonymous'}`;

/** Service group of an endpoint path (`/v1/face/detect` -> `face`), as the usage summary's `by_endpoint`. */
export function serviceGroup(endpoint: string): string {
  const m = /^\/(?:v1|api)\/([^/?]+)/.exec(endpoint);
  return m?.[1] ?? 'other';
}
