import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import type { OcrUseCases } from '../../../capabilities/ocr.ts';
import { registerOcrExtractDocument } from './extract-document.ts';
import { registerOcrExtractId } from './extract-id.ts';
import { registerOcrRemoved } from './removed.ts';
import { registerOcrVerifyAuthenticity } from './verify-authenticity.ts';

/** The `/v1/ocr/*` group (spec, Endpoints > OCR). */
export function registerOcrRoutes(app: ApiApp, ctx: Platform, useCases: OcrUseCases): void {
  registerOcrExtractId(app, ctx, useCases);
  registerOcrExtractDocument(app, ctx);
  registerOcrVerifyAuthenticity(app, ctx);
  registerOcrRemoved(app, ctx);
}
