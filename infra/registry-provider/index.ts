/**
 * Registry-provider factory: the one place where configuration (`REGISTRY_PROVIDER`) selects the adapter.
 * Adding a provider is one branch here plus its run of `test/contract/registry-provider.contract.ts`.
 */
import type { RegistryProvider } from '../ports/registry-provider.ts';
import { SandboxRegistryProvider } from './sandbox/sandbox-provider.ts';
import { HttpRegistryProvider } from './http/http-provider.ts';
import { unknownAdapter, type Config } from '../shared/adapter.ts';

export type RegistryProviderAdapter = Config['REGISTRY_PROVIDER'];

export function selectRegistryProvider(config: Config): RegistryProviderAdapter {
  return config.REGISTRY_PROVIDER;
}

/**
 * Builds the configured provider: `sandbox` (synthetic fixture registry, answers marked; extra fixture
 * files from `REGISTRY_SANDBOX_FIXTURES`) or `http` (a certified provider at `REGISTRY_PROVIDER_URL`).
 * @throws Error for an incomplete configuration or an unreadable fixture file.
 */
export function createRegistryProvider(config: Config): RegistryProvider {
  const adapter = selectRegistryProvider(config);
  switch (adapter) {
    case 'http':
      if (!config.REGISTRY_PROVIDER_URL) throw new Error('REGISTRY_PROVIDER=http needs REGISTRY_PROVIDER_URL');
      return new HttpRegistryProvider({
        baseUrl: config.REGISTRY_PROVIDER_URL,
        ...(config.REGISTRY_PROVIDER_API_KEY ? { apiKey: config.REGISTRY_PROVIDER_API_KEY } : {}),
        ...(config.REGISTRY_PROVIDER_USERNAME ? { username: config.REGISTRY_PROVIDER_USERNAME, password: config.REGISTRY_PROVIDER_PASSWORD ?? '' } : {}),
        timeoutMs: config.REGISTRY_PROVIDER_TIMEOUT_MS,
        retries: config.REGISTRY_PROVIDER_RETRIES,
        breakerThreshold: config.REGISTRY_BREAKER_THRESHOLD,
        breakerHalfOpenAfterMs: config.REGISTRY_BREAKER_HALF_OPEN_MS,
      });
    case 'sandbox': {
      const files = (config.REGISTRY_SANDBOX_FIXTURES ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      return new SandboxRegistryProvider({ fixtureFiles: files });
    }
    default:
      return unknownAdapter('registry provider', adapter);
  }
}
