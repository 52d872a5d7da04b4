import type { ApiApp } from '../types.ts';
import type { AnyCapability, Platform } from '../../platform/types.ts';

/**
 * Registers every capability's route group, in the order of the manifests (`apps/capabilities/index.ts`);
 * `only` restricts it to the capabilities it accepts.
 */
export async function registerRoutes(app: ApiApp, platform: Platform, only: (capability: AnyCapability) => boolean = () => true): Promise<void> {
  for (const capability of platform.capabilities) {
    if (!capability.routes || !only(capability)) continue;
    const register = await capability.routes();
    await register(app, platform, platform.use(capability));
  }
}
