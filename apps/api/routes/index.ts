import type { ApiApp } from '../app.ts';
import type { AppContext } from '../context.ts';
import { registerPlatformRoutes } from './platform/index.ts';
import { registerOcrRoutes } from './ocr/index.ts';

/** Every route group. One line per group. */
export async function registerRoutes(app: ApiApp, ctx: AppContext): Promise<void> {
  registerPlatformRoutes(app, ctx);
  registerOcrRoutes(app, ctx);
}
