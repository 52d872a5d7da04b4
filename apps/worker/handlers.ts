/**
 * The inference worker's handler table, derived from the capability manifests (`platform.capabilities`):
 * each job type resolves to its capability's handler module, imported lazily, so a worker loads a model
 * set only when the first job that needs it arrives, and keeps it for the next jobs. A module's
 * `configure(config)` runs once, right after it is loaded, with the platform's validated configuration.
 */
import type { JobGroup, JobHandler, JobHandlerModule } from '../../infra/ports/job-queue.ts';
import type { Platform } from '../platform/types.ts';
import { jobTableOf } from '../capabilities/index.ts';

function unknownJob(jobType: string): Error {
  return Object.assign(new Error(`unknown job type ${jobType}`), { code: 'unknown_job' });
}

/**
 * The resolver of `platform`'s job types: `resolve(type)` gives the handler, or throws an `unknown_job`
 * coded error when no capability declares `type`.
 * @throws Error at once when two capabilities declare the same job type.
 */
export function createHandlerTable(platform: Pick<Platform, 'capabilities' | 'config'>): (jobType: string) => Promise<JobHandler<never, unknown>> {
  const table = jobTableOf(platform.capabilities);
  const loaded = new Map<JobGroup, Promise<JobHandlerModule>>();
  return async (jobType) => {
    const group = table.get(jobType);
    if (!group) throw unknownJob(jobType);
    let mod = loaded.get(group);
    if (!mod) {
      mod = group.load().then((m) => {
        m.configure?.(platform.config);
        return m;
      });
      loaded.set(group, mod);
    }
    const handler = (await mod).handlers[jobType];
    if (!handler) throw unknownJob(jobType);
    return handler;
  };
}
