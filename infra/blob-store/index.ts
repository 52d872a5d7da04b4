/**
 * Blob-store factory: the one place where configuration (`BLOB_STORE`) selects the adapter. Adding an
 * adapter is one branch here plus its run of `test/contract/blob-store.contract.ts`.
 */
import { join, resolve } from 'node:path';
import type { BlobStore } from '../ports/blob-store.ts';
import { LocalDirBlobStore } from './local-dir/local-dir-blob-store.ts';
import { S3BlobStore } from './s3/s3-blob-store.ts';
import { unknownAdapter, type Config } from '../shared/adapter.ts';

export type BlobStoreAdapter = Config['BLOB_STORE'];

export function selectBlobStore(config: Config): BlobStoreAdapter {
  return config.BLOB_STORE;
}

/**
 * Opens the configured store. `local`: files under `DATA_DIR/blobs`; `s3`: bucket `S3_BUCKET` on
 * `S3_ENDPOINT` (created on first use), keys under `S3_PREFIX`.
 * @throws Error when `s3` is selected without `S3_ENDPOINT` and credentials.
 */
export function createBlobStore(config: Config): BlobStore {
  const adapter = selectBlobStore(config);
  switch (adapter) {
    case 'local':
      return new LocalDirBlobStore(join(resolve(config.DATA_DIR), 'blobs'));
    case 's3':
      if (!config.S3_ENDPOINT || !config.S3_ACCESS_KEY || !config.S3_SECRET_KEY) throw new Error('BLOB_STORE=s3 needs S3_ENDPOINT, S3_ACCESS_KEY and S3_SECRET_KEY');
      return new S3BlobStore({
        endpoint: config.S3_ENDPOINT,
        accessKey: config.S3_ACCESS_KEY,
        secretKey: config.S3_SECRET_KEY,
        bucket: config.S3_BUCKET,
        region: config.S3_REGION,
        prefix: config.S3_PREFIX,
      });
    default:
      return unknownAdapter('blob store', adapter);
  }
}
