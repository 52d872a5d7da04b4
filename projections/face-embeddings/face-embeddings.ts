/**
 * Face-embeddings projection: the listing read model (`face_embeddings`, one document per embedding,
 * kept with `is_active: false` after deletion) and the vector index (namespace `face:<tenantId>`), both
 * from the face-matching events. `npm run cli -- replay` rebuilds both: `reset` drops every `face:`
 * namespace, then the log is applied from the start.
 *
 * Idempotent per event: enrollments are upserts, deletions and purges are no-ops the second time, and a
 * verification is counted only when its global position is beyond the document's
 * `last_verification_position`.
 */
import type { RecordedEvent } from '../../infra/ports/event-store.ts';
import type { Collection, Filter } from '../../infra/ports/read-models.ts';
import type { VectorRecord } from '../../infra/ports/vector-index.ts';
import type { Projection, ProjectionDeps } from '../projection.ts';
import { EMBEDDINGS_COLLECTION, EMBEDDING_INDEXES, FACE_NAMESPACE_PREFIX, faceNamespace, type EmbeddingDoc } from '../../domain/face-matching/deps.ts';
import {
  FACE_MATCHING_EVENT_TYPES,
  decodeTemplate,
  type FaceEmbeddingDeleted,
  type FaceEmbeddingEnrolled,
  type FaceEmbeddingsPurged,
  type FaceEmbeddingVerified,
} from '../../domain/face-matching/events.ts';
import { TEMPLATE_DIMENSION } from '../../domain/face-matching/template.ts';
import { isErasedEvent } from '../../domain/privacy/classification.ts';
import { PRIVACY_SUBJECT_ERASED, type PrivacySubjectErased } from '../../domain/privacy/erasure.ts';

/** The listing document of an enrollment event. */
export function docFromEnrollment(e: RecordedEvent): EmbeddingDoc {
  const d = e.data as FaceEmbeddingEnrolled['data'];
  return {
    id: d.embedding_id,
    tenant_id: d.tenant_id,
    subject_id: d.subject_id,
    embeddingDimension: TEMPLATE_DIMENSION,
    template_version: d.template_version,
    quality_score: d.quality_score,
    liveness_score: d.liveness_score,
    liveness_computed: d.liveness_computed,
    enrollment_source: d.enrollment_source,
    metadata: d.metadata,
    created_at: d.created_at,
    is_active: true,
    deleted_at: null,
    verification_count: 0,
    last_verified_at: null,
    enrolled_position: e.globalPosition,
    last_verification_position: 0,
  };
}

async function apply(events: readonly RecordedEvent[], deps: ProjectionDeps): Promise<void> {
  const col: Collection<EmbeddingDoc> = await deps.store.collection<EmbeddingDoc>(EMBEDDINGS_COLLECTION, { indexes: EMBEDDING_INDEXES });
  // Consecutive enrollments are upserted into the index in one batch per tenant (fast replays); the
  // batch is flushed before any other event so deletions always apply after the enrollments they follow.
  const pending = new Map<string, VectorRecord[]>();
  const flush = async (): Promise<void> => {
    for (const [tenant, records] of pending) await deps.vectorIndex.upsert(faceNamespace(tenant), records);
    pending.clear();
  };
  const markDeleted = async (doc: EmbeddingDoc, at: string): Promise<void> => {
    if (!doc.is_active) return;
    await col.put(doc.id, { ...doc, is_active: false, deleted_at: at });
  };
  for (const e of events) {
    switch (e.type) {
      case 'FaceEmbeddingEnrolled': {
        const d = e.data as FaceEmbeddingEnrolled['data'];
        if (isErasedEvent(e)) break; // crypto-shredded: no template to list or index (docs/privacy.md)
        const existing = await col.get(d.embedding_id);
        if (existing && !existing.is_active) break; // already deleted later in a previous pass
        await col.put(d.embedding_id, existing ?? docFromEnrollment(e));
        const list = pending.get(d.tenant_id) ?? [];
        list.push({ id: d.embedding_id, vector: decodeTemplate(d.template_f32le_b64), payload: { subject_id: d.subject_id } });
        pending.set(d.tenant_id, list);
        break;
      }
      case 'FaceEmbeddingDeleted': {
        await flush();
        const d = e.data as FaceEmbeddingDeleted['data'];
        const doc = await col.get(d.embedding_id);
        if (doc && doc.tenant_id === d.tenant_id) await markDeleted(doc, d.deleted_at);
        await deps.vectorIndex.delete(faceNamespace(d.tenant_id), [d.embedding_id]);
        break;
      }
      case 'FaceEmbeddingsPurged': {
        await flush();
        const d = e.data as FaceEmbeddingsPurged['data'];
        const filter: Filter = { tenant_id: d.tenant_id, is_active: true };
        if (d.subject_id !== null) filter.subject_id = d.subject_id;
        // Only what was enrolled before the purge; the projection applies in log order, so that is every active doc.
        const docs = (await col.find(filter)).filter((doc) => doc.enrolled_position < e.globalPosition);
        for (const doc of docs) await markDeleted(doc, d.purged_at);
        if (d.subject_id === null) {
          await deps.vectorIndex.dropNamespace(faceNamespace(d.tenant_id));
        } else if (docs.length) {
          await deps.vectorIndex.delete(faceNamespace(d.tenant_id), docs.map((doc) => doc.id));
        }
        break;
      }
      case 'FaceEmbeddingVerified': {
        const d = e.data as FaceEmbeddingVerified['data'];
        const doc = await col.get(d.embedding_id);
        if (!doc || doc.tenant_id !== d.tenant_id || e.globalPosition <= doc.last_verification_position) break;
        await col.put(doc.id, {
          ...doc,
          verification_count: doc.verification_count + 1,
          last_verified_at: d.verified_at,
          last_verification_position: e.globalPosition,
        });
        break;
      }
      case PRIVACY_SUBJECT_ERASED: {
        // An erasure request (domain/privacy/erasure.ts): the documents keep no copy of what the client sent.
        await flush();
        const d = e.data as PrivacySubjectErased['data'];
        const docs = await col.find({ tenant_id: d.tenant_id, subject_id: d.subject_id });
        for (const doc of docs) await col.put(doc.id, { ...doc, metadata: {}, enrollment_source: null, is_active: false, deleted_at: doc.deleted_at ?? d.erased_at });
        if (docs.length) await deps.vectorIndex.delete(faceNamespace(d.tenant_id), docs.map((doc) => doc.id));
        break;
      }
      default:
        break;
    }
  }
  await flush();
}

/** The projection, listed by the face-matching manifest (`apps/capabilities/face-matching.ts`). */
export const faceEmbeddingsProjection: Projection = {
  name: 'face-embeddings',
  collections: [EMBEDDINGS_COLLECTION],
  eventTypes: [...FACE_MATCHING_EVENT_TYPES, PRIVACY_SUBJECT_ERASED],
  apply,
  async reset(deps) {
    for (const ns of await deps.vectorIndex.listNamespaces(FACE_NAMESPACE_PREFIX)) await deps.vectorIndex.dropNamespace(ns);
  },
};
