import { registryProviderContract } from './registry-provider.contract.ts';
import { SandboxRegistryProvider } from '../../infra/registry-provider/sandbox/sandbox-provider.ts';
import { HttpRegistryProvider } from '../../infra/registry-provider/http/http-provider.ts';
import { startFakeProvider } from '../helpers/registry-fake-provider.ts';

registryProviderContract('sandbox', async () => ({ provider: new SandboxRegistryProvider() }));

registryProviderContract('http (against a provider server started by the test)', async () => {
  const fake = await startFakeProvider();
  // The breaker must not open on the contract's own maintenance checks.
  const provider = new HttpRegistryProvider({ baseUrl: fake.url, apiKey: 'test-provider-key', timeoutMs: 2000, retries: 0, breakerThreshold: 100 });
  return { provider, cleanup: () => fake.close() };
});
