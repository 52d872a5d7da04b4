/**
 * What every port factory (`infra/<port>/index.ts`) shares: the configuration type it reads and the
 * exhaustiveness check that makes a new adapter name a compile error until its branch exists.
 */
export type { Config } from '../../apps/api/config.ts';

/** Compile-time exhaustiveness: reached only when a `switch` over adapter names misses one. */
export function unknownAdapter(port: string, name: never): never {
  throw new Error(`unknown ${port} adapter: ${String(name)}`);
}
