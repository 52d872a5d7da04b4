/**
 * What the Kafka job queue writes into its topics, and the claim check that keeps binary data out of them.
 *
 * Topics of a deployment (prefix `JOB_QUEUE_PREFIX`, default `sello`):
 * - `<prefix>.jobs`: job requests, consumed by the worker processes in the group `<prefix>.workers`;
 * - `<prefix>.replies.<instance>`: the answers to one API process (one partition; deleted when it closes);
 * - `<prefix>.jobs.dlt`: the dead letters (JSON, for operators): jobs that crashed on every attempt and
 *   messages no worker could read.
 *
 * Message values are V8's structured-clone format (`node:v8` `serialize`), so the job's input and result
 * keep their types exactly as the worker-thread pool would receive them. An input or result that holds
 * binary data (any `ArrayBuffer` or view: images, PDFs, descriptors), or whose encoding is larger than
 * {@link INLINE_MAX_BYTES}, is never put into a message: it is written to the blob store under
 * `job-claims/<prefix>/<deadline>-<job id>[.reply-<random>]` and the message carries that key (claim check).
 * The API process that enqueued the job deletes both claims when the job ends (answer, failure or timeout);
 * a claim left by a process that died is deleted by any API process's sweep once its deadline has passed
 * ({@link claimExpired}).
 */
import { randomBytes } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import type { BlobStore } from '../../ports/blob-store.ts';
import type { JobEnvelope } from '../../ports/job-queue.ts';

/** Largest encoded input or result carried inside a message (bytes); larger ones go by claim check too. */
export const INLINE_MAX_BYTES = 256 * 1024;

/** The version of the message format below; a message of another version is dead-lettered, not guessed at. */
const WIRE_VERSION = 1;

/** The names a deployment's queue uses, derived from its topic prefix. */
export interface KafkaNames {
  jobs: string;
  deadLetters: string;
  workersGroup: string;
  /** Every reply topic starts with this; a job naming any other reply topic is refused (see {@link decodeJob}). */
  repliesPrefix: string;
  /** Every claim-check key starts with this; a message naming any other blob is refused. */
  claimsPrefix: string;
}

/**
 * The topic, group and blob-key names of the deployment whose prefix is `prefix`.
 * @throws Error when `prefix` is not `[A-Za-z0-9_.-]{1,64}` or is `.` or `..` (the rule of `JOB_QUEUE_PREFIX`).
 */
export function kafkaNames(prefix: string): KafkaNames {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(prefix) || prefix === '.' || prefix === '..') throw new Error(`invalid job queue prefix ${JSON.stringify(prefix)}`);
  return {
    jobs: `${prefix}.jobs`,
    deadLetters: `${prefix}.jobs.dlt`,
    workersGroup: `${prefix}.workers`,
    repliesPrefix: `${prefix}.replies.`,
    claimsPrefix: `job-claims/${prefix}/`,
  };
}

/** A reference to a payload kept in the blob store. */
export interface ClaimRef {
  key: string;
  bytes: number;
}

/** A job request as it travels in `<prefix>.jobs` (V8-serialised). */
export interface JobMessage {
  v: number;
  /** Random UUID; also the message key (it spreads jobs over the partitions). */
  id: string;
  type: string;
  /** Epoch ms after which the caller no longer waits: a worker drops the job instead of running it. */
  deadline: number;
  /** The reply topic of the API process waiting for the answer. */
  replyTo: string;
  /** The V8 encoding of the input, when it travels inline... */
  payload?: Uint8Array;
  /** ...or where it waits in the blob store. */
  claim?: ClaimRef;
}

/** An answer as it travels in a reply topic (V8-serialised). */
export interface ReplyMessage {
  v: number;
  /** The job's id. */
  id: string;
  /** Who answered: `<hostname>:<pid>` of the worker process. */
  worker: string;
  /** The V8 encoding of the {@link JobEnvelope}, inline or by claim check. */
  payload?: Uint8Array;
  claim?: ClaimRef;
}

/** A dead letter (JSON in `<prefix>.jobs.dlt`): enough to find the job and its caller, never its input. */
export interface DeadLetter {
  id: string | null;
  type: string | null;
  reason: 'attempts_exhausted' | 'malformed';
  attempts: number;
  error: string;
  worker: string;
  failed_at: string;
  /** Where the job came from (`<prefix>.jobs` partition and offset). */
  partition: number;
  offset: string;
}

/** True when `value` holds an `ArrayBuffer` or a view of one anywhere inside (cycles are followed once). */
export function holdsBinary(value: unknown, seen: Set<object> = new Set()): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer)) return true;
  if (seen.has(value)) return false;
  seen.add(value);
  if (value instanceof Map) {
    for (const [k, v] of value) if (holdsBinary(k, seen) || holdsBinary(v, seen)) return true;
    return false;
  }
  const items = value instanceof Set ? [...value] : Array.isArray(value) ? value : Object.values(value);
  for (const item of items) if (holdsBinary(item, seen)) return true;
  return false;
}

/**
 * Encodes `value` (V8 format) and stores it in the blob store under `key` when it holds binary data or
 * is larger than {@link INLINE_MAX_BYTES}; returns what the message carries.
 * @throws Error when `value` cannot be structured-cloned, or the blob store refuses the write.
 */
export async function pack(blobs: BlobStore, key: string, value: unknown): Promise<{ payload: Uint8Array } | { claim: ClaimRef }> {
  const encoded = serialize(value);
  if (!holdsBinary(value) && encoded.length <= INLINE_MAX_BYTES) return { payload: encoded };
  await blobs.put(key, encoded, { contentType: 'application/x-v8-serialized' });
  return { claim: { key, bytes: encoded.length } };
}

