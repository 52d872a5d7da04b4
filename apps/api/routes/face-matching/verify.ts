import { z } from 'zod';
import { validateSubjectId } from '../../../../domain/face-matching/enroll-face.ts';
import { checkThreshold } from '../../../../domain/face-matching/search-faces.ts';
import { verifySubject } from '../../../../domain/face-matching/verify-subject.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { errorSchema, faceMatchingDeps, imageErrorResponses, imageOf, readFaceForm, run, templateOf } from './common.ts';
import { numberField, secondsSince } from '../../forms.ts';

export const VerifyResponse = z.object({
  success: z.literal(true),
  verified: z.boolean().describe('`similarity >= threshold`.'),
  similarity: z.number().describe('Best similarity over the subject\'s embeddings, 0-1, higher is more similar.'),
  threshold: z.number(),
  embeddingId: z.string().describe('The embedding that gave the best similarity.'),
  enrollmentSource: z.string().nullable(),
  processing_time: z.number().describe('Seconds.'),
});
const Params = z.object({ subjectId: z.string().min(1).max(256).describe('The `subject_id` used at enrollment.') });

/** `POST /v1/face-matching/verify/:subjectId` (2 credits): 1:1 verification against one subject. */
export function registerFaceMatchingVerify(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/face-matching/verify/:subjectId',
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['face-matching'],
      summary: 'Verify a face against one subject (1:1)',
      description: 'multipart/form-data: `image` file (required), `threshold` minimum similarity 0-1 (default 0.6). A success counts in the listing\'s `verification_count`.',
      consumes: ['multipart/form-data'],
      params: Params,
      response: {
        200: VerifyResponse,
        ...imageErrorResponses,
        404: errorSchema(['subject_not_found']).describe('`subject_not_found`: your account has no active embedding under this subject id.'),
      },
    },
    handler: async (request) => {
      const start = performance.now();
      const { subjectId } = request.params as z.infer<typeof Params>;
      const form = await readFaceForm(request);
      const image = imageOf(form);
      const threshold = numberField(form.fields, 'threshold', { min: 0, max: 1 });
      await run(async () => {
        validateSubjectId(subjectId, 'subjectId');
        checkThreshold(threshold);
      });
      const { template } = await templateOf(ctx, image);
      const r = await run(() => verifySubject(faceMatchingDeps(ctx), { tenantId: request.auth!.tenantId, subjectId, template, threshold, requestId: request.id }));
      return { success: true as const, ...r, processing_time: secondsSince(start) };
    },
  });
}
