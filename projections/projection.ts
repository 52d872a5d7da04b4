import type { RecordedEvent } from '../infra/ports/event-store.ts';
import type { ReadModelStore } from '../infra/ports/read-models.ts';
import type { VectorIndex } from '../infra/ports/vector-index.ts';

/**
 * What a projection may write to: the read-model store (inside the batch's transaction) and the vector index.
 */
export interface ProjectionDeps {
  store: ReadModelStore;
  vectorIndex: VectorIndex;
}

/**
 * A projection: event -> read model. The platform's runner (`projections/runner.ts`) subscribes to the
 * global log, hands each projection the batches of events whose type it lists, inside one read-model
 * transaction together with the projection's checkpoint, so a restart resumes exactly where it stopped.
 * `npm run cli -- replay` calls `reset` (when given), truncates `collections`, zeroes the checkpoint and
 * replays the whole log.
 *
 * Projections are listed by the capability manifests that own them (`apps/capabilities/*.ts`).
 */
export interface Projection {
  /** Unique name; also the checkpoint's key. */
  name: string;
  /** Read-model collections this projection owns (emptied on replay). */
  collections: readonly string[];
  /** Event types it handles; the runner skips the rest. */
  eventTypes: readonly string[];
  /** Most events per batch (default 500). High-volume projections take bigger batches: fewer round trips per event. */
  batchSize?: number;
  /** Applies a batch of events in global order. Must be idempotent per event (a replay re-applies). */
  apply(events: readonly RecordedEvent[], deps: ProjectionDeps): Promise<void>;
  /** Clears state kept outside the read-model collections (e.g. vector-index namespaces) before a replay. */
  reset?(deps: ProjectionDeps): Promise<void>;
}
