/**
 * Vector-index factory: the one place where configuration (`VECTOR_INDEX`) selects the adapter. Adding
 * an adapter is one branch here plus its run of `test/contract/vector-index.contract.ts`.
 */
import { join, resolve } from 'node:path';
import type { VectorIndex } from '../ports/vector-index.ts';
import { EmbeddedVectorIndex } from './embedded/index.ts';
import { unknownAdapter, type Config } from '../shared/adapter.ts';

export type VectorIndexAdapter = Config['VECTOR_INDEX'];

export function selectVectorIndex(config: Config): VectorIndexAdapter {
  return config.VECTOR_INDEX;
}

/**
 * Opens the configured index for vectors of `dimensions` floats (e.g. 512 for the face-matching
 * templates). `embedded`: usearch HNSW per namespace + SQLite under `DATA_DIR/<dir>`.
 */
export function createVectorIndex(config: Config, options: { dimensions: number; dir: string }): VectorIndex {
  const adapter = selectVectorIndex(config);
  switch (adapter) {
    case 'embedded':
      return new EmbeddedVectorIndex({ dir: join(resolve(config.DATA_DIR), options.dir), dimensions: options.dimensions });
    default:
      return unknownAdapter('vector index', adapter);
  }
}
