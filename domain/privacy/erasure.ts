/**
 * Erasure requests (`POST /v1/privacy/erasures`, issue 28): a tenant asks that everything held about one
 * of its data subjects be erased. Today a request names a face/fingerprint `subject_id`; the erasure
 * covers every face and fingerprint template enrolled under it.
 *
 * Events, stream `privacy-erasures-<tenantId>` (metadata `tenant_id`, `request_id`):
 * - `PrivacyErasureRequested`: the request was accepted (`status: processing`).
 * - `PrivacySubjectErased`: the subject's data key was destroyed (its sealed templates read as erased in
 *   the log and every backup of it); the face and fingerprint projections scrub the subject's listing
 *   documents and drop its vectors from this process's vector-index replica (every API process applies it).
 * - `PrivacyErasureCompleted`: the receipt (`status: completed`).
 * No event holds personal data: `subject_id` is the tenant's pseudonymous reference, kept in clear in
 * every face and fingerprint event (docs/privacy.md).
 *
 * The steps are idempotent: a request repeated while its erasure is still `processing` (a process died
 * mid-way) resumes that erasure; one repeated after completion makes a new erasure, which also covers
 * templates enrolled since.
 */
import type { EventStore, RecordedEvent } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import { tenantFaceStream, type FaceEmbeddingsPurged } from '../face-matching/events.ts';
import { EMBEDDINGS_COLLECTION, EMBEDDING_INDEXES } from '../face-matching/deps.ts';
import { tenantFingerprintStream, type FingerprintTemplatesPurged } from '../fingerprint/events.ts';
import { TEMPLATES_COLLECTION, TEMPLATE_INDEXES } from '../fingerprint/deps.ts';
import { validateSubjectId } from '../face-matching/enroll-face.ts';
import { subjectKeyId } from './classification.ts';

export const PRIVACY_ERASURE_REQUESTED = 'PrivacyErasureRequested';
export const PRIVACY_SUBJECT_ERASED = 'PrivacySubjectErased';
export const PRIVACY_ERASURE_COMPLETED = 'PrivacyErasureCompleted';

/** One line of a receipt: what kind of data, where, how many items, when. Never the data itself. */
export interface ReceiptItem {
  /** `face_templates`, `fingerprint_templates`, `data_keys`. */
  kind: 'face_templates' | 'fingerprint_templates' | 'data_keys';
  /** Where it was erased: `event_log` (crypto-shredded), `read_models`, `vector_index`, `key_store`. */
  stores: string[];
  /** Items erased (templates counted whether active or deleted before; keys destroyed). */
  count: number;
  /** ISO 8601. */
  erased_at: string;
}

export type PrivacyErasureRequested = {
  type: typeof PRIVACY_ERASURE_REQUESTED;
  data: { erasure_id: string; tenant_id: string; subject_id: string; requested_at: string };
};
export type PrivacySubjectErased = {
  type: typeof PRIVACY_SUBJECT_ERASED;
  data: { erasure_id: string; tenant_id: string; subject_id: string; erased_at: string };
};
export type PrivacyErasureCompleted = {
  type: typeof PRIVACY_ERASURE_COMPLETED;
  data: { erasure_id: string; tenant_id: string; completed_at: string; items: ReceiptItem[] };
};
export type PrivacyEvent = PrivacyErasureRequested | PrivacySubjectErased | PrivacyErasureCompleted;

/** Stream of a tenant's erasure requests. */
export const erasureStream = (tenantId: string): string => `privacy-erasures-${tenantId}`;

/** An erasure as the API shows it (no personal data: the subject is not echoed). */
export interface Erasure {
  erasure_id: string;
  status: 'processing' | 'completed';
  /** What the request covered. */
  scope: { subject_id: boolean; email: boolean };
  requested_at: string;
  completed_at: string | null;
  /** What was erased, and when (empty while processing). */
  erased: ReceiptItem[];
}

/** The tenant's erasures from its stream, with the subject of each (internal: for resuming). */
export function foldErasures(events: readonly Pick<RecordedEvent, 'type' | 'data'>[]): Map<string, Erasure & { subjectId: string }> {
  const out = new Map<string, Erasure & { subjectId: string }>();
  for (const e of events) {
    const d = e.data as Record<string, unknown>;
    const id = String(d.erasure_id);
    if (e.type === PRIVACY_ERASURE_REQUESTED) {
      const r = d as PrivacyErasureRequested['data'];
      out.set(id, { erasure_id: id, status: 'processing', scope: { subject_id: true, email: false }, requested_at: r.requested_at, completed_at: null, erased: [], subjectId: r.subject_id });
    } else if (e.type === PRIVACY_ERASURE_COMPLETED) {
      const c = d as PrivacyErasureCompleted['data'];
      const x = out.get(id);
      if (x) Object.assign(x, { status: 'completed', completed_at: c.completed_at, erased: c.items });
    }
  }
  return out;
}

/** What the erasure use cases need (ports and the key destruction of the event store's privacy layer). */
export interface ErasureDeps {
  events: EventStore;
  readModels: ReadModelStore;
  /** Destroys every data key of a subject key id; returns the references destroyed now. */
  destroyKeys: (subjectKey: string, at: string) => Promise<string[]>;
  /** Resolves once every projection of this process applied every event appended so far. */
  catchUp: () => Promise<void>;
  /** Epoch milliseconds. */
  now: () => number;
  /** A new erasure id. */
  newId: () => string;
}

