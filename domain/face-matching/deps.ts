import type { EventStore } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import type { VectorIndex } from '../../infra/ports/vector-index.ts';

/**
 * What the face-matching use cases need: the ports (interfaces only), a way to wait until the
 * projections have applied what was just appended (read-your-writes), a clock and an id generator.
 */
export interface FaceMatchingDeps {
  events: EventStore;
  readModels: ReadModelStore;
  vectorIndex: VectorIndex;
  /** Resolves once every projection applied every event appended so far (`ctx.projections.catchUp`). */
  catchUp: () => Promise<void>;
  /** Epoch milliseconds. */
  now: () => number;
  /** A new unique embedding id. */
  newId: () => string;
}

/** Read-model collection of the listing (owned by `projections/face-embeddings`). */
export const EMBEDDINGS_COLLECTION = 'face_embeddings';

/** Vector-index namespace of a tenant's face templates (fingerprints would use another prefix). */
export const FACE_NAMESPACE_PREFIX = 'face:';
export const faceNamespace = (tenantId: string): string => `${FACE_NAMESPACE_PREFIX}${tenantId}`;

/** A listing document (one per embedding, kept after deletion with `is_active: false`). */
export interface EmbeddingDoc {
  [key: string]: unknown;
  id: string;
  tenant_id: string;
  subject_id: string;
  embeddingDimension: number;
  template_version: string;
  quality_score: number | null;
  liveness_score: number | null;
  liveness_computed: boolean;
  enrollment_source: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
  is_active: boolean;
  deleted_at: string | null;
  verification_count: number;
  last_verified_at: string | null;
  /** Global position of the enrollment event (purge guard) and of the last verification applied (idempotency). */
  enrolled_position: number;
  last_verification_position: number;
}

export const EMBEDDING_INDEXES = ['tenant_id', ['tenant_id', 'subject_id'], ['tenant_id', 'is_active']] as const;
