import { z } from 'zod';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, checkThreshold, searchFaces } from '../../../../domain/face-matching/search-faces.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { faceMatchingDeps, imageErrorResponses, imageOf, readFaceForm, run, templateOf } from './common.ts';
import { numberField, secondsSince } from '../../forms.ts';

export const FaceMatchSchema = z.object({
  id: z.string().describe('Embedding id.'),
  subject_id: z.string(),
  similarity: z.number().describe('0-1, higher is more similar; calibrated so 0.6 is the balanced operating point.').meta({ example: 0.87 }),
  quality_score: z.number().nullable(),
  liveness_score: z.number().nullable(),
  enrollment_source: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string().describe('ISO 8601 enrollment time.'),
});

export const SearchResponse = z.object({
  success: z.literal(true),
  matches: z.array(FaceMatchSchema).describe('Best first (by `similarity`), only those with `similarity >= thresholdUsed`.'),
  matchCount: z.number().int(),
  thresholdUsed: z.number(),
  processing_time: z.number().describe('Seconds.'),
});

/** `POST /v1/face-matching/search` (2 credits): 1:N search of the probe face among the caller's embeddings. */
export function registerFaceMatchingSearch(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/face-matching/search',
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['face-matching'],
      summary: 'Search your enrolled faces (1:N)',
      description:
        `multipart/form-data: \`image\` file (required), \`threshold\` minimum similarity 0-1 (default 0.6; higher is stricter), ` +
        `\`limit\` 1-${MAX_SEARCH_LIMIT} (default ${DEFAULT_SEARCH_LIMIT}). Only your account's embeddings are searched.`,
      consumes: ['multipart/form-data'],
      response: { 200: SearchResponse, ...imageErrorResponses },
    },
    handler: async (request) => {
      const start = performance.now();
      const form = await readFaceForm(request);
      const image = imageOf(form);
      const threshold = numberField(form.fields, 'threshold', { min: 0, max: 1 });
      const limit = numberField(form.fields, 'limit', { min: 1, max: MAX_SEARCH_LIMIT, integer: true });
      await run(async () => checkThreshold(threshold));
      const { template } = await templateOf(ctx, image);
      const r = await run(() => searchFaces(faceMatchingDeps(ctx), { tenantId: request.auth!.tenantId, template, threshold, limit }));
      return { success: true as const, matches: r.matches, matchCount: r.matches.length, thresholdUsed: r.threshold, processing_time: secondsSince(start) };
    },
  });
}