/** The public view of an erasure. */
export function publicErasure(e: Erasure & { subjectId?: string }): Erasure {
  return { erasure_id: e.erasure_id, status: e.status, scope: e.scope, requested_at: e.requested_at, completed_at: e.completed_at, erased: e.erased };
}

/** The tenant's erasure `erasureId`, or null (also for another tenant's id). */
export async function getErasure(deps: Pick<ErasureDeps, 'events'>, tenantId: string, erasureId: string): Promise<Erasure | null> {
  const { events } = await deps.events.readStream(erasureStream(tenantId));
  const e = foldErasures(events).get(erasureId);
  return e ? publicErasure(e) : null;
}

/**
 * Erases a face/fingerprint subject (see the module comment): records the request, purges the subject's
 * templates (read models, every vector-index replica), destroys its data key (the templates in the log
 * read as erased), scrubs the listing documents, and records the receipt.
 * @returns the erasure, `completed` unless a step failed (then the error propagates and a repeated request resumes it).
 * @throws FaceMatchingError `invalid_request` for a malformed subject id.
 */
export async function eraseSubject(deps: ErasureDeps, input: { tenantId: string; subjectId: string; requestId?: string }): Promise<Erasure> {
  validateSubjectId(input.subjectId);
  const meta = { tenant_id: input.tenantId, ...(input.requestId ? { request_id: input.requestId } : {}) };
  const iso = () => new Date(deps.now()).toISOString();
  const stream = erasureStream(input.tenantId);
  const { events, currentRevision } = await deps.events.readStream(stream);
  const pending = [...foldErasures(events).values()].find((e) => e.status === 'processing' && e.subjectId === input.subjectId);
  const erasureId = pending?.erasure_id ?? deps.newId();
  if (!pending) {
    const requested: PrivacyErasureRequested = { type: PRIVACY_ERASURE_REQUESTED, data: { erasure_id: erasureId, tenant_id: input.tenantId, subject_id: input.subjectId, requested_at: iso() } };
    await deps.events.append(stream, [{ ...requested, metadata: meta }], { expectedRevision: currentRevision ?? 'no_stream' });
  }

  // Count before the scrub: every template of the subject, active or deleted before.
  const faces = await deps.readModels.collection(EMBEDDINGS_COLLECTION, { indexes: EMBEDDING_INDEXES });
  const fingers = await deps.readModels.collection(TEMPLATES_COLLECTION, { indexes: TEMPLATE_INDEXES });
  const subject = { tenant_id: input.tenantId, subject_id: input.subjectId };
  const faceCount = await faces.count(subject);
  const fingerCount = await fingers.count(subject);

  // 1. Deletion, as DELETE ?subject_id= does: every process's projections drop the vectors and the matches.
  const purgedAt = iso();
  const facePurge: FaceEmbeddingsPurged = { type: 'FaceEmbeddingsPurged', data: { tenant_id: input.tenantId, subject_id: input.subjectId, purged_at: purgedAt } };
  const fingerPurge: FingerprintTemplatesPurged = { type: 'FingerprintTemplatesPurged', data: { tenant_id: input.tenantId, subject_id: input.subjectId, purged_at: purgedAt } };
  await deps.events.append(tenantFaceStream(input.tenantId), [{ ...facePurge, metadata: meta }]);
  await deps.events.append(tenantFingerprintStream(input.tenantId), [{ ...fingerPurge, metadata: meta }]);
  await deps.catchUp();

  // 2. Crypto-shredding: the subject's key is destroyed, its templates in the log read as erased.
  const erasedAt = iso();
  const refs = await deps.destroyKeys(subjectKeyId('subject', input.tenantId, input.subjectId), erasedAt);

  // 3. The listing documents lose what they copied from the enrolments (metadata, minutiae...).
  const erased: PrivacySubjectErased = { type: PRIVACY_SUBJECT_ERASED, data: { erasure_id: erasureId, tenant_id: input.tenantId, subject_id: input.subjectId, erased_at: erasedAt } };
  await deps.events.append(stream, [{ ...erased, metadata: meta }]);
  await deps.catchUp();
  // 4. The stores' files forget the documents' former versions (SQLite WAL, PostgreSQL dead rows).
  await deps.readModels.forget([EMBEDDINGS_COLLECTION, TEMPLATES_COLLECTION]);

  const items: ReceiptItem[] = [
    { kind: 'face_templates', stores: ['event_log', 'read_models', 'vector_index'], count: faceCount, erased_at: erasedAt },
    { kind: 'fingerprint_templates', stores: ['event_log', 'read_models'], count: fingerCount, erased_at: erasedAt },
    { kind: 'data_keys', stores: ['key_store'], count: refs.length, erased_at: erasedAt },
  ];
  const completed: PrivacyErasureCompleted = { type: PRIVACY_ERASURE_COMPLETED, data: { erasure_id: erasureId, tenant_id: input.tenantId, completed_at: iso(), items } };
  await deps.events.append(stream, [{ ...completed, metadata: meta }]);
  return (await getErasure(deps, input.tenantId, erasureId))!;
}
