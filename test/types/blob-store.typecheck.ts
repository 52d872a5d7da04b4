import type { BlobStore } from '../../infra/ports/blob-store.ts';
import type { LocalDirBlobStore } from '../../infra/blob-store/local-dir/local-dir-blob-store.ts';
import type { S3BlobStore } from '../../infra/blob-store/s3/s3-blob-store.ts';
import type { createBlobStore } from '../../infra/blob-store/index.ts';
import type { Satisfies } from './satisfies.ts';

export type BlobStoreAdapters = [Satisfies<BlobStore, LocalDirBlobStore>, Satisfies<BlobStore, S3BlobStore>, Satisfies<BlobStore, ReturnType<typeof createBlobStore>>];
