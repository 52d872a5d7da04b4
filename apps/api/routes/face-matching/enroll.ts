import { z } from 'zod';
import { enrollFace, parseMetadata, validateSubjectId } from '../../../../domain/face-matching/enroll-face.ts';
import type { ApiApp } from '../../types.ts';
import { recordUsageSubject } from '../../edge.ts';
import type { Platform } from '../../../platform/types.ts';
import { faceMatchingDeps, field, imageErrorResponses, imageOf, readFaceForm, run, templateOf } from './common.ts';
import { numberField, secondsSince } from '../../forms.ts';

export const EnrollResponse = z.object({
  success: z.literal(true),
  embeddingId: z.string().describe('Id of the new embedding (`id` in listings and matches).').meta({ example: 'emb_3f1c9a0e5b7d4c2a9e8f1b2c3d4e5f60' }),
  subjectId: z.string().describe('The `subject_id` it was enrolled under.').meta({ example: 'user-8841' }),
  embeddingDimension: z.literal(512).describe('Always 512 (the fused template; see docs/face-matching.md).'),
  processing_time: z.number().describe('Seconds.').meta({ example: 0.84 }),
  qualityScore: z.number().nullable().describe('Quality stored with the embedding: the client\'s `quality_score`, else the measured face quality (0-1).'),
  livenessScore: z.number().describe('Liveness stored with the embedding: the client\'s `liveness_score`, else computed.'),
  livenessScoreSource: z.enum(['client', 'computed']).describe('`computed` when no `liveness_score` was sent and the service ran its liveness check (face group\'s anti-spoofing score).'),
});

/**
 * `POST /v1/face-matching/enroll` (2 credits): multipart `image` (one face), `subject_id`, optional
 * `quality_score`, `liveness_score` (computed when absent, and said so), `enrollment_source`, `metadata`
 * (a JSON object string). Appends `FaceEmbeddingEnrolled`; the embedding is searchable on return.
 */
export function registerFaceMatchingEnroll(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/face-matching/enroll',
    config: { auth: { permission: 'write' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['face-matching'],
      summary: 'Enroll a face embedding under a subject',
      description:
        'multipart/form-data: `image` file (required; JPG, PNG or WebP, at most 5 MB, exactly one face), `subject_id` (required, 1-256 characters, ' +
        'unique only within your account), `quality_score` and `liveness_score` (optional numbers 0-1; liveness is computed when absent), ' +
        '`enrollment_source` (optional text), `metadata` (optional JSON object string, at most 16 KiB).',
      consumes: ['multipart/form-data'],
      response: { 200: EnrollResponse, ...imageErrorResponses },
    },
    handler: async (request) => {
      const start = performance.now();
      const form = await readFaceForm(request);
      const image = imageOf(form);
      const deps = faceMatchingDeps(ctx);
      const subjectId = field(form, 'subject_id') ?? '';
      recordUsageSubject(request, subjectId); // its usage row names the subject (erasure clears its address)
      const qualityScore = numberField(form.fields, 'quality_score', { min: 0, max: 1 });
      const clientLiveness = numberField(form.fields, 'liveness_score', { min: 0, max: 1 });
      const metadata = await run(async () => parseMetadata(field(form, 'metadata')));
      const source = field(form, 'enrollment_source');
      // Validate the cheap fields before running inference.
      await run(async () => validateSubjectId(subjectId));
      // one job: the descriptors and, when the client sent no score, liveness from the same decoded image
      const { template, quality, liveness: computedLiveness } = await templateOf(ctx, image, { liveness: clientLiveness === undefined });
      const liveness = clientLiveness ?? computedLiveness!;
      const result = await run(() =>
        enrollFace(deps, {
          tenantId: request.auth!.tenantId,
          subjectId,
          template,
          qualityScore: qualityScore ?? quality,
          livenessScore: liveness,
          livenessComputed: clientLiveness === undefined,
          enrollmentSource: source ?? null,
          metadata,
          requestId: request.id,
        }),
      );
      return {
        success: true as const,
        embeddingId: result.embeddingId,
        subjectId: result.subjectId,
        embeddingDimension: 512 as const,
        processing_time: secondsSince(start),
        qualityScore: qualityScore ?? quality,
        livenessScore: liveness,
        livenessScoreSource: clientLiveness === undefined ? ('computed' as const) : ('client' as const),
      };
    },
  });
}
