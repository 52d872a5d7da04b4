import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';

export const ReadyResponse = z.object({
  ready: z.boolean().describe('True once this instance has caught up with the event log (read models, vector-index replica).'),
});

/**
 * `GET /ready`: readiness for load balancers (no authentication, not rate limited, not billed). 200
 * `{ready: true}` once this instance's projections, including its own vector-index replica, have
 * caught up with the event log since it started; 503 `{ready: false}` with `Retry-After: 1` until then.
 * Liveness is "the process answers"; `/v1/status` gives the dependency details.
 */
export function registerReady(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/ready',
    config: { auth: false },
    schema: {
      tags: ['platform'],
      summary: 'Readiness for load balancers',
      description: '200 once the instance has caught up with the event log (read models and its vector-index replica); 503 with `Retry-After` before.',
      response: { 200: ReadyResponse, 503: ReadyResponse },
    },
    handler: async (_request, reply) => {
      const ready = ctx.projections.isReady();
      if (!ready) reply.status(503).header('Retry-After', '1');
      return { ready };
    },
  });
}
