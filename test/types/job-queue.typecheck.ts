import type { JobConsumer, JobHandlerModule, JobQueue } from '../../infra/ports/job-queue.ts';
import type { WorkerPoolJobQueue } from '../../infra/job-queue/worker-pool/worker-pool-queue.ts';
import type { BullMqConsumer, BullMqJobQueue } from '../../infra/job-queue/bullmq/bullmq-queue.ts';
import type { KafkaJobQueue } from '../../infra/job-queue/kafka/kafka-queue.ts';
import type { KafkaJobConsumer } from '../../infra/job-queue/kafka/kafka-consumer.ts';
import type { Satisfies } from './satisfies.ts';

export type JobQueueAdapters = [Satisfies<JobQueue, WorkerPoolJobQueue>, Satisfies<JobQueue, BullMqJobQueue>, Satisfies<JobQueue, KafkaJobQueue>];

/** The worker sides of the shared queues (what `apps/worker` processes run). */
export type JobConsumers = [Satisfies<JobConsumer, BullMqConsumer>, Satisfies<JobConsumer, KafkaJobConsumer>];

/** Every handler module a manifest loads must be a worker-loadable handler module. */
export type JobHandlerModules = [
  Satisfies<JobHandlerModule, typeof import('../../models/face/jobs.ts')>,
  Satisfies<JobHandlerModule, typeof import('../../models/ocr/jobs.ts')>,
  Satisfies<JobHandlerModule, typeof import('../../apps/worker/system-jobs.ts')>,
];
