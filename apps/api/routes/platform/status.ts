import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import { runJob } from '../../../../infra/ports/job-queue.ts';
import { systemJobs } from '../../../capabilities/platform.ts';
import type { Platform } from '../../../platform/types.ts';

const Dependency = z.object({
  status: z.enum(['ok', 'error']),
  latency_ms: z.number().optional(),
  detail: z.string().optional(),
});
export const StatusResponse = z.object({
  success: z.literal(true),
  data: z.object({
    status: z.enum(['ok', 'degraded']).describe('"degraded" when any dependency check failed or the instance is not ready.'),
    ready: z.boolean().describe('False until this instance has caught up with the event log (read models, vector-index replica); as `GET /ready`.'),
    version: z.string(),
    uptime_seconds: z.number(),
    time: z.string(),
    dependencies: z.object({ event_store: Dependency, read_models: Dependency, job_queue: Dependency.extend({ workers: z.number().int(), queued: z.number().int() }) }),
  }),
});

const started = Date.now();

async function check(fn: () => Promise<unknown>, timeoutMs = 3000): Promise<z.infer<typeof Dependency>> {
  const t0 = performance.now();
  try {
    await Promise.race([fn(), new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref())]);
    return { status: 'ok', latency_ms: Math.round((performance.now() - t0) * 100) / 100 };
  } catch (error) {
    return { status: 'error', latency_ms: Math.round(performance.now() - t0), detail: (error as Error).message };
  }
}

/** `GET /v1/status`: service and dependency health (event store, read models, inference workers). */
export function registerStatus(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/v1/status',
    config: { auth: { permission: 'read' }, rateClass: 'light' },
    schema: { tags: ['platform'], summary: 'Service and dependency health', response: { 200: StatusResponse } },
    handler: async () => {
      const [eventStore, readModels, jobs] = await Promise.all([
        check(() => ctx.events.headPosition()),
        check(() => ctx.readModels.getCheckpoint('usage-events')),
        check(() => runJob(ctx.jobs, systemJobs['system.health'], {}, { timeoutMs: 5000 }), 6000),
      ]);
      const stats = ctx.jobs.stats();
      const ready = ctx.projections.isReady();
      const ok = ready && [eventStore, readModels, jobs].every((d) => d.status === 'ok');
      return {
        success: true as const,
        data: {
          status: ok ? ('ok' as const) : ('degraded' as const),
          ready,
          version: process.env.npm_package_version ?? '0.1.0',
          uptime_seconds: Math.round((Date.now() - started) / 1000),
          time: new Date(ctx.clock.now()).toISOString(),
          dependencies: { event_store: eventStore, read_models: readModels, job_queue: { ...jobs, workers: stats.workers, queued: stats.queued } },
        },
      };
    },
  });
}
