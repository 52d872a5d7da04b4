import { z } from 'zod';
import type { DetectJobOutput } from '../../../../models/face/jobs.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { FACE_ERROR_RESPONSES, IMAGE_RULES, ProcessingTime, Region, readFaceForm, runFaceJob } from './shared.ts';
import { numberField, secondsSince } from '../../forms.ts';
import { faceJobs } from '../../../capabilities/face.ts';

export const FaceDetectResponse = z.object({
  success: z.literal(true),
  data: z.object({
    faces_detected: z.number().int().describe('Number of faces found').meta({ example: 1 }),
    faces: z.array(z.object({
      id: z.number().int().describe('1-based index, best detector score first').meta({ example: 1 }),
      region: Region,
      confidence: z.number().min(0).max(1).describe('Detector score').meta({ example: 0.9965 }),
    })),
    processing_time: ProcessingTime,
  }),
});
export type FaceDetectResponse = z.infer<typeof FaceDetectResponse>;

/** `POST /v1/face/detect` (spec, Face recognition). 1 credit. */
export function registerFaceDetect(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/face/detect',
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['face'],
      summary: 'Detect every face in an image',
      description:
        'multipart: `image` (file, required), `min_confidence` (number 0-1, optional, default 0.5). Lists every face of at least ' +
        '80x80 px with its region and detector score; several faces are expected here (no multiple_faces_detected). ' +
        `An image with no face is no_face_detected; one whose faces are all under 80x80 px is insufficient_quality. Costs 1 credit. ${IMAGE_RULES}`,
      consumes: ['multipart/form-data'],
      response: { 200: FaceDetectResponse, ...FACE_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const started = performance.now();
      const { images, fields } = await readFaceForm(request, ['image']);
      const minConfidence = numberField(fields, 'min_confidence', { min: 0, max: 1 });
      const out = await runFaceJob(ctx, request, faceJobs['face.detect'], { image: images.image, minConfidence, imageName: 'image' });
      return { success: true as const, data: { faces_detected: out.faces.length, faces: out.faces, processing_time: secondsSince(started) } };
    },
  });
}
