import { z } from 'zod';
import type { ValidityCheck } from '../../../../domain/ocr/authenticity.ts';
import type { ApiApp } from '../../types.ts';
import { runJob } from '../../../../infra/ports/job-queue.ts';
import { ocrJobs } from '../../../capabilities/ocr.ts';
import type { Platform } from '../../../platform/types.ts';
import { OCR_JSON_BODY_LIMIT, OcrErrorSchema, ValidityCheckSchema, mapJobError, ocrError, ocrSubjectId, readOcrInput, todayOf } from './common.ts';

export const VerifyAuthenticityResponse = z.object({
  success: z.literal(true),
  validity_check: ValidityCheckSchema,
  processing_time: z.number().describe('Seconds.'),
});

/**
 * `POST /v1/ocr/verify/authenticity` (3 credits): authenticity of an INE (front, optional back) or passport
 * image. The score and its signals are documented in docs/ocr.md.
 */
export function registerOcrVerifyAuthenticity(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/ocr/verify/authenticity',
    bodyLimit: OCR_JSON_BODY_LIMIT,
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'flat' },
    schema: {
      tags: ['ocr'],
      summary: 'Check the authenticity of an identity document image',
      description:
        'multipart: image file (required); back (optional INE back), document_type (ine or passport, optional: detected) and subject_id (optional: ties the answer ' +
        'stored for an Idempotency-Key to a data subject, so an erasure of that subject removes it) are accepted too.',
      response: { 200: VerifyAuthenticityResponse, 400: OcrErrorSchema, 413: OcrErrorSchema, 503: OcrErrorSchema },
    },
    handler: async (request) => {
      const started = performance.now();
      const input = await readOcrInput(request, ['image', 'front', 'back']);
      const image = input.files.get('image') ?? input.files.get('front');
      if (!image) throw ocrError('image_required', 'Send the document image as image: a file.');
      const requested = input.fields.get('document_type')?.trim().toLowerCase();
      const dt = requested === 'ine' || requested === 'passport' ? requested : undefined;
      if (requested && !dt) throw ocrError('unsupported_document_type', `document_type must be 'ine' or 'passport'.`);
      ocrSubjectId(request, input);
      const back = input.files.get('back');
      let v: ValidityCheck;
      try {
        v = await runJob(ctx.jobs, ocrJobs['ocr.authenticity'], { image: new Uint8Array(image), back: back ? new Uint8Array(back) : null, documentType: dt, today: todayOf(ctx.clock.now()) });
      } catch (e) {
        throw mapJobError(e);
      }
      const processing_time = Math.round(performance.now() - started) / 1000;
      await ctx.publishWebhookEvent(
        request.auth!.tenantId,
        'ocr.completed',
        { operation: 'verify_authenticity', success: true, is_authentic: v.is_authentic, confidence: v.confidence, processing_time },
        request.id,
      );
      return { success: true as const, validity_check: v, processing_time };
    },
  });
}
