import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { SigningService } from '../../../../workflows/signing/service.ts';
import { ApiError } from '../../errors.ts';
import { MAX_PDF_BYTES } from '../../../../domain/signing/errors.ts';
import { hasControlCharacters } from '../../../../domain/shared/text.ts';
import { ErrorBody } from '../../error-schemas.ts';
import { DocumentView, LIMITS_TEXT, SIGNING_ERRORS, SignerInputSchema, actor, mapSigningErrors, type LinkOriginOf, parseExpiresIn, parseNotifyEmail, parseSigners } from './shared.ts';
import { LOCALE_TEXT, assertPrintable, parseLanguageField, parseTimeZoneField } from './locale-fields.ts';

export const CreateAltBody = z.object({
  document: z.string().min(1).describe('The PDF, base64 (a `data:application/pdf;base64,` prefix is accepted)'),
  title: z.string().trim().min(1).max(200).refine((v) => !hasControlCharacters(v), 'must not contain control characters (CR, LF, tab...)').optional().describe('Title; default: the first signer\'s `title` or "Document"'),
  signers: z.array(SignerInputSchema.extend({ title: z.string().trim().min(1).max(200).refine((v) => !hasControlCharacters(v), 'must not contain control characters').optional(), message: z.string().max(4000).optional() }).passthrough()).min(1).describe('Signers; `title`/`message` of the first signer are used as the document\'s when no top-level ones are given'),
  message: z.string().max(4000).optional(),
  description: z.string().max(2000).optional(),
  expires_in: z.string().optional().describe('Lifetime: `<n>d` (days) or `<n>h` (hours); default 30 days').meta({ example: '7d' }),
  notify_email: z.string().max(254).optional(),
  language: z.string().max(40).optional().describe('`es` (Spanish, Mexico; default: the tenant\'s setting, else `es`) or `en`').meta({ example: 'es' }),
  time_zone: z.string().max(64).optional().describe('IANA time zone of the dates signers read (default: the tenant\'s setting, else America/Mexico_City)').meta({ example: 'America/Mexico_City' }),
  send: z.boolean().default(true).describe('Send the invitations at once (default true): the alternative path is create-and-send'),
});

export const CreateAltResponse = z.object({ success: z.literal(true), data: DocumentView });

/**
 * `POST /v1/signing/create` (spec, alternative path; body "not shown": designed here). JSON with the PDF
 * in base64; creates the document and, unless `send` is false, sends the invitations (status `sent`).
 */
export function registerCreateAlt(app: ApiApp, service: SigningService, originOf: LinkOriginOf): void {
  app.route({
    method: 'POST',
    url: '/v1/signing/create',
    bodyLimit: Math.ceil((MAX_PDF_BYTES * 4) / 3) + 256 * 1024,
    config: { auth: { permission: 'write' }, billing: { cost: 5 }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['signing'],
      summary: 'Create and send a signing document (JSON, base64 PDF)',
      description: `Alternative path. \`document\` is the PDF in base64; \`expires_in\` like \`7d\`. Answers like GET /v1/signing/documents/{id} (201). ${LOCALE_TEXT} ${LIMITS_TEXT} Costs 5 credits.`,
      body: CreateAltBody,
      response: { 201: CreateAltResponse, ...SIGNING_ERRORS, 422: ErrorBody },
    },
    handler: async (request, reply) => {
      const body = request.body as z.infer<typeof CreateAltBody>;
      const b64 = body.document.replace(/^data:application\/pdf;base64,/, '').replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) throw new ApiError(400, 'pdf_corrupted', '`document` is not base64', { field: 'document' });
      const pdf = Buffer.from(b64, 'base64');
      if (pdf.length > MAX_PDF_BYTES) throw new ApiError(413, 'pdf_too_large', `The PDF is larger than ${MAX_PDF_BYTES / 1024 / 1024} MiB`, { max_bytes: MAX_PDF_BYTES });
      const signers = parseSigners(body.signers.map(({ email, name, role, order, fields, signature_type, rfc, curp }) => ({ email, name, role, order, fields, signature_type, rfc, curp })));
      const language = parseLanguageField(body.language);
      const timeZone = parseTimeZoneField(body.time_zone);
      const title = body.title ?? body.signers[0]?.title ?? 'Document';
      assertPrintable(title, signers);
      const tenantId = request.auth!.tenantId;
      const created = await mapSigningErrors(() =>
        service.create({
          tenantId,
          user: actor(request),
          title,
          description: body.description ?? null,
          message: body.message ?? body.signers[0]?.message ?? null,
          notifyEmail: parseNotifyEmail(body.notify_email),
          expiresAt: parseExpiresIn(body.expires_in, Date.now()),
          fileName: 'document.pdf',
          pdf,
          signers,
          language,
          timeZone,
          origin: originOf(request),
        }),
      );
      if (body.send) await mapSigningErrors(() => service.sendInvitations(tenantId, created.document_id, { reminderDays: 3, customMessage: null, user: actor(request) }));
      const data = body.send ? await mapSigningErrors(() => service.get(tenantId, created.document_id)) : created;
      reply.status(201);
      const { audit_trail: _a, ...rest } = data as typeof data & { audit_trail?: unknown };
      return { success: true as const, data: rest };
    },
  });
}
