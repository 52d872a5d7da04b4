import { z } from 'zod';
import { BILL_TYPES, type BillFields, type BillType } from '../../../../domain/ocr/bills.ts';
import type { ApiApp } from '../../types.ts';
import { runJob } from '../../../../infra/ports/job-queue.ts';
import { ocrJobs } from '../../../capabilities/ocr.ts';
import type { Platform } from '../../../platform/types.ts';
import { OCR_JSON_BODY_LIMIT, OcrErrorSchema, mapJobError, ocrError, ocrSubjectId, readOcrInput, todayOf } from './common.ts';

export const ExtractDocumentResponse = z.object({
  success: z.literal(true),
  type: z.enum(BILL_TYPES).describe('The requested bill type.'),
  fields: z.object({
    name: z.string().describe('Account holder.').meta({ example: 'JUAN PEREZ LOPEZ' }),
    fullAddress: z.string(),
    zipCode: z.string().meta({ example: '03100' }),
    phone: z.string(),
    accountNumber: z.string(),
    serviceNumber: z.string(),
    billNumber: z.string(),
    billingPeriod: z.string(),
    totalPayment: z.string().meta({ example: '$1,234.50' }),
    paymentLimitDate: z.string(),
    barCode: z.string().describe('Digits printed under the bar code.'),
  }),
  validation: z.object({ mrz: z.literal('not_present'), curp: z.literal('not_present'), expired: z.null() }),
  processing_time: z.number().describe('Seconds.'),
});
export type ExtractDocumentResponse = z.infer<typeof ExtractDocumentResponse>;

/** `POST /v1/ocr/extract/document` (2 credits): utility bills (electricity, phone, cable), fields from labels and layout. */
export function registerOcrExtractDocument(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/ocr/extract/document',
    bodyLimit: OCR_JSON_BODY_LIMIT,
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'flat' },
    schema: {
      tags: ['ocr'],
      summary: 'Extract a proof of address (utility bill)',
      description:
        'image (or front) file or base64 string; document_type electricity_bill, phone_bill or cable_bill (required); subject_id optional (ties the answer stored for an ' +
        'Idempotency-Key to a data subject, so an erasure of that subject removes it). JPG, PNG or PDF up to 10 MB.',
      response: { 200: ExtractDocumentResponse, 400: OcrErrorSchema, 413: OcrErrorSchema, 503: OcrErrorSchema },
    },
    handler: async (request) => {
      const started = performance.now();
      const input = await readOcrInput(request, ['image', 'front']);
      const given = (input.fields.get('document_type') ?? '').trim();
      const docType = given.toLowerCase() as BillType;
      if (!BILL_TYPES.includes(docType)) {
        throw ocrError(
          'unsupported_document_type',
          given === ''
            ? `document_type is required: one of ${BILL_TYPES.join(', ')}.`
            : `document_type ${JSON.stringify(given.slice(0, 40))} is not supported: use one of ${BILL_TYPES.join(', ')}.`,
        );
      }
      const image = input.files.get('image') ?? input.files.get('front');
      if (!image) throw ocrError('image_required', 'Send the bill as image (or front): a file or a base64 string.');
      ocrSubjectId(request, input);
      let result: { type: BillType; fields: BillFields };
      try {
        result = await runJob(ctx.jobs, ocrJobs['ocr.extractDocument'], { image: new Uint8Array(image), documentType: docType, today: todayOf(ctx.clock.now()) });
      } catch (e) {
        throw mapJobError(e);
      }
      const processing_time = Math.round(performance.now() - started) / 1000;
      await ctx.publishWebhookEvent(
        request.auth!.tenantId,
        'ocr.completed',
        { operation: 'extract_document', document_type: result.type, success: true, fields_found: Object.values(result.fields).filter(Boolean).length, processing_time },
        request.id,
      );
      return {
        success: true as const,
        type: result.type,
        fields: result.fields,
        validation: { mrz: 'not_present' as const, curp: 'not_present' as const, expired: null },
        processing_time,
      };
    },
  });
}
