/**
 * Vector-index port: per-tenant 1:N search over face (and fingerprint) templates.
 *
 * Embedded adapter: `infra/vector-index/embedded` (in-process, persisted on disk); scaled-out: Qdrant.
 * Both must pass `test/contract/vector-index.contract.ts`.
 * Isolation: every call names a namespace (the tenant id); an adapter must restrict the query itself to
 * that namespace (separate index / filter inside the engine), never filter results afterwards.
 * Vectors are L2-normalised float32 of the dimension the index was opened with; `score` is cosine similarity.
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
  close(): Promise<void>;
}
