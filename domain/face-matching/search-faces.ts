import { EMBEDDINGS_COLLECTION, EMBEDDING_INDEXES, faceNamespace, type EmbeddingDoc, type FaceMatchingDeps } from './deps.ts';
import { FaceMatchingError } from './errors.ts';
import { activeAmong } from './live-check.ts';
import { BALANCED_THRESHOLD, cosineForThreshold, similarityFromCosine } from './template.ts';

/** Largest `limit` of a search (ours; the spec gives only the default 10). */
export const MAX_SEARCH_LIMIT = 100;
export const DEFAULT_SEARCH_LIMIT = 10;

/** One search match, named as the spec's match object (snake_case). */
export interface FaceMatch {
  id: string;
  subject_id: string;
  similarity: number;
  quality_score: number | null;
  liveness_score: number | null;
  enrollment_source: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
}

export interface SearchFacesInput {
  tenantId: string;
  template: Float32Array | readonly number[];
  /** Minimum similarity 0-1 (default 0.6). */
  threshold?: number;
  /** Most matches returned, 1-100 (default 10). */
  limit?: number;
}

/** Checks a 0-1 threshold. @throws FaceMatchingError `invalid_request`. */
export function checkThreshold(threshold: number | undefined): number {
  const t = threshold ?? BALANCED_THRESHOLD;
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0 || t > 1) throw new FaceMatchingError('invalid_request', 'threshold must be a number from 0 to 1', { field: 'threshold' });
  return t;
}

/**
 * 1:N search in the caller's tenant: the tenant's namespace of the vector index, matches with
 * `similarity >= threshold`, best first, each re-checked against the event log (never a deleted one).
 * @throws FaceMatchingError `invalid_request` on a bad threshold or limit.
 */
export async function searchFaces(deps: FaceMatchingDeps, input: SearchFacesInput): Promise<{ matches: FaceMatch[]; threshold: number }> {
  const threshold = checkThreshold(input.threshold);
  const limit = input.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) throw new FaceMatchingError('invalid_request', `limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}`, { field: 'limit' });
  const minCos = cosineForThreshold(threshold);
  if (minCos === Infinity) return { matches: [], threshold };
  // A few extra candidates so that ones dropped by the live check do not shorten the answer.
  const hits = await deps.vectorIndex.search(faceNamespace(input.tenantId), input.template, { k: limit + 8 });
  const scored = hits
    .map((h) => ({ id: h.id, similarity: similarityFromCosine(h.score) }))
    .filter((h) => h.similarity >= threshold);
  const live = await activeAmong(deps, input.tenantId, scored.map((h) => h.id));
  const col = await deps.readModels.collection<EmbeddingDoc>(EMBEDDINGS_COLLECTION, { indexes: EMBEDDING_INDEXES });
  const matches: FaceMatch[] = [];
  for (const h of scored) {
    if (!live.has(h.id) || matches.length >= limit) continue;
    const doc = await col.get(h.id);
    if (!doc || doc.tenant_id !== input.tenantId) continue;
    matches.push({
      id: doc.id,
      subject_id: doc.subject_id,
      similarity: h.similarity,
      quality_score: doc.quality_score,
      liveness_score: doc.liveness_score,
      enrollment_source: doc.enrollment_source,
      metadata: doc.metadata,
      created_at: doc.created_at,
    });
  }
  return { matches, threshold };
}
