import { EMBEDDINGS_COLLECTION, EMBEDDING_INDEXES, faceNamespace, type EmbeddingDoc, type FaceMatchingDeps } from './deps.ts';
import { validateSubjectId, meta } from './enroll-face.ts';
import { FaceMatchingError } from './errors.ts';
import { verificationStream, type FaceEmbeddingVerified } from './events.ts';
import { activeAmong } from './live-check.ts';
import { checkThreshold } from './search-faces.ts';
import { similarityFromCosine } from './template.ts';

export interface VerifySubjectInput {
  tenantId: string;
  subjectId: string;
  template: Float32Array | readonly number[];
  threshold?: number;
  requestId?: string;
}

/** Result named as the spec's verify response (camelCase). */
export interface VerifySubjectResult {
  verified: boolean;
  similarity: number;
  threshold: number;
  embeddingId: string;
  enrollmentSource: string | null;
}

/**
 * 1:1 verification: the best similarity over the subject's active embeddings in the caller's tenant
 * (scored exactly inside the index by a `subject_id` filter within the tenant's namespace). A success
 * appends `FaceEmbeddingVerified`, which the listing projects into `verification_count`/`last_verified_at`.
 * @throws FaceMatchingError `subject_not_found` when the tenant has no active embedding of the subject;
 *   `invalid_request` on a bad subject id or threshold.
 */
export async function verifySubject(deps: FaceMatchingDeps, input: VerifySubjectInput): Promise<VerifySubjectResult> {
  validateSubjectId(input.subjectId, 'subjectId');
  const threshold = checkThreshold(input.threshold);
  const col = await deps.readModels.collection<EmbeddingDoc>(EMBEDDINGS_COLLECTION, { indexes: EMBEDDING_INDEXES });
  const enrolled = await col.count({ tenant_id: input.tenantId, subject_id: input.subjectId, is_active: true });
  if (enrolled > 0) {
    const hits = await deps.vectorIndex.search(faceNamespace(input.tenantId), input.template, { k: Math.min(enrolled + 8, 10_000), filter: { subject_id: input.subjectId } });
    const live = await activeAmong(deps, input.tenantId, hits.map((h) => h.id));
    const best = hits.find((h) => live.has(h.id));
    if (best) {
      const doc = await col.get(best.id);
      const similarity = similarityFromCosine(best.score);
      const verified = similarity >= threshold;
      if (verified) {
        const event: FaceEmbeddingVerified = {
          type: 'FaceEmbeddingVerified',
          data: { embedding_id: best.id, tenant_id: input.tenantId, subject_id: input.subjectId, similarity, threshold, verified_at: new Date(deps.now()).toISOString() },
        };
        await deps.events.append(verificationStream(input.tenantId), [{ ...event, metadata: meta(input.tenantId, input.requestId) }]);
        await deps.catchUp();
      }
      return { verified, similarity, threshold, embeddingId: best.id, enrollmentSource: doc?.enrollment_source ?? null };
    }
  }
  throw new FaceMatchingError('subject_not_found', `No active embedding of subject ${JSON.stringify(input.subjectId)} in this account`, { subject_id: input.subjectId });
}
