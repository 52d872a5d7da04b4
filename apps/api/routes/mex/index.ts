import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import type { RegistryDeps } from '../../../capabilities/registry.ts';
import { registerCurpValidate } from './curp-validate.ts';
import { registerGetCurp } from './get-curp.ts';
import { registerValidateVoterList } from './validate-voter-list.ts';
import { markSandbox, registryBodyErrors } from './runtime.ts';

export type { RegistryDeps } from '../../../capabilities/registry.ts';

/**
 * Government registry lookups (`/v1/mex`): RENAPO get-curp, INE voter list, and the free CURP validator.
 * Registered in their own scope so the sandbox marking and the body-error mapping apply to them alone.
 * The provider and fingerprint key come from the platform (`apps/capabilities/registry.ts`).
 */
export function registerMexRoutes(app: ApiApp, ctx: Platform, deps: RegistryDeps): void {
  ctx.log.info({ registry: { provider: deps.provider.name, sandbox: deps.provider.sandbox } }, 'registry provider ready');
  const url = ctx.config.REGISTRY_PROVIDER === 'http' && ctx.config.REGISTRY_PROVIDER_URL ? new URL(ctx.config.REGISTRY_PROVIDER_URL) : null;
  if (url && url.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
    // Personal data and provider credentials would cross the network in clear text.
    ctx.log.warn({ registry: { host: url.hostname } }, 'REGISTRY_PROVIDER_URL is plain http: use https outside a private network');
  }
  app.register(async (scope) => {
    const s = scope as unknown as ApiApp;
    s.setErrorHandler(registryBodyErrors);
    s.addHook('onSend', markSandbox(deps.provider));
    registerGetCurp(s, ctx, deps);
    registerValidateVoterList(s, ctx, deps);
    registerCurpValidate(s, ctx);
  });
}
