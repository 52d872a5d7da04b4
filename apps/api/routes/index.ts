import type { ApiApp } from '../app.ts';
import type { AppContext } from '../context.ts';
import { registerPlatformRoutes } from './platform/index.ts';
import { registerMexRoutes } from './mex/index.ts';
import { registerEmailRoutes } from './email/index.ts';
import { registerWebhookRoutes } from './webhooks/index.ts';
import { registerFaceMatchingRoutes } from './face-matching/index.ts';
import { registerOcrRoutes } from './ocr/index.ts';
import { registerFaceRoutes } from './face/index.ts';

/** Every route group. One line per group. */
export async function registerRoutes(app: ApiApp, ctx: AppContext): Promise<void> {
  registerPlatformRoutes(app, ctx);
  registerMexRoutes(app, ctx);
  registerEmailRoutes(app, ctx);
  registerWebhookRoutes(app, ctx);
  registerFaceMatchingRoutes(app, ctx);
  registerOcrRoutes(app, ctx);
  registerFaceRoutes(app, ctx);
}
