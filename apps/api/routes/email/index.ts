import type { ApiApp } from '../../app.ts';
import type { AppContext } from '../../context.ts';
import { registerEmailVerify } from './verify.ts';
import { registerEmailVerifyBatch } from './verify-batch.ts';

/** E-mail verification (spec, "Email verification"): single and batch. */
export function registerEmailRoutes(app: ApiApp, ctx: AppContext): void {
  registerEmailVerify(app, ctx);
  registerEmailVerifyBatch(app, ctx);
}
