import { WorkerPoolJobQueue } from '../../infra/job-queue/worker-pool/worker-pool-queue.ts';
import { jobQueueContract } from './job-queue.contract.ts';

jobQueueContract('worker-thread pool', () => new WorkerPoolJobQueue({ threads: 2 }));
