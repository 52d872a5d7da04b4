import type { ApiApp } from '../../app.ts';
import type { AppContext } from '../../context.ts';
import { registerOcrExtractDocument } from './extract-document.ts';
import { registerOcrExtractId } from './extract-id.ts';
import { registerOcrRemoved } from './removed.ts';
import { registerOcrVerifyAuthenticity } from './verify-authenticity.ts';

/** The `/v1/ocr/*` group (spec, Endpoints > OCR). */
export function registerOcrRoutes(app: ApiApp, ctx: AppContext): void {
  registerOcrExtractId(app, ctx);
  registerOcrExtractDocument(app, ctx);
  registerOcrVerifyAuthenticity(app, ctx);
  registerOcrRemoved(app, ctx);
}
