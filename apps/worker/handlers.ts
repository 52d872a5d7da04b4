/**
 * The inference worker's handler table, derived from the capability manifests (`apps/capabilities`):
 * each job type resolves to its capability's handler module, imported lazily, so a worker loads a model
 * set only when the first job that needs it arrives, and keeps it for the next jobs. A module's
 * `configure(config)` runs once, right after it is loaded, with the worker's validated configuration.
 */
import type { JobGroup, JobHandler, JobHandlerModule } from '../../infra/ports/job-queue.ts';
import { capabilities, jobTableOf } from '../capabilities/index.ts';

const table = jobTableOf(capabilities);
const loaded = new Map<JobGroup, Promise<JobHandlerModule>>();
let workerConfig: unknown = null;

/** Sets the configuration handed to each handler module's `configure` (call before the first job). */
export function configureWorker(config: unknown): void {
  workerConfig = config;
}

function unknownJob(jobType: string): Error {
  return Object.assign(new Error(`unknown job type ${jobType}`), { code: 'unknown_job' });
}

/** Resolves the handler for `jobType`; throws an `unknown_job` coded error when no capability declares it. */
export async function resolveHandler(jobType: string): Promise<JobHandler<never, unknown>> {
  const group = table.get(jobType);
  if (!group) throw unknownJob(jobType);
  let mod = loaded.get(group);
  if (!mod) {
    mod = group.load().then((m) => {
      if (workerConfig !== null) m.configure?.(workerConfig);
      return m;
    });
    loaded.set(group, mod);
  }
  const handler = (await mod).handlers[jobType];
  if (!handler) throw unknownJob(jobType);
  return handler;
}
