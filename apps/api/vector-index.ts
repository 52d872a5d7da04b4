import { join } from 'node:path';
import type { VectorIndex } from '../../infra/ports/vector-index.ts';
import { EmbeddedVectorIndex } from '../../infra/vector-index/embedded/index.ts';
import { TEMPLATE_DIMENSION } from '../../domain/face-matching/template.ts';
import type { Config } from './config.ts';

/**
 * Chooses the vector-index adapter: the embedded on-disk one (`infra/vector-index/embedded`, usearch HNSW
 * per namespace + SQLite) under `DATA_DIR/vectors`, opened for the 512-d face-matching templates.
 * The Qdrant adapter (scaled-out) will be selected here by configuration.
 */
export async function createVectorIndex(_config: Config, dataDir: string): Promise<VectorIndex> {
  return new EmbeddedVectorIndex({ dir: join(dataDir, 'vectors'), dimensions: TEMPLATE_DIMENSION });
}
