import type { BlobStore } from '../../infra/ports/blob-store.ts';
import type { LocalDirBlobStore } from '../../infra/blob-store/local-dir/local-dir-blob-store.ts';
import type { Satisfies } from './satisfies.ts';

export type BlobStoreAdapters = [Satisfies<BlobStore, LocalDirBlobStore>];
