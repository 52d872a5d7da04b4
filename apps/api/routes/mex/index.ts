import type { ApiApp } from '../../app.ts';
import type { AppContext } from '../../context.ts';
import type { RegistryProvider } from '../../../../infra/ports/registry-provider.ts';
import { registerCurpValidate } from './curp-validate.ts';
import { registerGetCurp } from './get-curp.ts';
import { registerValidateVoterList } from './validate-voter-list.ts';
import { createRegistryProvider, loadFingerprintKey, markSandbox, registryBodyErrors } from './runtime.ts';

/** What the registry routes share: the provider (one per process) and the fingerprint key. */
export interface RegistryDeps {
  provider: RegistryProvider;
  fingerprintKey: Buffer;
}

/**
 * Government registry lookups (`/v1/mex`): RENAPO get-curp, INE voter list, and the free CURP validator.
 * Registered in their own scope so the sandbox marking and the body-error mapping apply to them alone.
 * Raises at start-up for a bad provider configuration or fixture file.
 */
export function registerMexRoutes(app: ApiApp, ctx: AppContext): void {
  const deps: RegistryDeps = { provider: createRegistryProvider(ctx.config), fingerprintKey: loadFingerprintKey(ctx.config) };
  ctx.log.info({ registry: { provider: deps.provider.name, sandbox: deps.provider.sandbox } }, 'registry provider ready');
  const url = ctx.config.REGISTRY_PROVIDER === 'http' && ctx.config.REGISTRY_PROVIDER_URL ? new URL(ctx.config.REGISTRY_PROVIDER_URL) : null;
  if (url && url.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
    // Personal data and provider credentials would cross the network in clear text.
    ctx.log.warn({ registry: { host: url.hostname } }, 'REGISTRY_PROVIDER_URL is plain http: use https outside a private network');
  }
  app.addHook('onClose', async () => {
    await deps.provider.close();
  });
  app.register(async (scope) => {
    const s = scope as unknown as ApiApp;
    s.setErrorHandler(registryBodyErrors);
    s.addHook('onSend', markSandbox(deps.provider));
    registerGetCurp(s, ctx, deps);
    registerValidateVoterList(s, ctx, deps);
    registerCurpValidate(s, ctx);
  });
}
