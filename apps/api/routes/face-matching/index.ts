import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { registerFaceMatchingEmbeddings } from './embeddings.ts';
import { registerFaceMatchingEnroll } from './enroll.ts';
import { registerFaceMatchingSearch } from './search.ts';
import { registerFaceMatchingVerify } from './verify.ts';

/** Face matching (`/v1/face-matching`): enroll, search (1:N), verify (1:1), list and delete embeddings. */
export function registerFaceMatchingRoutes(app: ApiApp, ctx: Platform): void {
  registerFaceMatchingEnroll(app, ctx);
  registerFaceMatchingSearch(app, ctx);
  registerFaceMatchingVerify(app, ctx);
  registerFaceMatchingEmbeddings(app, ctx);
}
