/**
 * Read model `signing_documents`: one row per signing document (list filters and sorting, the audit
 * trail, and the hashes of the finalized files that `POST /v1/signing/verify` looks up). Built only from
 * the documents' events; `npm run cli -- replay` rebuilds it identically. The audit trail is
 * `auditEntries` of the stream (each entry with its chain hashes), so the projection and a raw export
 * of the log agree entry for entry.
 */
import type { RecordedEvent } from '../../infra/ports/event-store.ts';
import type { Collection, ReadModelStore } from '../../infra/ports/read-models.ts';
import { SIGNING_EVENT_TYPES, evolve, foldDocument, initialDocumentState, type DocumentState, type SigningEvent } from '../../domain/signing/document.ts';
import { erasedData } from '../../domain/privacy/classification.ts';
import { PRIVACY_BLOCKED_DOCUMENT_DOWNLOADED, PRIVACY_SIGNING_DOCUMENT_BLOCKED, PRIVACY_SIGNING_DOCUMENT_ERASED, type PrivacyBlockedDocumentDownloaded, type PrivacySigningDocumentBlocked } from '../../domain/privacy/erasure.ts';
import { auditEntries, type AuditEntry } from '../../domain/signing/audit.ts';
import type { Projection } from '../projection.ts';

export interface SigningDocumentDoc {
  [k: string]: unknown;
  id: string;
  tenant_id: string;
  title: string;
  status: string;
  created_at: string;
  updated_at: string;
  expiry_date: string;
  signers_count: number;
  signed_count: number;
  deleted: boolean;
  final_sha256: string | null;
  audit_sha256: string | null;
  certificate_sha256: string | null;
  audit_trail: AuditEntry[];
  /** The folded aggregate state (so each batch continues from it). */
  state: DocumentState;
  /** Raw events (type, data) in order: what the audit trail is computed from. */
  raw: { type: string; data: Record<string, unknown> }[];
  revision: number;
  /**
   * Set when an erasure request blocked the finalized document (issue 28 item 6, docs/privacy.md
   * "Blocking"): from when, until when (ISO 8601; null: until deleted), by which erasure. Absent or null: not blocked.
   */
  blocked?: { blocked_at: string; blocked_until: string | null; erasure_id: string } | null;
  /** Downloads of the blocked document's files by admin keys: when, which file, which key id. */
  blocked_downloads?: { downloaded_at: string; file: string; key_id: string | null }[];
}

export const SIGNING_DOCUMENTS = 'signing_documents';

export async function signingDocuments(store: ReadModelStore): Promise<Collection<SigningDocumentDoc>> {
  return store.collection<SigningDocumentDoc>(SIGNING_DOCUMENTS, {
    indexes: [['tenant_id', 'created_at'], ['tenant_id', 'status'], 'final_sha256', 'audit_sha256', 'certificate_sha256'],
  });
}

export const signingProjection: Projection = {
  name: 'signing-documents',
  collections: [SIGNING_DOCUMENTS],
  eventTypes: [...SIGNING_EVENT_TYPES, PRIVACY_SIGNING_DOCUMENT_ERASED, PRIVACY_SIGNING_DOCUMENT_BLOCKED, PRIVACY_BLOCKED_DOCUMENT_DOWNLOADED],
  async apply(events: readonly RecordedEvent[], { store }) {
    const col = await signingDocuments(store);
    const touched = new Map<string, SigningDocumentDoc>();
    for (const e of events) {
      if (e.type === PRIVACY_SIGNING_DOCUMENT_ERASED) {
        // The document's key was destroyed: its row is rebuilt from the events as they now read (erased).
        const id = String((e.data as Record<string, unknown>).document_id);
        const doc = touched.get(id) ?? (await col.get(id));
        if (doc) touched.set(id, scrubbed(doc));
        continue;
      }
      if (e.type === PRIVACY_SIGNING_DOCUMENT_BLOCKED) {
        const d = e.data as PrivacySigningDocumentBlocked['data'];
        const doc = touched.get(d.document_id) ?? (await col.get(d.document_id));
        // The first blocking counts (a repeated erasure of another signer does not move it).
        if (doc && !doc.blocked) touched.set(d.document_id, { ...doc, blocked: { blocked_at: d.blocked_at, blocked_until: d.blocked_until, erasure_id: d.erasure_id } });
        continue;
      }
      if (e.type === PRIVACY_BLOCKED_DOCUMENT_DOWNLOADED) {
        const d = e.data as PrivacyBlockedDocumentDownloaded['data'];
        const doc = touched.get(d.document_id) ?? (await col.get(d.document_id));
        if (doc) touched.set(d.document_id, { ...doc, blocked_downloads: [...(doc.blocked_downloads ?? []), { downloaded_at: d.downloaded_at, file: d.file, key_id: d.key_id }] });
        continue;
      }
      const id = e.streamName.slice('signing-'.length);
      let doc = touched.get(id) ?? (await col.get(id));
      if (doc && e.streamRevision <= doc.revision) continue; // already applied (idempotent replays)
      const state = evolve(doc?.state ?? initialDocumentState, { type: e.type, data: e.data } as SigningEvent, e.streamRevision);
      const raw = [...(doc?.raw ?? []), { type: e.type, data: e.data as Record<string, unknown> }];
      const d = e.data as Record<string, unknown>;
      doc = {
        id,
        tenant_id: state.tenant_id,
        title: state.title,
        status: state.status,
        created_at: state.created_at,
        updated_at: state.updated_at,
        expiry_date: state.expiry_date,
        signers_count: state.signers.length,
        signed_count: state.signers.filter((x) => x.status === 'signed').length,
        deleted: state.deleted,
        final_sha256: e.type === 'signing.document_finalized' ? String(d.final_sha256) : (doc?.final_sha256 ?? null),
        audit_sha256: e.type === 'signing.document_finalized' ? String(d.audit_sha256) : (doc?.audit_sha256 ?? null),
        certificate_sha256: e.type === 'signing.document_finalized' ? String(d.certificate_sha256) : (doc?.certificate_sha256 ?? null),
        audit_trail: auditEntries(raw),
        state,
        raw,
        revision: e.streamRevision,
        blocked: doc?.blocked ?? null,
        blocked_downloads: doc?.blocked_downloads ?? [],
      };
      touched.set(id, doc);
    }
    for (const [id, doc] of touched) await col.put(id, doc);
  },
};

/**
 * A row as the document's events read once its data key is destroyed: each raw event's personal fields
 * set to their replacement values (`erasedData`), the state folded again; the audit chain's hashes are
 * unchanged (the entries carry the commitments of their sealed fields).
 */
function scrubbed(doc: SigningDocumentDoc): SigningDocumentDoc {
  const raw = doc.raw.map((r) => ({ type: r.type, data: erasedData(r.type, r.data) }));
  const state = { ...foldDocument(raw), revision: doc.state.revision };
  return { ...doc, title: state.title, signers_count: state.signers.length, signed_count: state.signers.filter((x) => x.status === 'signed').length, audit_trail: auditEntries(raw), state, raw };
}
