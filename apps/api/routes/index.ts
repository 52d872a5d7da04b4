import type { ApiApp } from '../types.ts';
import type { Platform } from '../../platform/types.ts';

/** Registers every capability's route group, in the order of the manifests (`apps/capabilities/index.ts`). */
export async function registerRoutes(app: ApiApp, platform: Platform): Promise<void> {
  for (const capability of platform.capabilities) {
    if (!capability.routes) continue;
    const register = await capability.routes();
    await register(app, platform, platform.use(capability));
  }
}
