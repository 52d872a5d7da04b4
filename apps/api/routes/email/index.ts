import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { registerEmailVerify } from './verify.ts';
import { registerEmailVerifyBatch } from './verify-batch.ts';

/** E-mail verification (spec, "Email verification"): single and batch. */
export function registerEmailRoutes(app: ApiApp, ctx: Platform): void {
  registerEmailVerify(app, ctx);
  registerEmailVerifyBatch(app, ctx);
}
