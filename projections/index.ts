import type { Projection } from './projection.ts';
import { apiKeysProjection } from './api-keys/api-keys.ts';
import { tenantsProjection } from './tenants/tenants.ts';
import { usageEventsProjection } from './usage-events/usage-events.ts';
import { webhooksProjection } from './webhooks/index.ts';
import { faceEmbeddingsProjection } from './face-embeddings/face-embeddings.ts';

/** Every projection the platform runs and `npm run cli -- replay` rebuilds. One line per projection. */
export const projections: Projection[] = [
  tenantsProjection,
  apiKeysProjection,
  usageEventsProjection,
  webhooksProjection,
  faceEmbeddingsProjection,
];
