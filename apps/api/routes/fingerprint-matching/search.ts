import { z } from 'zod';
import { checkThreshold, LIMITS, searchFingerprints } from '../../../../domain/fingerprint/use-cases.ts';
import { DEFAULT_THRESHOLD } from '../../../../domain/fingerprint/score.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { numberField, secondsSince } from '../../forms.ts';
import { fingerprintDeps, probeErrorResponses, probeOf, PROBE_FIELDS, readForm, run } from './common.ts';

const CandidateSchema = z.object({
  templateId: z.string(),
  subjectId: z.string(),
  fingerPosition: z.number().int(),
  score: z.number().describe('Calibrated 0-100: 40 ≈ 1% false match rate, 60 ≈ 0.1% (docs/fingerprint.md).'),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
const SearchResponse = z.object({
  success: z.literal(true),
  candidates: z.array(CandidateSchema).describe('Best first, only `score >= thresholdUsed`.'),
  candidateCount: z.number().int(),
  thresholdUsed: z.number(),
  gallerySize: z.number().int().describe('Active templates in your account.'),
  processing_time: z.number().describe('Seconds.'),
});

/** `POST /v1/fingerprint-matching/search` (2 credits): 1:N among the caller's templates. */
export function registerFingerprintSearch(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/fingerprint-matching/search',
    config: { auth: { permission: 'read' }, rateClass: 'heavy', errorShape: 'structured' },
    schema: {
      tags: ['fingerprint-matching'],
      summary: 'Search your enrolled fingerprints (1:N)',
      description: `multipart/form-data: ${PROBE_FIELDS}; \`threshold\` 0-100 (default ${DEFAULT_THRESHOLD}); \`limit\` 1-${LIMITS.maxSearchLimit} (default ${LIMITS.defaultSearchLimit}).`,
      consumes: ['multipart/form-data'],
      response: { 200: SearchResponse, ...probeErrorResponses },
    },
    handler: async (request) => {
      const start = performance.now();
      const form = await readForm(request);
      const threshold = numberField(form.fields, 'threshold', { min: 0, max: 100 });
      const limit = numberField(form.fields, 'limit', { min: 1, max: LIMITS.maxSearchLimit, integer: true });
      await run(() => checkThreshold(threshold));
      const probe = await probeOf(ctx, form);
      const r = await run(() => searchFingerprints(fingerprintDeps(ctx), { tenantId: request.auth!.tenantId, template: probe.template, threshold, limit }));
      const candidates = r.candidates.map((c) => ({ templateId: c.template_id, subjectId: c.subject_id, fingerPosition: c.finger_position, score: c.score, metadata: c.metadata, created_at: c.created_at }));
      return { success: true as const, candidates, candidateCount: candidates.length, thresholdUsed: r.threshold, gallerySize: r.gallerySize, processing_time: secondsSince(start) };
    },
  });
}
