import { z } from 'zod';
import { OcrError } from '../../../../domain/ocr/errors.ts';
import { runJob } from '../../../../infra/ports/job-queue.ts';
import type { ExtractIdOutput } from '../../../../models/ocr/jobs.ts';
import { ocrJobs, type OcrUseCases } from '../../../capabilities/ocr.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { AuthenticityResultSchema, IdentityValidationSchema, OCR_JSON_BODY_LIMIT, OcrErrorSchema, mapJobError, ocrError, ocrSubjectId, parseBool, readOcrInput, todayOf } from './common.ts';

/** The API's one convention for `gender`, on both document types (spec: INE `H` or `M`). */
const GENDER_DOC = "Sex as the INE writes it: `H` (hombre, male) or `M` (mujer, female); '' when it could not be read.";

const S = (d: string, example?: string) => (example ? z.string().describe(d).meta({ example }) : z.string().describe(d));

const IneFieldsSchema = z.object({
  curp: S('CURP (18 characters) as printed.', 'PEMA900102HDFXXN05'),
  claveElector: S('Clave de elector (18 characters).', 'PEMUAN90010209H300'),
  name: S('Given names.', 'JOSÉ ÁNGEL'),
  firstSurname: S('First (paternal) surname.', 'PEÑA'),
  secondSurname: S('Second (maternal) surname.', 'MUÑOZ'),
  surname: S('Both surnames.', 'PEÑA MUÑOZ'),
  dateOfBirth: S('YYYY-MM-DD; from the MRZ with a back, else from the CURP.', '1990-01-02'),
  dateOfExpiry: S('Year the credential is valid through (VIGENCIA), e.g. 2030.', '2030'),
  gender: S(GENDER_DOC, 'H'),
  address: S('Full address as printed.'),
  detailAddress: z.object({ streetAndNumber: z.string(), colony: z.string(), zipCode: z.string(), city: z.string(), state: z.string() }),
  section: S('Electoral section (4 digits).', '0423'),
  mrz: S('MRZ of the back, lines separated by newline (empty without a back).'),
  documentVersion: S('Credential model letter (A-G).', 'G'),
});

const PassportFieldsSchema = z.object({
  curp: z.string(),
  documentNumber: z.string(),
  name: z.string(),
  firstSurname: z.string(),
  secondSurname: z.string(),
  surname: z.string(),
  dateOfBirth: z.string(),
  dateOfExpiry: z.string(),
  gender: S(`${GENDER_DOC} Passports use the same letters as the INE: the MRZ's \`M\` (male) is returned as \`H\` and its \`F\` (female) as \`M\`; an MRZ \`X\` or \`<\` (unspecified) is returned as ''.`, 'M'),
  nationality: z.string(),
  issuingCountry: z.string(),
  mrz: z.string(),
  documentVersion: z.string(),
});

export const ExtractIdResponse = z.object({
  success: z.literal(true),
  type: z.enum(['ine', 'passport']),
  fields: z.union([IneFieldsSchema, PassportFieldsSchema]),
  validation: IdentityValidationSchema,
  processing_time: z.number().describe('Seconds.'),
  authenticity: AuthenticityResultSchema.optional(),
});
export type ExtractIdResponse = z.infer<typeof ExtractIdResponse>;

const FILE_FIELDS = ['front', 'image', 'back'] as const;

/**
 * `POST /v1/ocr/extract/id` (3 credits): INE (front, optional back) or passport. Multipart files or a JSON
 * body with base64 strings. With `include_authenticity=true` the authenticity job runs in parallel.
 * Emits `ocr.completed` and `ocr.id.extracted`, with nothing of the document's holder (the event log is not a
 * PII store; issue 28). An optional `subject_id` tags the answer an `Idempotency-Key` stores, for erasure.
 */
