/**
 * `Idempotency-Key` on charged calls (issue 30): a client that timed out and retries does not pay twice.
 * Follows Stripe's convention and the IETF draft `draft-ietf-httpapi-idempotency-key-header`:
 * - a charged POST may carry `Idempotency-Key` (1-255 visible ASCII characters; a Structured Field string
 *   `"..."` as the draft writes it is accepted too). Keys are per tenant;
 * - the first 2xx answer of a key is stored (status, body, `Content-Type`, `Content-Disposition`,
 *   `Location`) for `IDEMPOTENCY_TTL_MS` (24 hours) and replayed to a retry of the same request with
 *   `Idempotent-Replayed: true`, charging nothing (`X-Credit-Cost: 0`);
 * - the same key with another request (method, path with query, or body: JSON compared by value,
 *   multipart by its fields and each file's name, type and bytes) is 422 `idempotency_key_reused`;
 * - a retry while the first call still runs is 409 `idempotency_key_in_use` (with Retry-After);
 * - an answer that is not 2xx is never stored (it was not charged): the key is free to retry at once.
 * - a route may tag the stored answer with the data subject it is about ({@link tagIdempotentAnswer}; OCR
 *   calls given `subject_id`): an erasure of that subject removes it (issue 28).
 * The records live behind the idempotency-store port (SQLite file, or Redis shared by every API process).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiApp } from './types.ts';
import type { Platform } from '../platform/types.ts';
import { ApiError } from './errors.ts';
import { prefetchMultipart, type MultipartBody } from './multipart.ts';
import { IdempotencyStoreUnavailableError, type StoredResponse } from '../../infra/ports/idempotency-store.ts';

/** Longest key accepted (Stripe's limit). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The request header, and the header that marks a replayed answer. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';

/** Headers of the first answer a replay repeats (the billing headers are the replay's own: it costs 0). */
const REPLAYED_HEADERS = ['content-type', 'content-disposition', 'location'] as const;

/** Error codes of the idempotency check, each with when it is answered. */
export const IdempotencyErrors = {
  /** The header is empty, longer than 255 characters or holds characters outside visible ASCII. */
  invalidKey: () =>
    new ApiError(400, 'invalid_idempotency_key', `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters`, {
      header: 'Idempotency-Key',
      max_length: MAX_IDEMPOTENCY_KEY_LENGTH,
    }),
  /** The key was used with another request (method, path or body) within its 24 hours. */
  reused: () =>
    new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request; use a new key for a new request', {
      header: 'Idempotency-Key',
    }),
  /** A request with this key is still being answered. */
  inUse: () =>
    new ApiError(
      409,
      'idempotency_key_in_use',
      'A request with this Idempotency-Key is still being processed; retry after it finishes',
      { header: 'Idempotency-Key' },
      { retry_after: 1 },
      { 'Retry-After': '1' },
    ),
  /** The shared store (Redis) is unreachable: a keyed call is refused rather than risk a double charge. */
  unavailable: () =>
    new ApiError(503, 'service_unavailable', 'Idempotency keys are temporarily unavailable; retry shortly', { service: 'idempotency_store' }, { retry_after: 5 }, {
      'Retry-After': '5',
    }),
} as const;

/** The call's hold on its key, from the check until its answer is stored or the key released. */
interface Held {
  tenantId: string;
  key: string;
  owner: string;
  settled: boolean;
  /** The data subject the answer is about ({@link tagIdempotentAnswer}). */
  subject?: string;
}
const held = new WeakMap<FastifyRequest, Held>();

/**
 * Tags the answer this request's `Idempotency-Key` will store with the data subject it is about (the
 * tenant's `subject_id`), so `POST /v1/privacy/erasures {subject_id}` removes it
 * (`IdempotencyStore.forgetSubject`) though its body does not name the subject (issue 28: an OCR
 * extraction's answer holds the document's names, CURP and address). No-op for a call without a key.
 */
export function tagIdempotentAnswer(request: FastifyRequest, subjectId: string): void {
  const h = held.get(request);
  if (h) h.subject = subjectId;
}

/**
 * The key of a request: the header's value, unquoted when sent as a Structured Field string.
 * @returns undefined without the header
 * @throws ApiError 400 `invalid_idempotency_key`
 */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw IdempotencyErrors.invalidKey();
  let key = raw.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x20-\x7e]+$/.test(key)) throw IdempotencyErrors.invalidKey();
  return key;
}

/** JSON with object keys sorted at every level: equal values give equal text whatever the client's key order. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/**
 * The request's fingerprint: SHA-256 of its method, path with query and body. A multipart body counts by
 * its text fields (by name, values in order) and files (field, file name, declared type, SHA-256 of the
 * bytes), so a retry with another multipart boundary is the same request.
 */
