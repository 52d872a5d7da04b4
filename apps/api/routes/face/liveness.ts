import { z } from 'zod';
import type { LivenessJobOutput } from '../../../../models/face/jobs.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';
import { FACE_ERROR_RESPONSES, IMAGE_RULES, ProcessingTime, readFaceForm, runFaceJob } from './shared.ts';
import { numberField, secondsSince } from '../../forms.ts';
import { faceJobs } from '../../../capabilities/face.ts';

export const FaceLivenessResponse = z.object({
  success: z.literal(true),
  data: z.object({
    is_live: z.boolean().describe('anti_spoofing_score >= threshold').meta({ example: true }),
    confidence: z.number().min(0).max(1).describe('Confidence in the decision: 0.5 at the threshold, 1 at the far end of the scale').meta({ example: 0.88 }),
    anti_spoofing_score: z.number().min(0).max(1).describe('Weighted mean of the three checks (1 = live)').meta({ example: 0.88 }),
    threshold: z.number().describe('Threshold used (default 0.5)').meta({ example: 0.5 }),
    checks: z.object({
      texture_analysis: z.number().describe('Anti-spoofing CNN on the face texture, 0-1 (1 = live)'),
      depth_analysis: z.number().describe('Liveness CNN scoring flat-presentation cues; a single image has no depth channel, 0-1'),
      motion_analysis: z.number().describe('A still image has no motion: 1 minus the screen/print artefact score (FFT moiré and pixel-grid peaks), 0-1'),
    }),
    processing_time: ProcessingTime,
  }),
});
export type FaceLivenessResponse = z.infer<typeof FaceLivenessResponse>;

/** `POST /v1/face/liveness` (spec, Face recognition). 3 credits, heavy rate class. Emits `face.liveness.detected`. */
export function registerFaceLiveness(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/face/liveness',
    config: { auth: { permission: 'read' }, rateClass: 'heavy', errorShape: 'structured' },
    schema: {
      tags: ['face'],
      summary: 'Passive single-image liveness (anti-spoofing)',
      description:
        'multipart: `image` (file, required), `threshold` (number 0-1, default 0.5). Combines an anti-spoofing texture CNN, a liveness ' +
        'CNN and a frequency-domain screen/print artefact measure aimed at screen replays and prints. Passive single-image liveness is ' +
        'weak against good replays and prints: use it as one signal, not as proof. Expects exactly one face. Heavy operation. Costs 3 ' +
        `credits; emits the face.liveness.detected webhook event. ${IMAGE_RULES}`,
      consumes: ['multipart/form-data'],
      response: { 200: FaceLivenessResponse, ...FACE_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const started = performance.now();
      const { images, fields } = await readFaceForm(request, ['image']);
      const threshold = numberField(fields, 'threshold', { min: 0, max: 1 }) ?? 0.5;
      const out = await runFaceJob(ctx, request, faceJobs['face.liveness'], { image: images.image, threshold });
      const data = {
        is_live: out.is_live, confidence: out.confidence, anti_spoofing_score: out.anti_spoofing_score,
        threshold: out.threshold, checks: out.checks, processing_time: secondsSince(started),
      };
      const auth = request.auth;
      if (!auth) throw new ApiError(401, 'unauthorized', 'Missing credentials');
      await ctx.publishWebhookEvent(auth.tenantId, 'face.liveness.detected', {
        is_live: data.is_live, confidence: data.confidence, anti_spoofing_score: data.anti_spoofing_score,
        threshold: data.threshold, checks: data.checks, request_id: request.id,
      }, request.id);
      return { success: true as const, data };
    },
  });
}
