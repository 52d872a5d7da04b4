import { z } from 'zod';
import { checkThreshold, validateSubjectId, verifyFingerprint } from '../../../../domain/fingerprint/use-cases.ts';
import { DEFAULT_THRESHOLD } from '../../../../domain/fingerprint/score.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { numberField, secondsSince } from '../../forms.ts';
import { errorSchema, fingerprintDeps, probeErrorResponses, probeOf, PROBE_FIELDS, readForm, run } from './common.ts';

const VerifyResponse = z.object({
  success: z.literal(true),
  verified: z.boolean().describe('`score >= threshold`.'),
  score: z.number().describe('Best calibrated score (0-100) over the subject\'s templates.'),
  threshold: z.number(),
  templateId: z.string().describe('The template that gave the best score.'),
  fingerPosition: z.number().int(),
  processing_time: z.number().describe('Seconds.'),
});
const Params = z.object({ subjectId: z.string().min(1).max(256) });

/** `POST /v1/fingerprint-matching/verify/:subjectId` (2 credits): 1:1 against one subject's templates. */
export function registerFingerprintVerify(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/fingerprint-matching/verify/:subjectId',
    config: { auth: { permission: 'read' }, rateClass: 'heavy', errorShape: 'structured' },
    schema: {
      tags: ['fingerprint-matching'],
      summary: 'Verify a fingerprint against one subject (1:1)',
      description: `multipart/form-data: ${PROBE_FIELDS}; \`threshold\` 0-100 (default ${DEFAULT_THRESHOLD}, about 0.1% false match rate).`,
      consumes: ['multipart/form-data'],
      params: Params,
      response: { 200: VerifyResponse, ...probeErrorResponses, 404: errorSchema(['subject_not_found']).describe('No active template under this subject id in your account.') },
    },
    handler: async (request) => {
      const start = performance.now();
      const { subjectId } = request.params as z.infer<typeof Params>;
      const form = await readForm(request);
      const threshold = numberField(form.fields, 'threshold', { min: 0, max: 100 });
      await run(() => { validateSubjectId(subjectId, 'subjectId'); checkThreshold(threshold); });
      const probe = await probeOf(ctx, form);
      const r = await run(() => verifyFingerprint(fingerprintDeps(ctx), { tenantId: request.auth!.tenantId, subjectId, template: probe.template, threshold, requestId: request.id }));
      return { success: true as const, ...r, processing_time: secondsSince(start) };
    },
  });
}
