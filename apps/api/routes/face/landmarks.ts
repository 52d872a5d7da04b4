import { z } from 'zod';
import type { LandmarksJobOutput } from '../../../../models/face/jobs.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';
import { FACE_ERROR_RESPONSES, IMAGE_RULES, Point, ProcessingTime, Region, readFaceForm, runFaceJob } from './shared.ts';
import { secondsSince, singleField } from '../../forms.ts';
import { faceJobs } from '../../../capabilities/face.ts';

export const FaceLandmarksResponse = z.object({
  success: z.literal(true),
  data: z.object({
    landmarks: z.object({
      left_eye: Point.describe('Centre of the subject\'s left eye'),
      right_eye: Point.describe('Centre of the subject\'s right eye'),
      nose_tip: Point,
      mouth_left: Point.describe('Subject\'s left mouth corner'),
      mouth_right: Point.describe('Subject\'s right mouth corner'),
      chin: Point,
      left_eyebrow: z.array(Point).describe('Subject\'s left eyebrow, inner to outer (5 points; 2 with model 5_point)'),
    }),
    face_region: Region,
    model: z.enum(['68_point', '5_point']).describe('Landmark model used'),
    processing_time: ProcessingTime,
  }),
});
export type FaceLandmarksResponse = z.infer<typeof FaceLandmarksResponse>;

/** `POST /v1/face/landmarks` (spec, Face recognition). 1 credit, heavy rate class. */
export function registerFaceLandmarks(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/face/landmarks',
    config: { auth: { permission: 'read' }, rateClass: 'heavy', errorShape: 'structured' },
    schema: {
      tags: ['face'],
      summary: 'Facial landmarks of one face',
      description:
        'multipart: `image` (file, required), `model` (`68_point` default, or `5_point`). Points come from the iBUG 300-W 68-point fit ' +
        'or the 5-point set (eyes, nose tip, mouth corners), in original-image pixels after EXIF orientation, clamped to the image. ' +
        `Expects exactly one face (multiple_faces_detected otherwise). Heavy operation. Costs 1 credit. ${IMAGE_RULES}`,
      consumes: ['multipart/form-data'],
      response: { 200: FaceLandmarksResponse, ...FACE_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const started = performance.now();
      const { images, fields } = await readFaceForm(request, ['image']);
      const model = singleField(fields, 'model') || '68_point';
      if (model !== '68_point' && model !== '5_point') {
        throw new ApiError(400, 'invalid_request', '`model` must be 68_point or 5_point', { field: 'model', allowed: ['68_point', '5_point'] });
      }
      const out = await runFaceJob(ctx, request, faceJobs['face.landmarks'], { image: images.image, model });
      return { success: true as const, data: { ...out, processing_time: secondsSince(started) } };
    },
  });
}
