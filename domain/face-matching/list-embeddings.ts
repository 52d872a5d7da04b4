import type { Filter } from '../../infra/ports/read-models.ts';
import { EMBEDDINGS_COLLECTION, EMBEDDING_INDEXES, type EmbeddingDoc, type FaceMatchingDeps } from './deps.ts';
import { validateSubjectId } from './enroll-face.ts';

/** A listed embedding, named as the spec's "Face embedding" resource (snake_case, `embeddingDimension`). */
export interface ListedEmbedding {
  id: string;
  subject_id: string;
  embeddingDimension: number;
  quality_score: number | null;
  liveness_score: number | null;
  enrollment_source: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
  verification_count: number;
  last_verified_at: string | null;
  is_active: boolean;
  deleted_at: string | null;
}

/** Most embeddings one listing returns (ours; the spec shows no paging for this endpoint). */
export const MAX_LISTING = 1000;

/**
 * The caller's embeddings from the listing read model, newest first: only active ones unless
 * `activeOnly` is false (then deleted ones too, with `is_active: false` and `deleted_at`).
 * @throws FaceMatchingError `invalid_request` on a bad subject id.
 */
export async function listEmbeddings(
  deps: Pick<FaceMatchingDeps, 'readModels'>,
  input: { tenantId: string; subjectId?: string; activeOnly?: boolean },
): Promise<ListedEmbedding[]> {
  const filter: Filter = { tenant_id: input.tenantId };
  if (input.subjectId !== undefined) {
    validateSubjectId(input.subjectId);
    filter.subject_id = input.subjectId;
  }
  if (input.activeOnly !== false) filter.is_active = true;
  const col = await deps.readModels.collection<EmbeddingDoc>(EMBEDDINGS_COLLECTION, { indexes: EMBEDDING_INDEXES });
  const docs = await col.find(filter, { sort: [{ field: 'created_at', order: 'desc' }, { field: 'id', order: 'asc' }], limit: MAX_LISTING });
  return docs.map((d) => ({
    id: d.id,
    subject_id: d.subject_id,
    embeddingDimension: d.embeddingDimension,
    quality_score: d.quality_score,
    liveness_score: d.liveness_score,
    enrollment_source: d.enrollment_source,
    metadata: d.metadata,
    created_at: d.created_at,
    verification_count: d.verification_count,
    last_verified_at: d.last_verified_at,
    is_active: d.is_active,
    deleted_at: d.deleted_at,
  }));
}
