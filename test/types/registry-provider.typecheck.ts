import type { RegistryProvider } from '../../infra/ports/registry-provider.ts';
import type { SandboxRegistryProvider } from '../../infra/registry-provider/sandbox/sandbox-provider.ts';
import type { HttpRegistryProvider } from '../../infra/registry-provider/http/http-provider.ts';
import type { Satisfies } from './satisfies.ts';

export type RegistryProviders = [Satisfies<RegistryProvider, SandboxRegistryProvider>, Satisfies<RegistryProvider, HttpRegistryProvider>];
