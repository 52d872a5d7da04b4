/**
 * The e.firma routes of the signing page (issue 29): the form's two scripts (`/sign/assets/*`, cached a
 * year under content-addressed names, see ./efirma-assets.ts). Public like the rest of `/sign/*`: the
 * public rate limits apply (apps/api/public-limits.ts).
 */
import type { onRequestHookHandler } from 'fastify';
import type { ApiApp } from '../../types.ts';
import { EFIRMA_ASSETS } from './efirma-assets.ts';

/** Registers the e.firma scripts; `limit` is the `/sign/*` rate limit. */
export function registerEfirmaRoutes(app: ApiApp, limit?: onRequestHookHandler): void {
  const config = { auth: false as const, rateClass: 'light' as const, errorShape: 'structured' as const };
  const hide = { hide: true };
  void app.register(async (scope) => {
    if (limit) scope.addHook('onRequest', limit);
    for (const a of EFIRMA_ASSETS) {
      scope.get(a.path, { config, schema: hide }, async (_request, reply) =>
        reply
          .header('content-type', 'text/javascript; charset=utf-8')
          .header('cache-control', 'public, max-age=31536000, immutable')
          .header('x-content-type-options', 'nosniff')
          .header('cross-origin-resource-policy', 'same-origin')
          .send(a.body),
      );
    }
  });
}
