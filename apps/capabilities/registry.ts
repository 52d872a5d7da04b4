/** Government registry lookups: RENAPO CURP, INE voter list, CURP validation (`/v1/mex/*`, docs/registry.md). */
import type { RegistryProvider } from '../../infra/ports/registry-provider.ts';
import type { CapabilityManifest } from '../platform/types.ts';

/** What the registry routes share: the configured provider and the lookup-fingerprint HMAC key. */
export interface RegistryDeps {
  provider: RegistryProvider;
  fingerprintKey: Buffer;
}

export const registryCapability: CapabilityManifest<RegistryDeps> = {
  name: 'registry',
  summary: 'CURP look-up and voter-list validation through the configured registry provider; offline CURP validation.',
  useCases: (platform) => ({ provider: platform.registry, fingerprintKey: platform.secrets.registryFingerprintKey() }),
  routes: async () => (await import('../api/routes/mex/index.ts')).registerMexRoutes,
};
