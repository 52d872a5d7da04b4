/**
 * Job type -> handler module. Modules are imported lazily, so a worker loads a model set only when
 * the first job that needs it arrives, and keeps it for the next jobs.
 * A module exports `handlers: Record<string, JobHandler>`; add one line per module.
 */
export type JobHandler = (input: any) => Promise<unknown>;
type HandlerModule = { handlers: Record<string, JobHandler> };

const modules: Record<string, () => Promise<HandlerModule>> = {
  system: () => import('./system-jobs.ts'),
  ocr: () => import('../../models/ocr/jobs.ts'),
  face: () => import('../../models/face/jobs.ts'),
};

const cache = new Map<string, Promise<HandlerModule>>();

/** Resolves the handler for `jobType` (`<module>.<name>`); throws an `unknown_job` coded error when absent. */
export async function resolveHandler(jobType: string): Promise<JobHandler> {
  const moduleName = jobType.split('.')[0] ?? '';
  const load = modules[moduleName];
  if (!load) throw Object.assign(new Error(`unknown job type ${jobType}`), { code: 'unknown_job' });
  let mod = cache.get(moduleName);
  if (!mod) {
    mod = load();
    cache.set(moduleName, mod);
  }
  const handler = (await mod).handlers[jobType];
  if (!handler) throw Object.assign(new Error(`unknown job type ${jobType}`), { code: 'unknown_job' });
  return handler;
}
