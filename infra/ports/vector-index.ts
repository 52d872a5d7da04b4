/**
 * Vector-index port: per-tenant 1:N search over face (and fingerprint) templates.
 *
 * Embedded adapter: `infra/vector-index/embedded` (in-process, persisted on disk); scaled-out: Qdrant.
 * Both must pass `test/contract/vector-index.contract.ts`.
 * Isolation: every call names a namespace (the tenant id); an adapter must restrict the query itself to
 * that namespace (separate index / filter inside the engine), never filter results afterwards.
 * Vectors are float32 of the dimension the index was opened with; adapters L2-normalise them on the way in,
 * and `score` is cosine similarity in [-1, 1] (1 = same direction).
 * `upsert` of an existing id replaces its vector and payload. Writes are visible to the next search.
 * Invalid vectors raise {@link InvalidVectorError}; invalid arguments {@link InvalidVectorQueryError}.
 */
export interface VectorRecord {
  id: string;
  vector: Float32Array | readonly number[];
  /** Small payload kept beside the vector (e.g. subject_id). */
  payload?: Record<string, string | number | boolean | null>;
}

export interface VectorMatch {
  id: string;
  score: number;
  payload: Record<string, string | number | boolean | null>;
}

export interface VectorIndex {
  upsert(namespace: string, records: readonly VectorRecord[]): Promise<void>;
  delete(namespace: string, ids: readonly string[]): Promise<number>;
  /** Removes every vector of the namespace. */
  dropNamespace(namespace: string): Promise<void>;
  /** Top `k` by cosine similarity, best first; `filter` restricts by exact payload values inside the query. */
  search(
    namespace: string,
    vector: Float32Array | readonly number[],
    options: { k: number; filter?: Record<string, string | number | boolean> },
  ): Promise<VectorMatch[]>;
  count(namespace: string): Promise<number>;
  /** Namespaces holding at least one vector whose name starts with `prefix` (all when omitted), sorted. */
  listNamespaces(prefix?: string): Promise<string[]>;
  close(): Promise<void>;
}

/** A vector of the wrong length, or one holding NaN/Infinity or only zeros (cannot be L2-normalised). */
export class InvalidVectorError extends Error {
  override readonly name = 'InvalidVectorError';
}

/** An empty namespace name, an empty id, or `k` that is not a positive integer. */
export class InvalidVectorQueryError extends Error {
  override readonly name = 'InvalidVectorQueryError';
}
