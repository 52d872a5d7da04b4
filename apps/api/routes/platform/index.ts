import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { registerApiKeys } from './api-keys.ts';
import { registerCreditsBalance } from './credits-balance.ts';
import { registerStatus } from './status.ts';
import { registerReady } from './ready.ts';

/** Support endpoints of the spec ("Other paths referenced for support use"). */
export function registerPlatformRoutes(app: ApiApp, ctx: Platform): void {
  registerCreditsBalance(app, ctx);
  registerApiKeys(app, ctx);
  registerStatus(app, ctx);
  registerReady(app, ctx);
}