/**
 * Decodes what {@link pack} produced. `null` when the claim's blob is gone: its job ended (the caller gave
 * up or was answered) and the claim was deleted.
 * @throws Error when the blob store cannot be read or the bytes are not a V8 encoding.
 */
export async function unpack<T>(blobs: BlobStore, carried: { payload?: Uint8Array; claim?: ClaimRef }): Promise<T | null> {
  if (carried.payload) return deserialize(carried.payload) as T;
  const bytes = await blobs.get(carried.claim!.key);
  return bytes === null ? null : (deserialize(bytes) as T);
}

/** The claim key of a job's input. */
export function inputClaimKey(names: KafkaNames, id: string, deadline: number): string {
  return `${names.claimsPrefix}${deadline}-${id}`;
}

/** A claim key for one answer to a job (random, so a duplicate answer never overwrites the first one's). */
export function replyClaimKey(names: KafkaNames, id: string, deadline: number): string {
  return `${names.claimsPrefix}${deadline}-${id}.reply-${randomBytes(4).toString('hex')}`;
}

/**
 * True when `key` is one of this deployment's claims whose job's deadline passed more than `graceMs` ago
 * (nobody can need it any more: workers drop jobs past their deadline).
 */
export function claimExpired(names: KafkaNames, key: string, now: number, graceMs: number): boolean {
  if (!key.startsWith(names.claimsPrefix)) return false;
  const deadline = Number(/^(\d+)-/.exec(key.slice(names.claimsPrefix.length))?.[1]);
  return Number.isFinite(deadline) && deadline + graceMs < now;
}

/** Encodes a job request. */
export function encodeJob(message: Omit<JobMessage, 'v'>): Buffer {
  return serialize({ v: WIRE_VERSION, ...message });
}

/** Encodes an answer. */
export function encodeReply(message: Omit<ReplyMessage, 'v'>): Buffer {
  return serialize({ v: WIRE_VERSION, ...message });
}

/** Why a message could not be read (it is dead-lettered or ignored, never retried). */
export class MalformedMessageError extends Error {
  override readonly name = 'MalformedMessageError';
}

function decodeValue(bytes: Buffer | null | undefined): Record<string, unknown> {
  if (!bytes || bytes.length === 0) throw new MalformedMessageError('empty message');
  let value: unknown;
  try {
    value = deserialize(bytes);
  } catch (error) {
    throw new MalformedMessageError(`not a V8-serialised value: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object') throw new MalformedMessageError('not an object');
  const v = (value as { v?: unknown }).v;
  if (v !== WIRE_VERSION) throw new MalformedMessageError(`unknown message version ${JSON.stringify(v)}`);
  return value as Record<string, unknown>;
}

/** Checks that exactly one of `payload` and `claim` is there, and that a claim points into this deployment's claims. */
function checkCarried(names: KafkaNames, m: Record<string, unknown>): void {
  const hasPayload = m.payload instanceof Uint8Array;
  const claim = m.claim as ClaimRef | undefined;
  const hasClaim = claim !== undefined && claim !== null && typeof claim.key === 'string' && typeof claim.bytes === 'number';
  if (hasPayload === hasClaim) throw new MalformedMessageError('a message carries exactly one of payload and claim');
  // Never read a blob the message merely names: only this deployment's claims, and no path tricks.
  if (hasClaim && (!claim.key.startsWith(names.claimsPrefix) || claim.key.split('/').some((s) => s === '..' || s === '.'))) {
    throw new MalformedMessageError(`claim key outside ${names.claimsPrefix}`);
  }
}

/**
 * Reads a job request.
 * @throws MalformedMessageError when it is not a job of this format and deployment (the reply topic must
 *   be one of this deployment's, so a stray message can never make a worker write elsewhere).
 */
export function decodeJob(names: KafkaNames, bytes: Buffer | null | undefined): JobMessage {
  const m = decodeValue(bytes);
  if (typeof m.id !== 'string' || m.id === '' || typeof m.type !== 'string' || m.type === '') throw new MalformedMessageError('job without id or type');
  if (typeof m.deadline !== 'number' || !Number.isFinite(m.deadline)) throw new MalformedMessageError('job without deadline');
  if (typeof m.replyTo !== 'string' || !m.replyTo.startsWith(names.repliesPrefix) || !/^[A-Za-z0-9._-]{1,249}$/.test(m.replyTo)) {
    throw new MalformedMessageError(`reply topic outside ${names.repliesPrefix}*`);
  }
  checkCarried(names, m);
  return m as unknown as JobMessage;
}

/**
 * Reads an answer.
 * @throws MalformedMessageError when it is not an answer of this format and deployment.
 */
export function decodeReply(names: KafkaNames, bytes: Buffer | null | undefined): ReplyMessage {
  const m = decodeValue(bytes);
  if (typeof m.id !== 'string' || m.id === '') throw new MalformedMessageError('reply without id');
  checkCarried(names, m);
  return m as unknown as ReplyMessage;
}

/** Checks that a decoded envelope has the shape of a {@link JobEnvelope}. */
export function asEnvelope(value: unknown): JobEnvelope {
  const e = value as JobEnvelope | null;
  if (e && typeof e === 'object' && (e.ok === true || (e.ok === false && typeof e.message === 'string'))) return e;
  throw new MalformedMessageError('reply payload is not a job envelope');
}
