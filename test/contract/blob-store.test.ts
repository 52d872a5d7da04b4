import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDirBlobStore } from '../../infra/blob-store/local-dir/local-dir-blob-store.ts';
import { blobStoreContract } from './blob-store.contract.ts';

blobStoreContract('local directory', () => new LocalDirBlobStore(mkdtempSync(join(tmpdir(), 'sello-blob-'))));
