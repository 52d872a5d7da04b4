/**
 * Blob-store factory: the one place where configuration (`BLOB_STORE`) selects the adapter. Adding an
 * adapter is one branch here plus its run of `test/contract/blob-store.contract.ts`.
 */
import { join, resolve } from 'node:path';
import type { BlobStore } from '../ports/blob-store.ts';
import { LocalDirBlobStore } from './local-dir/local-dir-blob-store.ts';
import { unknownAdapter, type Config } from '../shared/adapter.ts';

export type BlobStoreAdapter = Config['BLOB_STORE'];

export function selectBlobStore(config: Config): BlobStoreAdapter {
  return config.BLOB_STORE;
}

/** Opens the configured store. `local`: files under `DATA_DIR/blobs`. */
export function createBlobStore(config: Config): BlobStore {
  const adapter = selectBlobStore(config);
  switch (adapter) {
    case 'local':
      return new LocalDirBlobStore(join(resolve(config.DATA_DIR), 'blobs'));
    default:
      return unknownAdapter('blob store', adapter);
  }
}
