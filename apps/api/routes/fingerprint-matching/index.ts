import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { registerFingerprintEnroll } from './enroll.ts';
import { registerFingerprintSearch } from './search.ts';
import { registerFingerprintTemplates } from './templates.ts';
import { registerFingerprintVerify } from './verify.ts';

/** Fingerprint matching (`/v1/fingerprint-matching`): enroll, search (1:N), verify (1:1), list, export, delete. */
export function registerFingerprintRoutes(app: ApiApp, ctx: Platform): void {
  registerFingerprintEnroll(app, ctx);
  registerFingerprintSearch(app, ctx);
  registerFingerprintVerify(app, ctx);
  registerFingerprintTemplates(app, ctx);
}
