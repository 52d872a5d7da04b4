import { z } from 'zod';
import type { AnalyzeJobOutput } from '../../../../models/face/jobs.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { ApiError } from '../../errors.ts';
import { FACE_ERROR_RESPONSES, IMAGE_RULES, ProcessingTime, Region, readFaceForm, runFaceJob } from './shared.ts';
import { secondsSince } from '../../forms.ts';
import { faceJobs } from '../../../capabilities/face.ts';

/** Attributes `analyze` can estimate. */
export const ANALYZE_ATTRIBUTES = ['age', 'gender', 'emotion', 'race'] as const;
type Attribute = (typeof ANALYZE_ATTRIBUTES)[number];

const Emotions = z.object({
  happy: z.number(), neutral: z.number(), surprise: z.number(), sad: z.number(), angry: z.number(), disgust: z.number(), fear: z.number(),
}).describe('Probability of each of the seven emotions (sum 1)');

export const FaceAnalyzeResponse = z.object({
  success: z.literal(true),
  data: z.object({
    age: z.number().optional().describe('Estimated age in years').meta({ example: 27 }),
    gender: z.object({
      prediction: z.string().describe('`Man` or `Woman`').meta({ example: 'Woman' }),
      confidence: z.number().describe('Probability of the prediction, 0.5-1').meta({ example: 0.95 }),
    }).optional(),
    emotion: z.object({
      dominant_emotion: z.string().describe('The most probable of the seven emotions').meta({ example: 'neutral' }),
      emotions: Emotions,
    }).optional(),
    race: z.object({
      dominant_race: z.string().describe('Most probable class').meta({ example: 'white' }),
      races: z.object({ white: z.number(), black: z.number(), asian: z.number(), indian: z.number(), other: z.number() })
        .describe('Probabilities of the GEAR model\'s five classes (white, black, asian, indian, other); see docs/face.md for its limits'),
    }).optional(),
    region: Region,
    processing_time: ProcessingTime,
  }),
});
export type FaceAnalyzeResponse = z.infer<typeof FaceAnalyzeResponse>;

/**
 * Reads `attributes` (or its alias `actions`): a JSON-array string (`["age","gender"]`), repeated fields,
 * or a comma-separated list. Absent or empty means all four. 400 `invalid_request` for unknown names.
 */
export function parseAttributes(fields: Map<string, string[]>): Attribute[] {
  const raw = [...(fields.get('attributes') ?? []), ...(fields.get('actions') ?? [])];
  const names: string[] = [];
  for (const value of raw) {
    const v = value.trim();
    if (v.startsWith('[')) {
      let parsed: unknown;
      try { parsed = JSON.parse(v); } catch { throw new ApiError(400, 'invalid_request', '`attributes` is not a valid JSON array', { field: 'attributes' }); }
      if (!Array.isArray(parsed) || parsed.some((x) => typeof x !== 'string')) {
        throw new ApiError(400, 'invalid_request', '`attributes` must be an array of strings', { field: 'attributes' });
      }
      names.push(...(parsed as string[]));
    } else {
      names.push(...v.split(',').map((s) => s.trim()).filter(Boolean));
    }
  }
  const unknown = names.filter((n) => !(ANALYZE_ATTRIBUTES as readonly string[]).includes(n.toLowerCase()));
  if (unknown.length) {
    throw new ApiError(400, 'invalid_request', `Unknown attribute(s): ${unknown.slice(0, 5).map((u) => u.slice(0, 20)).join(', ')}`, {
      field: 'attributes', allowed: [...ANALYZE_ATTRIBUTES],
    });
  }
  const set = new Set(names.map((n) => n.toLowerCase() as Attribute));
  return set.size ? [...set] : [...ANALYZE_ATTRIBUTES];
}

/** `POST /v1/face/analyze` (spec, Face recognition). 1 credit, heavy rate class. */
export function registerFaceAnalyze(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/face/analyze',
    config: { auth: { permission: 'read' }, rateClass: 'heavy', errorShape: 'structured' },
    schema: {
      tags: ['face'],
      summary: 'Estimate age, gender, emotion and race of one face',
      description:
        'multipart: `image` (file, required), `attributes` (alias `actions`): names from age, gender, emotion, race, sent as a JSON-array ' +
        'string, repeated fields or a comma-separated list (default all). Expects exactly one face (multiple_faces_detected otherwise). ' +
        'Only the requested attributes appear; `region` is in original-image pixels after EXIF orientation. Race uses the GEAR model\'s ' +
        `classes white, black, asian, indian, other. Heavy operation (half the plan's per-minute limit). Costs 1 credit. ${IMAGE_RULES}`,
      consumes: ['multipart/form-data'],
      response: { 200: FaceAnalyzeResponse, ...FACE_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const started = performance.now();
      const { images, fields } = await readFaceForm(request, ['image']);
      const attributes = parseAttributes(fields);
      const out = await runFaceJob(ctx, request, faceJobs['face.analyze'], { image: images.image, attributes });
      return { success: true as const, data: { ...out, processing_time: secondsSince(started) } };
    },
  });
}
