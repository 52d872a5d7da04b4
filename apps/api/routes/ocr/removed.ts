import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { OcrErrorSchema, ocrError } from './common.ts';

/** `POST /v1/ocr/extract` and `POST /v1/ocr/extract/receipt`: removed endpoints, always 400 `not_supported` (spec, OCR). */
export function registerOcrRemoved(app: ApiApp, _ctx: Platform): void {
  for (const url of ['/v1/ocr/extract', '/v1/ocr/extract/receipt']) {
    app.route({
      method: 'POST',
      url,
      config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'flat' },
      schema: { tags: ['ocr'], summary: 'Removed', description: 'Removed endpoint: answers 400 not_supported. Use /v1/ocr/extract/id or /v1/ocr/extract/document.', response: { 400: OcrErrorSchema } },
      handler: async () => {
        throw ocrError('not_supported', `${url} was removed; use /v1/ocr/extract/id for identity documents or /v1/ocr/extract/document for utility bills.`);
      },
    });
  }
}
