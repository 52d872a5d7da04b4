/**
 * Erasure requests (`POST /v1/privacy/erasures`, issue 28): a tenant asks that everything held about one
 * of its data subjects be erased. A request names a face/fingerprint `subject_id` (every face and
 * fingerprint template enrolled under it), an `email` (every signer record, e-mail verification and
 * outbox mail of that address), or both.
 *
 * Events, stream `privacy-erasures-<tenantId>` (metadata `tenant_id`, `request_id`):
 * - `PrivacyErasureRequested`: the request was accepted (`status: processing`).
 * - `PrivacySubjectErased`: the subject's data key was destroyed (its sealed templates read as erased in
 *   the log and every backup of it); the face and fingerprint projections scrub the subject's listing
 *   documents and drop its vectors from this process's vector-index replica (every API process applies it).
 * - `PrivacySigningDocumentErased`: a signing document's data key was destroyed (an e-mail erasure: one
 *   of its signers had the address); the signing projection scrubs its read-model row.
 * - `PrivacyErasureCompleted`: the receipt (`status: completed`).
 * No event holds personal data in clear: `subject_id` is the tenant's pseudonymous reference, kept in
 * clear in every face and fingerprint event (docs/privacy.md); an e-mail address is kept only as a keyed
 * digest (`email_digest`, HMAC-SHA-256 under a tenant data key), to resume a `processing` erasure.
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
import { exportStream } from '../usage/exports.ts';

export const PRIVACY_ERASURE_REQUESTED = 'PrivacyErasureRequested';
export const PRIVACY_SUBJECT_ERASED = 'PrivacySubjectErased';
export const PRIVACY_ERASURE_COMPLETED = 'PrivacyErasureCompleted';
export const PRIVACY_SIGNING_DOCUMENT_ERASED = 'PrivacySigningDocumentErased';
/** A finalized signing document is blocked (issue 28 item 6): kept, unused, until `blocked_until`. */
export const PRIVACY_SIGNING_DOCUMENT_BLOCKED = 'PrivacySigningDocumentBlocked';
/** An admin key downloaded a file of a blocked signing document (the record the LFPDPPP's blocking asks for). */
export const PRIVACY_BLOCKED_DOCUMENT_DOWNLOADED = 'PrivacyBlockedDocumentDownloaded';
/** The signing projection's read-model collection (`SIGNING_DOCUMENTS`, `projections/signing/index.ts`). */
const SIGNING_DOCUMENTS_COLLECTION = 'signing_documents';

/** Kinds of receipt lines. */
export type ReceiptKind =
  | 'face_templates'
  | 'fingerprint_templates'
  | 'data_keys'
  | 'usage_calls'
  | 'usage_exports'
  | 'signer_records'
  | 'signer_records_blocked'
  | 'signer_records_in_clear'
  | 'email_verifications'
  | 'outbox_mails'
  | 'signer_files'
  | 'idempotency_answers';

/** One line of a receipt: what kind of data, where, how many items, when. Never the data itself. */
export interface ReceiptItem {
  /**
   * `face_templates`, `fingerprint_templates`, `data_keys`; for an e-mail: `signer_records` (signing
   * documents not finalized, crypto-shredded), `signer_records_blocked` (finalized documents blocked until
   * the end of their retention period, then shredded by the sweep: `document_ids`, `blocked`), `signer_records_in_clear` (documents created before signing
   * events were sealed: cannot be crypto-shredded, `document_ids`), `signer_files` (the signers' files of the
   * `signer_records` documents: drawn signature images, e.firma working PDFs, prepared signatures and OCSP
   * responses; deleted), `email_verifications`, `outbox_mails`; for a
   * subject id: `idempotency_answers` (stored `Idempotency-Key` answers removed: those naming the subject id
   * and those a route tagged with it, such as OCR extractions given `subject_id`), `usage_calls` (usage rows
   * of calls that named the subject: IP address and user agent cleared), `usage_exports` (export files with
   * `include_details` covering such a call: deleted, the export reads `expired`).
   */
  kind: ReceiptKind;
  /** Where it was erased: `event_log` (crypto-shredded), `read_models`, `vector_index`, `key_store`, `outbox`, `idempotency_store`; empty when nothing was erased. */
  stores: string[];
  /** Items (templates counted whether active or deleted before; keys destroyed; documents; mails). */
  count: number;
  /** ISO 8601. */
  erased_at: string;
  /** The signing documents of a `signer_records*` line (ids only, no personal data). */
  document_ids?: string[];
  /**
   * `signer_records_blocked` only: each blocked document and the end of its blocking (ISO 8601: finalization
   * plus the tenant's `signed_documents_days`; null when the tenant keeps signed documents until deleted),
   * when the retention sweep shreds it.
   */
  blocked?: { document_id: string; blocked_until: string | null }[];
}

