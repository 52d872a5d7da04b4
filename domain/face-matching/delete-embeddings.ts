import { WrongExpectedRevisionError } from '../../infra/ports/event-store.ts';
import type { Filter } from '../../infra/ports/read-models.ts';
import { EMBEDDINGS_COLLECTION, EMBEDDING_INDEXES, type EmbeddingDoc, type FaceMatchingDeps } from './deps.ts';
import { meta, validateSubjectId } from './enroll-face.ts';
import { FaceMatchingError } from './errors.ts';
import { embeddingStream, tenantFaceStream, type FaceEmbeddingDeleted, type FaceEmbeddingsPurged } from './events.ts';
import { loadEmbedding } from './live-check.ts';

/**
 * Deletes one embedding of the caller's tenant: appends `FaceEmbeddingDeleted` at the stream's expected
 * revision (a concurrent second deletion loses and gets `embedding_not_found`).
 * @throws FaceMatchingError `embedding_not_found` for an unknown, deleted or other tenant's id.
 */
export async function deleteEmbedding(deps: FaceMatchingDeps, input: { tenantId: string; embeddingId: string; requestId?: string }): Promise<void> {
  const notFound = () => new FaceMatchingError('embedding_not_found', 'No such embedding in this account', { embedding_id: input.embeddingId });
  if (typeof input.embeddingId !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(input.embeddingId)) throw notFound();
  const state = await loadEmbedding(deps, input.tenantId, input.embeddingId);
  if (state.status !== 'active') throw notFound();
  const event: FaceEmbeddingDeleted = {
    type: 'FaceEmbeddingDeleted',
    data: { embedding_id: input.embeddingId, tenant_id: input.tenantId, subject_id: state.subjectId, deleted_at: new Date(deps.now()).toISOString() },
  };
  try {
    await deps.events.append(embeddingStream(input.embeddingId), [{ ...event, metadata: meta(input.tenantId, input.requestId) }], { expectedRevision: state.revision });
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) throw notFound();
    throw error;
  }
  await deps.catchUp();
}

/**
 * Deletes every embedding of a subject (`subjectId` given) or of the whole tenant: one
 * `FaceEmbeddingsPurged` event covering everything enrolled before it. Returns how many active
 * embeddings the listing held for the scope (0 is not an error: the deletion is idempotent).
 * @throws FaceMatchingError `invalid_request` on a bad subject id.
 */
export async function purgeEmbeddings(deps: FaceMatchingDeps, input: { tenantId: string; subjectId?: string; requestId?: string }): Promise<number> {
  if (input.subjectId !== undefined) validateSubjectId(input.subjectId);
  const col = await deps.readModels.collection<EmbeddingDoc>(EMBEDDINGS_COLLECTION, { indexes: EMBEDDING_INDEXES });
  const scope: Filter = { tenant_id: input.tenantId, is_active: true };
  if (input.subjectId !== undefined) scope.subject_id = input.subjectId;
  const before = await col.count(scope);
  const event: FaceEmbeddingsPurged = {
    type: 'FaceEmbeddingsPurged',
    data: { tenant_id: input.tenantId, subject_id: input.subjectId ?? null, purged_at: new Date(deps.now()).toISOString() },
  };
  await deps.events.append(tenantFaceStream(input.tenantId), [{ ...event, metadata: meta(input.tenantId, input.requestId) }]);
  await deps.catchUp();
  return before;
}