export function registerOcrExtractId(app: ApiApp, ctx: Platform, ocr: OcrUseCases): void {
  app.route({
    method: 'POST',
    url: '/v1/ocr/extract/id',
    bodyLimit: OCR_JSON_BODY_LIMIT,
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'flat' },
    schema: {
      tags: ['ocr'],
      summary: 'Extract an identity document (INE or passport)',
      description:
        'multipart/form-data or application/json (base64). Fields: front (or image) required; back optional (INE: enables MRZ validation, authoritative name and date of birth); ' +
        'document_type ine (default) or passport; include_authenticity boolean; subject_id optional (ties the answer stored for an Idempotency-Key to a data subject, ' +
        'so an erasure of that subject removes it). Files: JPG, PNG or PDF, 10 MB each. Errors use the flat shape.',
      response: { 200: ExtractIdResponse, 400: OcrErrorSchema, 413: OcrErrorSchema, 503: OcrErrorSchema },
    },
    handler: async (request) => {
      const started = performance.now();
      const input = await readOcrInput(request, FILE_FIELDS);
      const docType = (input.fields.get('document_type') ?? 'ine').trim().toLowerCase() || 'ine';
      if (docType !== 'ine' && docType !== 'passport') {
        throw ocrError('unsupported_document_type', `document_type ${JSON.stringify(docType.slice(0, 40))} is not supported: use ine (the default) or passport.`);
      }
      const front = input.files.get('front') ?? input.files.get('image');
      if (!front) throw ocrError('image_required', 'Send the document image as front (or image): a file or a base64 string.');
      ocrSubjectId(request, input);
      const back = docType === 'ine' ? (input.files.get('back') ?? null) : null;
      const withAuth = parseBool('include_authenticity', input.fields.get('include_authenticity'));
      const today = todayOf(ctx.clock.now());

      // INE: the shared orchestration (`domain/ocr/extract-ine.ts`, also run by the evaluation scripts):
      // with a back, the two sides are read on two workers in parallel and combined there.
      const extract: Promise<ExtractIdOutput> =
        docType === 'ine'
          ? ocr.extractIne({ front: new Uint8Array(front), back: back ? new Uint8Array(back) : null, today }).catch((e: unknown) => {
              if (e instanceof OcrError) throw ocrError(e.code, e.message, e.details);
              throw e;
            })
          : runJob(ctx.jobs, ocrJobs['ocr.extractId'], { front: new Uint8Array(front), back: null, documentType: docType, today });
      const authStarted = performance.now();
      const auth = withAuth
        ? runJob(ctx.jobs, ocrJobs['ocr.authenticity'], { image: new Uint8Array(front), back: back ? new Uint8Array(back) : null, documentType: docType, today })
            .then(
              (v) => ({ success: true, validity_check: { is_authentic: v.is_authentic, confidence: v.confidence, tampering_detected: v.tampering_detected, quality_score: v.quality_score, method: v.method }, processing_time: (performance.now() - authStarted) / 1000 }),
              (e: unknown) => {
                const err = mapJobError(e);
                return { success: false, error: err.code, message: err.message, processing_time: (performance.now() - authStarted) / 1000 };
              },
            )
        : null;
      let result: ExtractIdOutput;
      try {
        result = await extract;
      } catch (e) {
        await auth;
        throw mapJobError(e);
      }
      const authenticity = auth ? await auth : undefined;
      const processing_time = Math.round(performance.now() - started) / 1000;
      const tenantId = request.auth!.tenantId;
      const f = result.fields as unknown as Record<string, unknown>;
      // Nothing of the holder: not even a masked CURP (its first 4 letters are the name's initials).
      await ctx.publishWebhookEvent(
        tenantId,
        'ocr.completed',
        { operation: 'extract_id', document_type: result.type, success: true, validation: result.validation, processing_time },
        request.id,
      );
      await ctx.publishWebhookEvent(
        tenantId,
        'ocr.id.extracted',
        {
          document_type: result.type,
          document_version: f.documentVersion ?? '',
          validation: result.validation,
          has_back: Boolean(back),
          ...(authenticity && 'validity_check' in authenticity ? { is_authentic: authenticity.validity_check.is_authentic } : {}),
        },
        request.id,
      );
      return {
        success: true as const,
        type: result.type,
        fields: result.fields,
        validation: result.validation,
        processing_time,
        ...(authenticity ? { authenticity } : {}),
      };
    },
  });
}
