import type { JobHandlerModule, JobQueue } from '../../infra/ports/job-queue.ts';
import type { WorkerPoolJobQueue } from '../../infra/job-queue/worker-pool/worker-pool-queue.ts';
import type { BullMqJobQueue } from '../../infra/job-queue/bullmq/bullmq-queue.ts';
import type { Satisfies } from './satisfies.ts';

export type JobQueueAdapters = [Satisfies<JobQueue, WorkerPoolJobQueue>, Satisfies<JobQueue, BullMqJobQueue>];

/** Every handler module a manifest loads must be a worker-loadable handler module. */
export type JobHandlerModules = [
  Satisfies<JobHandlerModule, typeof import('../../models/face/jobs.ts')>,
  Satisfies<JobHandlerModule, typeof import('../../models/ocr/jobs.ts')>,
  Satisfies<JobHandlerModule, typeof import('../../apps/worker/system-jobs.ts')>,
];
