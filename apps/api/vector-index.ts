import type { VectorIndex } from '../../infra/ports/vector-index.ts';
import type { Config } from './config.ts';

/**
 * Chooses the vector-index adapter. The embedded on-disk adapter lands with the face-matching
 * capability (`infra/vector-index/embedded`); until then the port answers that no index is configured,
 * so nothing silently pretends to search.
 */
export async function createVectorIndex(_config: Config, _dataDir: string): Promise<VectorIndex> {
  const unavailable = async (): Promise<never> => {
    throw new Error('vector index: no adapter configured');
  };
  return { upsert: unavailable, delete: unavailable, dropNamespace: unavailable, search: unavailable, count: unavailable, close: async () => undefined };
}
