/**
 * Read-model port: JSON documents in named collections, plus projection checkpoints.
 *
 * Embedded adapter: `infra/read-models/sqlite`; scaled-out: `infra/read-models/postgres` (JSONB).
 * Both must pass `test/contract/read-models.contract.ts`.
 *
 * Filters compare top-level document fields. Equality for scalars; `$gte/$gt/$lte/$lt` compare numbers
 * numerically and strings by code point (store timestamps as ISO 8601 UTC strings so order is kept);
 * `$in` matches any of the listed scalars; `$ne` excludes a value; `$exists` tests presence.
 */
export type Scalar = string | number | boolean | null;
export type FieldCondition =
  | Scalar
  | { $gte?: Scalar; $gt?: Scalar; $lte?: Scalar; $lt?: Scalar; $in?: readonly Scalar[]; $ne?: Scalar; $exists?: boolean };
export type Filter = Record<string, FieldCondition>;

export interface FindOptions {
  sort?: ReadonlyArray<{ field: string; order: 'asc' | 'desc' }>;
  limit?: number;
  offset?: number;
}

export type Doc = Record<string, unknown>;

export interface Collection<T extends Doc = Doc> {
  get(id: string): Promise<T | null>;
  /** Inserts or replaces the document with this id. */
  put(id: string, doc: T): Promise<void>;
  /**
   * The documents of `ids` that exist, keyed by id (one round trip; projections fold a batch of events
   * into counters with it). Duplicate ids are looked up once.
   */
  getMany(ids: readonly string[]): Promise<Map<string, T>>;
  /** Inserts or replaces every `[id, doc]` (one statement per chunk); a later entry with the same id wins. */
  putMany(entries: ReadonlyArray<readonly [string, T]>): Promise<void>;
  delete(id: string): Promise<boolean>;
  find(filter?: Filter, options?: FindOptions): Promise<T[]>;
  count(filter?: Filter): Promise<number>;
  deleteMany(filter?: Filter): Promise<number>;
}

export interface CollectionOptions {
  /** Fields (or field tuples) to index, e.g. `['tenant_id', ['tenant_id', 'created_at']]`. */
  indexes?: ReadonlyArray<string | readonly string[]>;
}

export interface ReadModelStore {
  /** Declares (idempotently) and returns a collection. */
  collection<T extends Doc = Doc>(name: string, options?: CollectionOptions): Promise<Collection<T>>;
  /** Runs `fn` atomically: every write through the given store commits together or not at all. */
  transaction<R>(fn: (tx: ReadModelStore) => Promise<R>): Promise<R>;
  getCheckpoint(projection: string): Promise<number>;
  setCheckpoint(projection: string, position: number): Promise<void>;
  /** Removes every document of the named collections (for a replay). */
  truncate(collections: readonly string[]): Promise<void>;
  /**
   * After an erasure deleted or rewrote documents of `collections` (issue 28): makes their former bytes
   * unreachable in the store's own files, not only by queries. SQLite (which runs with `secure_delete`, so
   * freed space is zeroed): checkpoints and truncates the WAL. PostgreSQL: `VACUUM FULL` of the tables
   * (plain `VACUUM` frees a dead row version but leaves its bytes in the page until the space is reused).
   * Must not run inside {@link transaction}.
   */
  forget(collections: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
