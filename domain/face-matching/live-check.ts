import type { FaceMatchingDeps } from './deps.ts';
import { embeddingState, purgesFrom, type EmbeddingState, type Purge } from './embedding.ts';
import { embeddingStream, tenantFaceStream } from './events.ts';

/** The tenant's purges, read from its `face-matching-<tenantId>` stream (bulk deletions only: short). */
export async function tenantPurges(deps: Pick<FaceMatchingDeps, 'events'>, tenantId: string): Promise<Purge[]> {
  const { events } = await deps.events.readStream(tenantFaceStream(tenantId));
  return purgesFrom(events);
}

/** One embedding's state as `tenantId` sees it, from the event log (the authority, not the projections). */
export async function loadEmbedding(deps: Pick<FaceMatchingDeps, 'events'>, tenantId: string, embeddingId: string, purges?: readonly Purge[]): Promise<EmbeddingState> {
  const { events } = await deps.events.readStream(embeddingStream(embeddingId));
  return embeddingState(events, purges ?? (await tenantPurges(deps, tenantId)), tenantId);
}

/**
 * Of `ids` (candidates from the vector index or the read model), the ones that are active embeddings of
 * `tenantId` according to the event log. Drops anything deleted, purged or of another tenant, even when
 * a lagging or half-rebuilt projection still holds it.
 */
export async function activeAmong(deps: Pick<FaceMatchingDeps, 'events'>, tenantId: string, ids: readonly string[]): Promise<Set<string>> {
  const live = new Set<string>();
  if (ids.length === 0) return live;
  const purges = await tenantPurges(deps, tenantId);
  for (const id of ids) {
    const s = await loadEmbedding(deps, tenantId, id, purges);
    if (s.status === 'active') live.add(id);
  }
  return live;
}
