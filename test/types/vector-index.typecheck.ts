import type { VectorIndex } from '../../infra/ports/vector-index.ts';
import type { EmbeddedVectorIndex } from '../../infra/vector-index/embedded/index.ts';
import type { Satisfies } from './satisfies.ts';

export type VectorIndexAdapters = [Satisfies<VectorIndex, EmbeddedVectorIndex>];
