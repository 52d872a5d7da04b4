import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { registerFaceAnalyze } from './analyze.ts';
import { registerFaceDetect } from './detect.ts';
import { registerFaceLandmarks } from './landmarks.ts';
import { registerFaceLiveness } from './liveness.ts';
import { registerFaceVerify } from './verify.ts';

/** Face recognition (`/v1/face`): verify, analyze, detect, landmarks, liveness. Heavy work runs in the inference workers. */
export function registerFaceRoutes(app: ApiApp, ctx: Platform): void {
  registerFaceVerify(app, ctx);
  registerFaceAnalyze(app, ctx);
  registerFaceDetect(app, ctx);
  registerFaceLandmarks(app, ctx);
  registerFaceLiveness(app, ctx);
}
