/** Face recognition: verify, analyze, detect, landmarks, liveness (`/v1/face/*`, docs/face.md). */
import { defineJobs } from '../../infra/ports/job-queue.ts';
import type { handlers } from '../../models/face/jobs.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/** The face inference jobs; input and output types come from the handlers in `models/face/jobs.ts`. */
export const faceJobs = defineJobs<typeof handlers>({
  'face.detect': true,
  'face.descriptor': true,
  'face.verify': true,
  'face.analyze': true,
  'face.landmarks': true,
  'face.liveness': true,
});

export const faceCapability: CapabilityManifest = {
  name: 'face',
  summary: 'Face verification, analysis, detection, landmarks and liveness on the inference workers.',
  jobs: { definitions: faceJobs, load: () => import('../../models/face/jobs.ts') },
  routes: async () => (await import('../api/routes/face/index.ts')).registerFaceRoutes,
};
