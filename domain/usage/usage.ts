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

export const usageStream = (tenantId: string | null) => `usage-${tenantId ?? 'anonymous'}`;

/** Service group of an endpoint path (`/v1/face/detect` -> `face`), as the usage summary's `by_endpoint`. */
export function serviceGroup(endpoint: string): string {
  const m = /^\/(?:v1|api)\/([^/?]+)/.exec(endpoint);
  return m?.[1] ?? 'other';
}