export type PrivacyErasureRequested = {
  type: typeof PRIVACY_ERASURE_REQUESTED;
  /** `subject_id` and/or `email_digest` (see the module comment). */
  data: { erasure_id: string; tenant_id: string; subject_id?: string; email_digest?: string; requested_at: string };
};
export type PrivacySigningDocumentErased = {
  type: typeof PRIVACY_SIGNING_DOCUMENT_ERASED;
  data: { erasure_id: string; tenant_id: string; document_id: string; erased_at: string };
};
export type PrivacySigningDocumentBlocked = {
  type: typeof PRIVACY_SIGNING_DOCUMENT_BLOCKED;
  /** `blocked_until`: ISO 8601, or null (the tenant keeps signed documents until deleted). */
  data: { erasure_id: string; tenant_id: string; document_id: string; blocked_at: string; blocked_until: string | null };
};
export type PrivacyBlockedDocumentDownloaded = {
  type: typeof PRIVACY_BLOCKED_DOCUMENT_DOWNLOADED;
  /** `file`: `pdf`, `pdf_with_audit` or `certificate`; `key_id`: the admin API key that downloaded it. */
  data: { tenant_id: string; document_id: string; file: string; key_id: string | null; downloaded_at: string };
};
/** Stream of a tenant's downloads of blocked documents. */
export const blockedDownloadsStream = (tenantId: string): string => `privacy-blocked-downloads-${tenantId}`;
export type PrivacySubjectErased = {
  type: typeof PRIVACY_SUBJECT_ERASED;
  data: { erasure_id: string; tenant_id: string; subject_id: string; erased_at: string };
};
export type PrivacyErasureCompleted = {
  type: typeof PRIVACY_ERASURE_COMPLETED;
  data: { erasure_id: string; tenant_id: string; completed_at: string; items: ReceiptItem[] };
};
export type PrivacyEvent = PrivacyErasureRequested | PrivacySubjectErased | PrivacySigningDocumentErased | PrivacySigningDocumentBlocked | PrivacyErasureCompleted;

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
export function foldErasures(events: readonly Pick<RecordedEvent, 'type' | 'data'>[]): Map<string, Erasure & { subjectId: string | null; emailDigest: string | null }> {
  const out = new Map<string, Erasure & { subjectId: string | null; emailDigest: string | null }>();
  for (const e of events) {
    const d = e.data as Record<string, unknown>;
    const id = String(d.erasure_id);
    if (e.type === PRIVACY_ERASURE_REQUESTED) {
      const r = d as PrivacyErasureRequested['data'];
      const subjectId = r.subject_id ?? null;
      const emailDigest = r.email_digest ?? null;
      out.set(id, { erasure_id: id, status: 'processing', scope: { subject_id: subjectId !== null, email: emailDigest !== null }, requested_at: r.requested_at, completed_at: null, erased: [], subjectId, emailDigest });
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
  /**
   * Removes the tenant's stored `Idempotency-Key` answers whose body contains `text` (the port's
   * `forgetResponses`; `ignoreCase`: ASCII case ignored, for an e-mail address); absent where the platform
   * has no idempotency store.
   */
  forgetResponses?: (tenantId: string, text: string, options?: { ignoreCase?: boolean }) => Promise<number>;
  /**
   * Removes the tenant's stored `Idempotency-Key` answers tagged with a subject id (the port's
   * `forgetSubject`: OCR calls given `subject_id`); returns how many. Absent where the platform has no
   * idempotency store.
   */
  forgetSubjectResponses?: (tenantId: string, subjectId: string) => Promise<number>;
  /** Removes every stored `Idempotency-Key` record of a tenant (`IdempotencyStore.forgetTenant`: tenant off-boarding); absent: they expire with their TTL. */
  forgetTenantResponses?: (tenantId: string) => Promise<number>;
  /** Resolves once every projection of this process applied every event appended so far. */
  catchUp: () => Promise<void>;
  /** Deletes a blob-store object (usage export files); absent: export files are left (receipt count 0). */
  deleteBlob?: (key: string) => Promise<boolean>;
  /** Epoch milliseconds. */
  now: () => number;
  /** A new erasure id. */
  newId: () => string;
  /** Erasure by e-mail address; absent: requests with `email` are refused. */
  email?: EmailErasureDeps;
}

/** What an erasure by e-mail address needs. */
export interface EmailErasureDeps {
  /** Keyed digest (hex) of a normalised address for the tenant (HMAC-SHA-256 under a tenant data key): resuming without keeping the address. */
  digest: (tenantId: string, email: string) => Promise<string>;
  /**
   * The tenant's signing documents with a signer at `email` (compared case-insensitively): `finalizedAt`
   * (ISO 8601) or null, whether its events are sealed, and whether it is already blocked.
   */
  signerDocuments: (tenantId: string, email: string) => Promise<{ documentId: string; finalizedAt: string | null; sealed: boolean; blocked: boolean }[]>;
  /** The tenant's `signed_documents_days` in force (null: kept until deleted); the blocking period of finalized documents. */
  signedDocumentsDays: (tenantId: string) => Promise<number | null>;
  /** Deletes the stored outbound mails addressed to `email` (To, Cc); returns how many. */
  eraseMails: (email: string) => Promise<number>;
  /**
   * Deletes the files of a signing document that hold its signers' personal data (drawn signature images;
   * e.firma working PDFs, prepared signatures and OCSP responses: certificates naming the holder, RFC, CURP),
   * keeping the uploaded PDF and its page images (the tenant's document); returns how many were deleted.
   * Absent: such files stay until the retention sweep (receipt count 0).
   */
  deleteSignerFiles?: (tenantId: string, documentId: string) => Promise<number>;
}

/** The public view of an erasure. */
export function publicErasure(e: Erasure): Erasure {
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
  return requestErasure(deps, input);
}

/**
 * Erases what a request names (see the module comment): a face/fingerprint `subjectId`, an `email`, or
 * both, and records one receipt.
 * @throws FaceMatchingError `invalid_request` for a malformed subject id; Error when neither is given or
 *   `email` is given to deps without {@link EmailErasureDeps}.
 */
export async function requestErasure(deps: ErasureDeps, input: { tenantId: string; subjectId?: string; email?: string; requestId?: string }): Promise<Erasure> {
  if (input.subjectId === undefined && input.email === undefined) throw new Error('an erasure needs a subject id or an e-mail address');
  if (input.subjectId !== undefined) validateSubjectId(input.subjectId);
  const email = input.email === undefined ? null : input.email.trim().toLowerCase();
  if (email !== null && !deps.email) throw new Error('erasure by e-mail address is not configured');
  const meta = { tenant_id: input.tenantId, ...(input.requestId ? { request_id: input.requestId } : {}) };
  const iso = () => new Date(deps.now()).toISOString();
  const stream = erasureStream(input.tenantId);
  const emailDigest = email === null ? null : await deps.email!.digest(input.tenantId, email);
  const subjectId = input.subjectId ?? null;
  const { events, currentRevision } = await deps.events.readStream(stream);
  const pending = [...foldErasures(events).values()].find((e) => e.status === 'processing' && e.subjectId === subjectId && e.emailDigest === emailDigest);
  const erasureId = pending?.erasure_id ?? deps.newId();
  if (!pending) {
    const requested: PrivacyErasureRequested = {
      type: PRIVACY_ERASURE_REQUESTED,
      data: { erasure_id: erasureId, tenant_id: input.tenantId, ...(subjectId !== null ? { subject_id: subjectId } : {}), ...(emailDigest !== null ? { email_digest: emailDigest } : {}), requested_at: iso() },
    };
    await deps.events.append(stream, [{ ...requested, metadata: meta }], { expectedRevision: currentRevision ?? 'no_stream' });
  }
  const items: ReceiptItem[] = [];
  if (subjectId !== null) items.push(...(await eraseBiometricSubject(deps, input.tenantId, subjectId, erasureId, meta)));
  if (email !== null) items.push(...(await eraseEmail(deps, deps.email!, input.tenantId, email, erasureId, meta)));
  const completed: PrivacyErasureCompleted = { type: PRIVACY_ERASURE_COMPLETED, data: { erasure_id: erasureId, tenant_id: input.tenantId, completed_at: iso(), items } };
  await deps.events.append(stream, [{ ...completed, metadata: meta }]);
  return (await getErasure(deps, input.tenantId, erasureId))!;
}

/**
 * An e-mail address's signer records, e-mail verifications and outbox mails. Signing documents are sealed
 * under one key per document (signers included): a document not finalized has its key destroyed (all of
 * its personal fields read as erased, its audit chain still verifies); a finalized one is blocked
 * (`PrivacySigningDocumentBlocked`: no longer served to signers nor listed with its personal fields, only
 * admin keys download it, each download recorded) until its retention period ends, when the retention
 * sweep shreds it; one created before signing events were sealed cannot be
 * crypto-shredded and is listed by id. E-mail verification keeps nothing (no event, row or cache holds the
 * address), so its line counts 0.
 */
async function eraseEmail(deps: ErasureDeps, mail: EmailErasureDeps, tenantId: string, email: string, erasureId: string, meta: Record<string, unknown>): Promise<ReceiptItem[]> {
  const iso = () => new Date(deps.now()).toISOString();
  const docs = await mail.signerDocuments(tenantId, email);
  const erased: string[] = [];
  const blocked: string[] = [];
  const inClear: string[] = [];
  let keys = 0;
  let files = 0;
  const blockedUntil: { document_id: string; blocked_until: string | null }[] = [];
  const days = docs.some((d) => d.finalizedAt !== null) ? await mail.signedDocumentsDays(tenantId) : null;
  for (const d of docs) {
    if (d.finalizedAt !== null) {
      // Blocking (issue 28 item 6): kept under its legal retention period, unused; the sweep shreds it at the end.
      const until = days === null ? null : new Date(Date.parse(d.finalizedAt) + days * 86_400_000).toISOString();
      if (!d.blocked) {
        const e: PrivacySigningDocumentBlocked = { type: PRIVACY_SIGNING_DOCUMENT_BLOCKED, data: { erasure_id: erasureId, tenant_id: tenantId, document_id: d.documentId, blocked_at: iso(), blocked_until: until } };
        await deps.events.append(erasureStream(tenantId), [{ ...e, metadata: meta }]);
      }
      blocked.push(d.documentId);
      blockedUntil.push({ document_id: d.documentId, blocked_until: until });
    } else if (!d.sealed) inClear.push(d.documentId);
    else {
      const at = iso();
      keys += (await deps.destroyKeys(subjectKeyId('signing', tenantId, d.documentId), at)).length;
      const e: PrivacySigningDocumentErased = { type: PRIVACY_SIGNING_DOCUMENT_ERASED, data: { erasure_id: erasureId, tenant_id: tenantId, document_id: d.documentId, erased_at: at } };
      await deps.events.append(erasureStream(tenantId), [{ ...e, metadata: meta }]);
      erased.push(d.documentId);
      files += (await mail.deleteSignerFiles?.(tenantId, d.documentId)) ?? 0;
    }
  }
  if (erased.length || blocked.length) {
    await deps.catchUp();
    // The rewritten rows' former versions leave the read-model files too (SQLite WAL, PostgreSQL dead rows).
    await deps.readModels.forget([SIGNING_DOCUMENTS_COLLECTION]);
  }
  const mails = await mail.eraseMails(email);
  // Stored Idempotency-Key answers naming the address (an e-mail verification batch, a signing document's
  // signers), in any case the caller wrote it.
  await deps.forgetResponses?.(tenantId, email, { ignoreCase: true });
  const at = iso();
  const items: ReceiptItem[] = [
    { kind: 'signer_records', stores: erased.length ? ['event_log', 'read_models', 'key_store', ...(files ? ['blob_store'] : [])] : [], count: erased.length, erased_at: at, document_ids: erased.sort() },
    { kind: 'signer_records_blocked', stores: blocked.length ? ['read_models'] : [], count: blocked.length, erased_at: at, document_ids: blocked.sort(), blocked: blockedUntil.sort((a, b) => a.document_id.localeCompare(b.document_id)) },
    { kind: 'signer_records_in_clear', stores: [], count: inClear.length, erased_at: at, document_ids: inClear.sort() },
    { kind: 'email_verifications', stores: [], count: 0, erased_at: at },
    { kind: 'outbox_mails', stores: mails ? ['outbox'] : [], count: mails, erased_at: at },
  ];
  if (keys) items.push({ kind: 'data_keys', stores: ['key_store'], count: keys, erased_at: at });
  if (files) items.push({ kind: 'signer_files', stores: ['blob_store'], count: files, erased_at: at });
  return items;
}

/** A face/fingerprint subject's templates: purged, crypto-shredded, scrubbed (see {@link eraseSubject}). */
async function eraseBiometricSubject(deps: ErasureDeps, tenantId: string, subjectId: string, erasureId: string, meta: Record<string, unknown>): Promise<ReceiptItem[]> {
  const input = { tenantId, subjectId };
  const iso = () => new Date(deps.now()).toISOString();
  const stream = erasureStream(tenantId);

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

  // 3. The listing documents lose what they copied from the enrolments (metadata, minutiae...), and the
  // usage rows of the calls that named the subject their IP address and user agent (usage-events projection).
  const erased: PrivacySubjectErased = { type: PRIVACY_SUBJECT_ERASED, data: { erasure_id: erasureId, tenant_id: input.tenantId, subject_id: input.subjectId, erased_at: erasedAt } };
  await deps.events.append(stream, [{ ...erased, metadata: meta }]);
  await deps.catchUp();
  // 4. Stored Idempotency-Key answers that name the subject (a 1:N search's matches carry its metadata) or
  // are tagged with it (an OCR extraction given `subject_id`: names, CURP and address, not the subject id).
  const answers = ((await deps.forgetResponses?.(input.tenantId, JSON.stringify(input.subjectId))) ?? 0) + ((await deps.forgetSubjectResponses?.(input.tenantId, input.subjectId)) ?? 0);
  // 5. Usage export files with details (IP address, user agent) covering a call that named the subject.
  const usage = await eraseSubjectUsageExports(deps, input.tenantId, input.subjectId, meta);
  // 6. The stores' files forget the documents' former versions (SQLite: secure_delete + WAL checkpoint;
  // PostgreSQL: VACUUM FULL of the tables, whose dead rows keep them). `usage_events` only when rows of
  // the subject's calls were cleared: on PostgreSQL that rewrites the table of every tenant's calls (cost in
  // docs/privacy.md "Raw bytes").
  await deps.readModels.forget([EMBEDDINGS_COLLECTION, TEMPLATES_COLLECTION, ...(usage.calls ? ['usage_events'] : [])]);

  return [
    { kind: 'face_templates', stores: ['event_log', 'read_models', 'vector_index'], count: faceCount, erased_at: erasedAt },
    { kind: 'fingerprint_templates', stores: ['event_log', 'read_models'], count: fingerCount, erased_at: erasedAt },
    { kind: 'data_keys', stores: ['key_store'], count: refs.length, erased_at: erasedAt },
    { kind: 'idempotency_answers', stores: answers ? ['idempotency_store'] : [], count: answers, erased_at: new Date(deps.now()).toISOString() },
    { kind: 'usage_calls', stores: usage.calls ? ['read_models'] : [], count: usage.calls, erased_at: erasedAt },
    { kind: 'usage_exports', stores: usage.exports ? ['blob_store'] : [], count: usage.exports, erased_at: new Date(deps.now()).toISOString() },
  ];
}

/**
 * The usage side of a subject's erasure: counts the tenant's usage rows of calls that named the subject
 * (their address and user agent were cleared by the usage-events projection on `PrivacySubjectErased`),
 * and deletes every completed export file with `include_details` whose range covers one of them (its
 * blob deleted, `UsageExportExpired` appended: the export then reads `expired`; request a new one).
 */
async function eraseSubjectUsageExports(deps: ErasureDeps, tenantId: string, subjectId: string, meta: Record<string, unknown>): Promise<{ calls: number; exports: number }> {
  const rows = await (await deps.readModels.collection('usage_events', { indexes: [['tenant_id', 'created_at']] })).find({ tenant_id: tenantId, subject_id: subjectId });
  if (!rows.length || !deps.deleteBlob) return { calls: rows.length, exports: 0 };
  const times = rows.map((r) => Date.parse(String(r.created_at)));
  const docs = await (await deps.readModels.collection('usage_exports', { indexes: [['tenant_id', 'requested_at']] })).find({ tenant_id: tenantId });
  let exports = 0;
  for (const d of docs) {
    if (d.status !== 'completed' || d.include_details !== true || typeof d.blob_key !== 'string') continue;
    const from = Date.parse(String(d.start));
    const to = Date.parse(String(d.end));
    if (!times.some((t) => t >= from && t <= to)) continue;
    await deps.deleteBlob(d.blob_key);
    const expired = { type: 'UsageExportExpired', data: { export_id: String(d.export_id), tenant_id: tenantId, expired_at: new Date(deps.now()).toISOString() } };
    await deps.events.append(exportStream(String(d.export_id)), [{ ...expired, metadata: meta }]);
    exports += 1;
  }
  if (exports) await deps.catchUp();
  return { calls: rows.length, exports };
}
