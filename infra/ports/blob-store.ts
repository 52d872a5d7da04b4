/**
 * Blob-store port: uploaded images, PDFs and exports, addressed by key (`tenant/…/name`).
 * Embedded adapter: `infra/blob-store/local-dir`; scaled-out: MinIO / any S3.
 * Keys are relative paths of `[A-Za-z0-9._/-]` segments; `..` and absolute keys raise {@link InvalidBlobKeyError}.
 */
export interface BlobStore {
  put(key: string, data: Uint8Array, options?: { contentType?: string }): Promise<void>;
  /** Returns null when absent. */
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<boolean>;
  /** Keys under a prefix, sorted. */
  list(prefix: string): Promise<string[]>;
  /**
   * Writes the chunks of `source` as one blob without holding it in memory (exports of millions of
   * rows); the blob appears only once complete (a failed source leaves nothing). Returns its size in bytes.
   */
  putStream(key: string, source: AsyncIterable<Uint8Array | string>, options?: { contentType?: string }): Promise<{ bytes: number }>;
  /** A readable stream of the blob and its size, or null when absent. */
  getStream(key: string): Promise<{ stream: NodeJS.ReadableStream & AsyncIterable<Buffer>; bytes: number } | null>;
  /**
   * A time-limited URL anyone holding it can GET the blob from, without credentials (exports,
   * downloads). Only stores reachable over HTTP offer it (S3); the local directory does not.
   * @param expiresSeconds lifetime of the URL (1 s to 7 days).
   */
  presignedGetUrl?(key: string, expiresSeconds: number): Promise<string>;
}

/** The key grammar every adapter enforces: `[A-Za-z0-9._-]` segments joined by `/`, no `.` or `..` segment. */
export function assertBlobKey(key: string): void {
  if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(key) || key.split('/').some((s) => s === '.' || s === '..')) {
    throw new InvalidBlobKeyError(`invalid blob key ${JSON.stringify(key)}`);
  }
}

export class InvalidBlobKeyError extends Error {
  override readonly name = 'InvalidBlobKeyError';
}
