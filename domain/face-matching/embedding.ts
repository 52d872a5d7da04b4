/**
 * One embedding's state, folded from its stream and its tenant's purges (pure; no IO).
 *
 * The event log is the authority on whether an embedding is alive: the listing read model and the
 * vector index are projections that may lag, or be in the middle of a rebuild (`npm run cli -- replay`),
 * so every search and verification re-checks its candidates here before returning them. That is what
 * guarantees a deleted embedding is never returned again.
 */
import type { RecordedEvent } from '../../infra/ports/event-store.ts';
import type { FaceEmbeddingDeleted, FaceEmbeddingEnrolled, FaceEmbeddingsPurged } from './events.ts';

export type EmbeddingState =
  | { status: 'absent' }
  | { status: 'active'; tenantId: string; subjectId: string; enrolledPosition: number; revision: number }
  | { status: 'deleted'; tenantId: string; subjectId: string; revision: number };

/** A bulk deletion as seen by the guard: its global position and the subject it targets (null = all). */
export interface Purge {
  position: number;
  subjectId: string | null;
}

/** Purges of a tenant from the events of its `face-matching-<tenantId>` stream. */
export function purgesFrom(events: readonly RecordedEvent[]): Purge[] {
  return events
    .filter((e) => e.type === 'FaceEmbeddingsPurged')
    .map((e) => ({ position: e.globalPosition, subjectId: (e.data as FaceEmbeddingsPurged['data']).subject_id }));
}

/** True when a purge recorded after the enrollment covers the subject (or the whole tenant). */
export function isPurged(enrolledPosition: number, subjectId: string, purges: readonly Purge[]): boolean {
  return purges.some((p) => p.position > enrolledPosition && (p.subjectId === null || p.subjectId === subjectId));
}

/**
 * Folds an embedding stream (`face-embedding-<id>`) and the tenant's purges into its state, as seen by
 * `tenantId`: an embedding of another tenant is `absent` (ids never reveal other tenants' data).
 */
export function embeddingState(stream: readonly RecordedEvent[], purges: readonly Purge[], tenantId: string): EmbeddingState {
  let state: EmbeddingState = { status: 'absent' };
  for (const e of stream) {
    switch (e.type) {
      case 'FaceEmbeddingEnrolled': {
        const d = e.data as FaceEmbeddingEnrolled['data'];
        state = { status: 'active', tenantId: d.tenant_id, subjectId: d.subject_id, enrolledPosition: e.globalPosition, revision: e.streamRevision };
        break;
      }
      case 'FaceEmbeddingDeleted': {
        const d = e.data as FaceEmbeddingDeleted['data'];
        state = { status: 'deleted', tenantId: d.tenant_id, subjectId: d.subject_id, revision: e.streamRevision };
        break;
      }
      default:
        break;
    }
  }
  if (state.status === 'absent' || state.tenantId !== tenantId) return { status: 'absent' };
  if (state.status === 'active' && isPurged(state.enrolledPosition, state.subjectId, purges)) {
    return { status: 'deleted', tenantId: state.tenantId, subjectId: state.subjectId, revision: state.revision };
  }
  return state;
}
