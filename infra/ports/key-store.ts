/**
 * Key store port: the data keys of crypto-shredding (docs/privacy.md, "Crypto-shredding"). Each data
 * subject (a face/fingerprint subject, a signing document...) has at most one live data key; the event
 * store's privacy layer seals the subject's personal fields under it. Keys are stored wrapped (AES-256-GCM
 * under the master key, `infra/privacy/data-keys.ts`): an adapter only stores bytes and never sees a key
 * in clear. Destroying a subject's keys erases its sealed fields everywhere the log is copied.
 *
 * Embedded adapter: `infra/key-store/sqlite` (`DATA_DIR/keys/keys.sqlite`, a file of its own so it is backed up
 * apart from the log); scaled out: `infra/key-store/postgres`. Every adapter passes
 * `test/contract/key-store.contract.ts`.
 */

/** One live data key, wrapped. */
export interface WrappedKey {
  /** Random id of this key (what sealed data name); never reused. */
  keyRef: string;
  /** The data subject's key id (`domain/privacy/classification.ts` `subjectKeyId`). */
  subject: string;
  /** The data key wrapped by the master key: IV (12 bytes) + ciphertext (32) + GCM tag (16). */
  wrapped: Buffer;
  /** Id of the master key that wrapped it (`data-keys.ts` `masterKeyId`). */
  masterId: string;
  /** ISO 8601. */
  createdAt: string;
}

/** What the store knows of a key reference. */
export type KeyLookup =
  | { status: 'live'; key: WrappedKey }
  /** Destroyed at this ISO time: the wrapped bytes are gone. */
  | { status: 'destroyed'; keyRef: string; subject: string; destroyedAt: string };

export interface KeyStore {
  /** The subject's live key, or null when it has none (never had one, or all were destroyed). */
  current(subject: string): Promise<WrappedKey | null>;
  /**
   * Stores `key` as the subject's live key unless the subject already has one (another process won the
   * race): returns the subject's live key either way.
   */
  createIfAbsent(key: WrappedKey): Promise<WrappedKey>;
  /** Lookups of several key references at once; references the store never had are absent from the map. */
  lookup(keyRefs: readonly string[]): Promise<Map<string, KeyLookup>>;
  /**
   * Destroys every live key of `subject` (the wrapped bytes are overwritten and dropped, the reference
   * stays as a tombstone so sealed data read as erased, not as missing). Idempotent.
   * @returns the references destroyed now (empty when there was no live key).
   */
  destroy(subject: string, at: string): Promise<string[]>;
  /** Live keys in `keyRef` order after `afterKeyRef` (`''` from the start), at most `limit` (key rotation). */
  listLive(afterKeyRef: string, limit: number): Promise<WrappedKey[]>;
  /** Replaces the wrapped bytes and master id of live keys, all or none (key rotation). */
  rewrap(keys: readonly { keyRef: string; wrapped: Buffer; masterId: string }[]): Promise<void>;
  close(): Promise<void>;
}
