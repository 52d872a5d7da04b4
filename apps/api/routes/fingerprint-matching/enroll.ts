import { z } from 'zod';
import { enrollFingerprint, parseFingerPosition, parseMetadata, validateSubjectId } from '../../../../domain/fingerprint/use-cases.ts';
import type { ApiApp } from '../../types.ts';
import { recordUsageSubject } from '../../edge.ts';
import type { Platform } from '../../../platform/types.ts';
import { secondsSince } from '../../forms.ts';
import { field, fingerprintDeps, probeErrorResponses, probeOf, PROBE_FIELDS, readForm, run } from './common.ts';

export const EnrollResponse = z.object({
  success: z.literal(true),
  templateId: z.string().meta({ example: 'fpt_3f1c9a0e5b7d4c2a9e8f1b2c3d4e5f60' }),
  subjectId: z.string(),
  fingerPosition: z.number().int().describe('ANSI/NIST-ITL finger code 0-10 (0 unknown, 1 right thumb ... 10 left little).'),
  minutiaeCount: z.number().int(),
  qualityScore: z.number().int().describe('NFIQ-style quality 0-100 (ours; docs/fingerprint.md).'),
  source: z.enum(['image', 'iso']),
  processing_time: z.number().describe('Seconds.'),
});

/** `POST /v1/fingerprint-matching/enroll` (2 credits). */
export function registerFingerprintEnroll(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/v1/fingerprint-matching/enroll',
    config: { auth: { permission: 'write' }, rateClass: 'heavy', errorShape: 'structured' },
    schema: {
      tags: ['fingerprint-matching'],
      summary: 'Enroll a fingerprint template under a subject',
      description: `multipart/form-data: ${PROBE_FIELDS}; \`subject_id\` (required, 1-256 characters); \`finger_position\` (0-10, ANSI/NIST-ITL codes, default 0 or the ISO record's); \`metadata\` (optional JSON object string, at most 16 KiB).`,
      consumes: ['multipart/form-data'],
      response: { 200: EnrollResponse, ...probeErrorResponses },
    },
    handler: async (request) => {
      const start = performance.now();
      const form = await readForm(request);
      const subjectId = field(form, 'subject_id') ?? '';
      recordUsageSubject(request, subjectId); // its usage row names the subject (erasure clears its address)
      const fp = field(form, 'finger_position');
      const { metadata, fingerPosition } = await run(() => {
        validateSubjectId(subjectId);
        return { metadata: parseMetadata(field(form, 'metadata')), fingerPosition: parseFingerPosition(fp) };
      });
      const probe = await probeOf(ctx, form);
      const finger = fp === undefined && probe.fingerPosition !== undefined ? probe.fingerPosition : fingerPosition;
      const r = await run(() => enrollFingerprint(fingerprintDeps(ctx), { tenantId: request.auth!.tenantId, subjectId, fingerPosition: finger, template: probe.template, source: probe.source, metadata, requestId: request.id }));
      return {
        success: true as const, templateId: r.templateId, subjectId, fingerPosition: finger, minutiaeCount: probe.template.minutiae.length,
        qualityScore: probe.template.quality, source: probe.source, processing_time: secondsSince(start),
      };
    },
  });
}
