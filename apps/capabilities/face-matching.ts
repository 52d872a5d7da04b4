/** 1:N face matching: enroll, search, verify, list and delete templates (`/v1/face-matching/*`). */
import { randomUUID } from 'node:crypto';
import type { FaceMatchingDeps } from '../../domain/face-matching/deps.ts';
import { faceEmbeddingsProjection } from '../../projections/face-embeddings/face-embeddings.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/**
 * Use cases: the domain's `enrollFace`, `searchFaces`, `verifySubject`, `listEmbeddings`,
 * `deleteEmbedding`, `purgeEmbeddings` (`domain/face-matching/`), each called with these dependencies.
 * The template comes from the face capability's `face.descriptor` job.
 */
export const faceMatchingCapability: CapabilityManifest<FaceMatchingDeps> = {
  name: 'face-matching',
  summary: 'Enrolls 512-d face templates per tenant (event-sourced) and searches them 1:N in the vector index.',
  projections: [faceEmbeddingsProjection],
  useCases: (platform) => ({
    events: platform.events,
    readModels: platform.readModels,
    vectorIndex: platform.vectorIndex,
    catchUp: () => platform.projections.catchUp(),
    now: () => platform.clock.now(),
    newId: () => `emb_${randomUUID().replace(/-/g, '')}`,
  }),
  routes: async () => (await import('../api/routes/face-matching/index.ts')).registerFaceMatchingRoutes,
};
