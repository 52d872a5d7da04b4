import { WorkerPoolJobQueue } from '../../infra/job-queue/worker-pool/worker-pool-queue.ts';
import { WORKER_ENTRY } from '../../apps/platform/platform.ts';
import { jobQueueContract } from './job-queue.contract.ts';

jobQueueContract('worker-thread pool', () => new WorkerPoolJobQueue({ threads: 2, workerFile: WORKER_ENTRY }));
