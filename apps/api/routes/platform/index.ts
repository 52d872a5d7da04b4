import type { ApiApp } from '../../app.ts';
import type { AppContext } from '../../context.ts';
import { registerApiKeys } from './api-keys.ts';
import { registerCreditsBalance } from './credits-balance.ts';
import { registerStatus } from './status.ts';

/** Support endpoints of the spec ("Other paths referenced for support use"). */
export function registerPlatformRoutes(app: ApiApp, ctx: AppContext): void {
  registerCreditsBalance(app, ctx);
  registerApiKeys(app, ctx);
  registerStatus(app, ctx);
}