export function requestFingerprint(method: string, url: string, body: unknown, multipart: MultipartBody | null): string {
  const h = createHash('sha256');
  h.update(`${method}\n${url}\n`);
  if (multipart) {
    h.update('multipart\n');
    for (const name of [...multipart.fields.keys()].sort()) h.update(`field ${JSON.stringify(name)} ${JSON.stringify(multipart.fields.get(name))}\n`);
    for (const name of [...multipart.files.keys()].sort()) {
      const f = multipart.files.get(name)!;
      h.update(`file ${JSON.stringify(name)} ${JSON.stringify(f.filename)} ${JSON.stringify(f.mimetype)} ${createHash('sha256').update(f.data).digest('hex')}\n`);
    }
  } else if (Buffer.isBuffer(body)) {
    h.update('bytes\n').update(body);
  } else if (typeof body === 'string') {
    h.update('text\n').update(body);
  } else if (body !== undefined) {
    h.update('json\n').update(canonicalJson(body));
  }
  return h.digest('hex');
}

/**
 * Registers the answer side (store a 2xx, release the key otherwise) and returns the check, a preHandler
 * the edge runs first on every route that may charge credits (before the credit reservation, so a replay
 * or a refused retry reserves nothing). The check costs nothing on a call without the header.
 */
export function registerIdempotency(app: ApiApp, ctx: Platform): (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void {
  const release = async (request: FastifyRequest, h: Held): Promise<void> => {
    h.settled = true;
    await ctx.idempotency.release(h.tenantId, h.key, h.owner).catch((err: unknown) => request.log.error({ err }, 'could not release an idempotency key (its lease frees it)'));
  };

  // After the edge's onSend (registered before): the credits are settled when this runs.
  app.addHook('onSend', (request, reply, payload, done) => {
    const h = held.get(request);
    if (!h || h.settled) return done(null, payload);
    const storable = reply.statusCode >= 200 && reply.statusCode < 300 && !reply.raw.destroyed && (typeof payload === 'string' || Buffer.isBuffer(payload));
    if (!storable) {
      void release(request, h).then(() => done(null, payload));
      return;
    }
    h.settled = true;
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const v = reply.getHeader(name);
      if (v !== undefined) headers[name] = String(v);
    }
    const response: StoredResponse = Buffer.isBuffer(payload)
      ? { status: reply.statusCode, headers, body: payload.toString('base64'), base64: true }
      : { status: reply.statusCode, headers, body: payload as string, base64: false };
    if (h.subject !== undefined) response.subject = h.subject;
    ctx.idempotency
      .complete(h.tenantId, h.key, h.owner, response, ctx.config.IDEMPOTENCY_TTL_MS, ctx.clock.now())
      .then(
        (stored) => {
          if (!stored) request.log.warn({ key_owner: h.owner }, 'idempotency key was taken over before its answer was stored (lease expired)');
        },
        (err: unknown) => request.log.error({ err }, 'could not store the answer of an idempotency key; a retry may run the call again'),
      )
      .finally(() => done(null, payload));
  });
  // An answer that never reached onSend (hook errors) still frees its key.
  app.addHook('onResponse', (request, _reply, done) => {
    const h = held.get(request);
    if (h && !h.settled) void release(request, h);
    done();
  });

  const check = async (request: FastifyRequest, reply: FastifyReply): Promise<'replayed' | void> => {
    const key = idempotencyKeyOf(request);
    const auth = request.auth;
    if (key === undefined || !auth) return;
    let multipart: MultipartBody | null = null;
    // Only routes in the multipart scope have `isMultipart` (apps/api/app.ts).
    if (typeof request.isMultipart === 'function' && request.isMultipart()) {
      multipart = await prefetchMultipart(request);
      // Unreadable (too large, malformed): the route answers its own 4xx, which is never stored.
      if (!multipart) return;
    }
    const fingerprint = requestFingerprint(request.method, request.url, request.body, multipart);
    const owner = randomUUID();
    let found;
    try {
      found = await ctx.idempotency.begin(auth.tenantId, key, fingerprint, owner, ctx.config.IDEMPOTENCY_LEASE_MS, ctx.clock.now());
    } catch (error) {
      if (error instanceof IdempotencyStoreUnavailableError) throw IdempotencyErrors.unavailable();
      throw error;
    }
    if (found.state === 'started') {
      held.set(request, { tenantId: auth.tenantId, key, owner, settled: false });
      return;
    }
    if (found.fingerprint !== fingerprint) throw IdempotencyErrors.reused();
    if (found.state === 'in_progress') throw IdempotencyErrors.inUse();
    const r = found.response;
    reply.code(r.status);
    for (const [name, value] of Object.entries(r.headers)) reply.header(name, value);
    reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
    reply.send(r.base64 ? Buffer.from(r.body, 'base64') : r.body);
    return 'replayed';
  };

  return (request, reply, done) => {
    // The common path (no header, or a GET) stays synchronous: no promise per call.
    if (request.method !== 'POST' || request.headers[IDEMPOTENCY_KEY_HEADER] === undefined) return done();
    check(request, reply).then(
      (outcome) => {
        // A replay was sent from here: the chain stops (no done), as Fastify's hooks answer early.
        if (outcome !== 'replayed') done();
      },
      (error: Error) => done(error),
    );
  };
}
