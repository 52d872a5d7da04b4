import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { SigningService } from '../../../../workflows/signing/service.ts';
import { ApiError } from '../../errors.ts';
import { readMultipart } from '../../multipart.ts';
import { singleField } from '../../forms.ts';
import { MAX_PDF_BYTES } from '../../../../domain/signing/errors.ts';
import { ErrorBody } from '../../error-schemas.ts';
import { DocumentView, LIMITS_TEXT, SIGNING_ERRORS, actor, mapSigningErrors, parseTitle, type LinkOriginOf, parseExpiryDate, parseNotifyEmail, parseSigners } from './shared.ts';
import { LOCALE_TEXT, assertPrintable, parseLanguageField, parseTimeZoneField } from './locale-fields.ts';

export const CreateDocumentResponse = z.object({ success: z.literal(true), data: DocumentView });

const tooLarge = () => new ApiError(413, 'pdf_too_large', `The PDF is larger than ${MAX_PDF_BYTES / 1024 / 1024} MiB`, { max_bytes: MAX_PDF_BYTES });

/** `POST /v1/signing/documents` (spec, Document signing): multipart upload; status `draft`; 5 credits. */
export function registerCreateDocument(app: ApiApp, service: SigningService, originOf: LinkOriginOf): void {
  app.route({
    method: 'POST',
    url: '/v1/signing/documents',
    config: { auth: { permission: 'write' }, billing: { cost: 5 }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['signing'],
      summary: 'Create a signing document',
      description:
        'multipart: `document` (PDF file, required), `title` (required), `signers` (JSON array of {email, name, role, order, fields?, signature_type?, rfc?, curp?}, required; `signature_type` `simple` (default) or `efirma`, all signers of a document the same type, else 422 `mixed_signature_types`), ' +
        '`description`, `message`, `expiry_date` (YYYY-MM-DD: open until the end of that day UTC; default 30 days), `notify_email` (where declines and the completion, every signer signed, are mailed), `language`, `time_zone`. ' +
        `${LOCALE_TEXT} ` +
        'The PDF is judged by MuPDF and pdf-lib: truncated, damaged (repaired xref), encrypted or unparsable files are 400 `pdf_corrupted`. ' +
        `${LIMITS_TEXT} Placements outside the document are 400 \`invalid_placement\`. Status \`draft\`; costs 5 credits.`,
      consumes: ['multipart/form-data'],
      response: { 201: CreateDocumentResponse, ...SIGNING_ERRORS, 422: ErrorBody },
    },
    handler: async (request, reply) => {
      const { files, fields } = await readMultipart(request, {
        maxFileBytes: MAX_PDF_BYTES,
        tooLarge,
        notMultipart: () => new ApiError(400, 'validation_error', 'Send multipart/form-data with a `document` PDF file'),
      });
      const file = files.get('document');
      if (!file || file.data.length === 0) throw new ApiError(400, 'pdf_corrupted', 'The `document` PDF file is required', { field: 'document' });
      const title = parseTitle(singleField(fields, 'title'));
      const signersText = singleField(fields, 'signers');
      if (!signersText) throw new ApiError(400, 'invalid_signer', 'signers is required (a JSON array)', { field: 'signers' });
      let rawSigners: unknown;
      try {
        rawSigners = JSON.parse(signersText);
      } catch {
        throw new ApiError(400, 'invalid_signer', 'signers must be a JSON array', { field: 'signers' });
      }
      const signers = parseSigners(rawSigners);
      const notify = parseNotifyEmail(singleField(fields, 'notify_email'));
      const language = parseLanguageField(singleField(fields, 'language'));
      const timeZone = parseTimeZoneField(singleField(fields, 'time_zone'));
      assertPrintable(title, signers);
      const data = await mapSigningErrors(() =>
        service.create({
          tenantId: request.auth!.tenantId,
          user: actor(request),
          title,
          description: singleField(fields, 'description')?.slice(0, 2000) ?? null,
          message: singleField(fields, 'message')?.slice(0, 4000) ?? null,
          notifyEmail: notify,
          expiresAt: parseExpiryDate(singleField(fields, 'expiry_date')),
          fileName: (file.filename || 'document.pdf').slice(0, 200),
          pdf: file.data,
          signers,
          language,
          timeZone,
          origin: originOf(request),
        }),
      );
      reply.status(201);
      return { success: true as const, data };
    },
  });
}
