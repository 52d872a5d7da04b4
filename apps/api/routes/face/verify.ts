import { z } from 'zod';
import { VERIFY_RULE, compareDescriptors } from '../../../../domain/face/verify.ts';
import type { DescriptorJobOutput } from '../../../../models/face/jobs.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';
import { FACE_ERROR_RESPONSES, IMAGE_RULES, ProcessingTime, readFaceForm, runFaceJob } from './shared.ts';
import { secondsSince } from '../../forms.ts';
import { faceJobs } from '../../../capabilities/face.ts';

export const FaceVerifyResponse = z.object({
  success: z.literal(true),
  data: z.object({
    verified: z.boolean().describe('The two faces belong to the same person (distance <= threshold)').meta({ example: true }),
    confidence: z.number().min(0).max(1).describe('Confidence in the decision: 0.5 at the threshold, towards 1 further from it').meta({ example: 0.99 }),
    distance: z.number().describe('Fused face distance, lower is more similar (see docs/face.md)').meta({ example: 0.57 }),
    threshold: z.number().describe('Threshold used for the decision').meta({ example: VERIFY_RULE.threshold }),
    model: z.string().describe('Descriptors and metric behind `distance`').meta({ example: VERIFY_RULE.model }),
    processing_time: ProcessingTime,
    face1_detected: z.boolean().describe('A face was found in image1'),
    face2_detected: z.boolean().describe('A face was found in image2'),
  }),
});
export type FaceVerifyResponse = z.infer<typeof FaceVerifyResponse>;

/** `POST /v1/face/verify` (spec, Face recognition). 2 credits. Emits `face.verified`. */
export function registerFaceVerify(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/face/verify',
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['face'],
      summary: 'Compare two faces (1:1)',
      description:
        'multipart: `image1`, `image2` (files, required). Each image must show exactly one face (multiple_faces_detected otherwise; ' +
        'faces under a quarter of the largest face\'s area are ignored). Both images are processed in parallel in the inference ' +
        'workers: detection, 5-point alignment, face-api 128-d and faceres 1024-d descriptors, fused distance against a calibrated ' +
        `threshold. no_face_detected names the image in details.image. Costs 2 credits; emits the face.verified webhook event. ${IMAGE_RULES}`,
      consumes: ['multipart/form-data'],
      response: { 200: FaceVerifyResponse, ...FACE_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const started = performance.now();
      const { images } = await readFaceForm(request, ['image1', 'image2']);
      const [a, b] = await Promise.allSettled([
        runFaceJob(ctx, request, faceJobs['face.descriptor'], { image: images.image1, imageName: 'image1' }),
        runFaceJob(ctx, request, faceJobs['face.descriptor'], { image: images.image2, imageName: 'image2' }),
      ]);
      if (a.status === 'rejected') throw a.reason;
      if (b.status === 'rejected') throw b.reason;
      const decision = compareDescriptors(a.value, b.value);
      const data = {
        verified: decision.verified,
        confidence: decision.confidence,
        distance: decision.distance,
        threshold: decision.threshold,
        model: decision.model,
        processing_time: secondsSince(started),
        face1_detected: true,
        face2_detected: true,
      };
      const auth = request.auth;
      if (!auth) throw new ApiError(401, 'unauthorized', 'Missing credentials');
      await ctx.publishWebhookEvent(auth.tenantId, 'face.verified', {
        verified: data.verified, confidence: data.confidence, distance: data.distance, threshold: data.threshold,
        face1_detected: true, face2_detected: true, request_id: request.id,
      }, request.id);
      return { success: true as const, data };
    },
  });
}
