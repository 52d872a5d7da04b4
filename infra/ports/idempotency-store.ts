/**
 * Idempotency-store port: the `Idempotency-Key` records of charged calls (apps/api/idempotency.ts),
 * following Stripe's convention and the IETF draft `draft-ietf-httpapi-idempotency-key-header`.
 *
 * A record is scoped by tenant and key. It is first *in progress* (held by one request, `owner`, for at
 * most `leaseMs`: a holder whose process died frees it then), then either *completed* (the first answer,
 * replayed to every retry until `ttlMs` after it was stored) or removed (the call failed: it may be retried
 * with the same key). Every operation is atomic across every process sharing the store.
 *
 * Embedded adapter: `infra/idempotency/sqlite` (a SQLite file in DATA_DIR, survives restarts). Scaled
 * out: `infra/idempotency/redis` (one Redis shared by every API process; records expire by Redis TTL).
 * Chosen by `infra/idempotency/index.ts` (`IDEMPOTENCY_STORE`). Every adapter must pass
 * `test/contract/idempotency-store.contract.ts`.
 */

/** The answer kept for replay: status, the headers worth replaying, and the body as sent. */
export interface StoredResponse {
  status: number;
  /** Lower-case header names (e.g. `content-type`) and values. */
  headers: Record<string, string>;
  /** The body: UTF-8 text, or base64 of bytes when `base64` is true. */
  body: string;
  base64: boolean;
  /**
   * The data subject (the tenant's pseudonymous `subject_id`) the answer is about, when the route was given
   * one (OCR calls with `subject_id`): an erasure of that subject removes the record
   * ({@link IdempotencyStore.forgetSubject}) whatever its body holds. Never replayed as a header or body.
   */
  subject?: string;
}

/** What {@link IdempotencyStore.begin} found. */
export type BeginOutcome =
  /** No live record: one was created, held by the caller until it completes or releases it. */
  | { state: 'started' }
  /** Another request holds the key (its call still runs); `fingerprint` is that request's. */
  | { state: 'in_progress'; fingerprint: string }
  /** The key's call finished: `response` is its answer, `fingerprint` its request's. */
  | { state: 'completed'; fingerprint: string; response: StoredResponse };

export interface IdempotencyStore {
  /**
   * Takes `key` of `tenantId` for `owner` (unique per request) when no live record exists (none, or an
   * in-progress one past its lease, or a completed one past its TTL), else says what holds it.
   * @param fingerprint hash of the request (method, path, body): compared by the caller
   * @param leaseMs how long the record stays in progress if its owner never completes or releases it
   * @param nowMs the caller's clock (the SQLite adapter's time; Redis counts durations on its own clock)
   */
  begin(tenantId: string, key: string, fingerprint: string, owner: string, leaseMs: number, nowMs: number): Promise<BeginOutcome>;
  /**
   * Stores the answer of `owner`'s call, kept `ttlMs` from `nowMs`. No-op (false) when `owner` no longer
   * holds the record (its lease ran out and another request took it).
   */
  complete(tenantId: string, key: string, owner: string, response: StoredResponse, ttlMs: number, nowMs: number): Promise<boolean>;
  /** Removes `owner`'s in-progress record (its call failed and may be retried); no-op otherwise. */
  release(tenantId: string, key: string, owner: string): Promise<void>;
  /**
   * Removes every completed record of `tenantId` whose stored body (text, not base64) contains `text`, and
   * the bytes it leaves in the store's files where the adapter can (issue 28: an erasure removes the stored
   * answers that name an erased subject, such as a 1:N search's matches with their client metadata; the
   * caller passes the subject id as a JSON string, quotes included). A retry with such a key runs its call
   * again. With `ignoreCase`, `text` is matched ignoring ASCII case (an e-mail address erasure: a stored
   * answer keeps the address as the caller wrote it). Returns how many records were removed.
   */
  forgetResponses(tenantId: string, text: string, options?: { ignoreCase?: boolean }): Promise<number>;
  /**
   * Removes every completed record of `tenantId` whose answer is tagged with `subjectId`
   * ({@link StoredResponse.subject}, compared exactly), and the bytes it leaves in the store's files where
   * the adapter can, as {@link forgetResponses} does (issue 28: an OCR extraction's stored answer holds the
   * document's names, CURP and address without naming the subject id). Returns how many were removed.
   */
  forgetSubject(tenantId: string, subjectId: string): Promise<number>;
  /**
   * Removes every record of `tenantId`, completed or in progress, and the bytes they leave in the store's
   * files where the adapter can (issue 28: tenant off-boarding; the tenant's keys are revoked first, so no
   * call of its can begin a new one). Returns how many were removed.
   */
  forgetTenant(tenantId: string): Promise<number>;
  close(): Promise<void>;
}

/** The shared store cannot be reached: the edge answers 503 with `Retry-After` to a call carrying a key. */
export class IdempotencyStoreUnavailableError extends Error {
  override readonly name = 'IdempotencyStoreUnavailableError';
}
