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
  'face.warmup': true,
});

export const faceCapability: CapabilityManifest = {
  name: 'face',
  summary: 'Face verification, analysis, detection, landmarks and liveness on the inference workers.',
  jobs: { definitions: faceJobs, load: () => import('../../models/face/jobs.ts') },
  // FACE_PRELOAD: one warm-up job per worker thread, in the background (start-up is not delayed; a face
  // request arriving meanwhile queues behind the loading, as it would have loaded the models itself)
  start: async (_useCases, platform) => {
    if (!platform.config.FACE_PRELOAD) return;
    const threads = Math.max(1, platform.jobs.stats().workers, platform.config.WORKER_THREADS ?? 0);
    const t = performance.now();
    void Promise.all(Array.from({ length: threads }, () => platform.jobs.run<Record<string, never>, { threadId: number }>(faceJobs['face.warmup'].type, {})))
      .then((r) => platform.log.info({ workers: r.map((x) => x.threadId), ms: Math.round(performance.now() - t) }, 'face models preloaded'))
      .catch((err: unknown) => platform.log.warn({ err }, 'face model preload failed; models load on the first face request'));
  },
  routes: async () => (await import('../api/routes/face/index.ts')).registerFaceRoutes,
};
