import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { SigningService } from '../../../../workflows/signing/service.ts';
import { ApiError } from '../../errors.ts';
import { readMultipart } from '../../multipart.ts';
import { MAX_PDF_BYTES } from '../../../../domain/signing/errors.ts';
import { SIGNING_ERRORS, mapSigningErrors } from './shared.ts';
import { MAX_HASHED_FILE_MULTIPLE, MAX_SIGNATURES_EXAMINED } from '../../../../domain/signing/pades.ts';

export const VerifyResponse = z.object({
  success: z.literal(true),
  data: z.object({
    signed_by_service: z
      .boolean()
      .describe('A signature in the file verifies with this service\'s signing certificate. False when the certificate is only carried by a signature that does not verify (see `invalid_service_signature`)'),
    invalid_service_signature: z
      .boolean()
      .describe('A signature in the file names this service\'s certificate but does not verify: a tampered file, or a seal copied into another PDF. Such a signature is never vouched for and identifies no document'),
    signatures_found: z.number().int().describe('`/ByteRange` entries in the file'),
    signatures_examined: z.number().int().describe(`Signatures examined: the first ${MAX_SIGNATURES_EXAMINED} in file order, while the bytes hashed stay under ${MAX_HASHED_FILE_MULTIPLE} times the file size`),
    signature_valid: z.boolean().describe('The reported signature (the last one of this service, else false) verifies over its byte range'),
    covers_whole_file: z.boolean().describe('Its byte range covers the whole file (nothing appended after it)'),
    unmodified: z.boolean().describe('The file is byte for byte one of the files produced at finalize'),
    modified_after_finalize: z.boolean().describe('The file starts with a finalized file but was changed (e.g. an incremental update appended)'),
    timestamp: z.string().nullable().describe('RFC 3161 time of the signature timestamp (B-T), if any'),
    document: z
      .object({
        document_id: z.string(),
        title: z.string(),
        variant: z.string().nullable(),
        finalized_at: z.string().nullable(),
        signers: z.array(z.object({ name: z.string(), email: z.string(), signed_at: z.string().nullable(), signature_id: z.string().nullable() })),
      })
      .nullable()
      .describe('The document of this account the file belongs to; null when it is not one of yours'),
    claimed_document_id: z.string().nullable(),
    signatures: z
      .array(
        z.object({
          kind: z.enum(['efirma', 'service', 'document_timestamp', 'other']).describe('`efirma`: a SAT e.firma (FIEL) certificate; `service`: this service\'s seal; `document_timestamp`: an RFC 3161 document time-stamp (PAdES B-LTA); `other`'),
          valid: z.boolean().describe('Verifies over its byte range (a CMS signature: digest and signature; a document time-stamp: imprint and token signature)'),
          covers_document: z.boolean().describe('Its byte range reaches the end of the file. An earlier signature of an incrementally signed PDF does not (later revisions follow): that is expected; the last one does'),
          signer_name: z.string().nullable().describe('Common name of the signing certificate'),
          holder_name: z.string().nullable().describe('e.firma: the certificate holder\'s name'),
          rfc: z.string().nullable().describe('e.firma: the holder\'s RFC (x500UniqueIdentifier; a company\'s for a company FIEL)'),
          representative_rfc: z.string().nullable().describe('e.firma of a company: the legal representative\'s RFC'),
          curp: z.string().nullable().describe('e.firma: the holder\'s CURP (serialNumber)'),
          representative_curp: z.string().nullable().describe('e.firma of a company: the legal representative\'s CURP'),
          issuer: z.string().nullable().describe('Issuer DN of the signing certificate (RFC 4514)'),
          certificate_serial: z.string().nullable().describe('Serial number of the signing certificate, lower-case hex'),
          timestamp: z.string().nullable().describe('RFC 3161 time: the signature time-stamp\'s, or the document time-stamp\'s'),
          ocsp: z
            .object({ status: z.enum(['good', 'revoked', 'unknown']), produced_at: z.string(), responder: z.string(), source: z.enum(['record', 'dss']) })
            .nullable()
            .describe('e.firma: the OCSP answer at signing time: as the document\'s audit log recorded it (`source` `record`, when the file is one of your documents), else as the file\'s document security store carries it (`dss`: read, its signature not re-checked here); null when neither has one'),
          error: z.string().nullable().describe('Why it does not verify'),
        }),
      )
      .describe('Every examined signature in file order (issue 29). For a document blocked by an erasure request the e.firma holder fields are withheld (null)'),
    conservation: z
      .object({
        present: z.boolean().describe('The document has a NOM-151 conservation record'),
        valid: z.boolean().describe('The record\'s RFC 3161 token time-stamps exactly this file (its imprint is the file\'s SHA-256) and its CMS signature verifies with the time-stamping certificate it carries'),
        gen_time: z.string().nullable().describe('The provider\'s time in the token (`genTime`)'),
        tsa: z.string().nullable().describe('Common name of the certificate that signed the token'),
        tsa_url: z.string().nullable().describe('The conservation provider\'s RFC 3161 service recorded at finalize'),
        token_sha256: z.string().nullable().describe('SHA-256 of the token (as in the finalize answer)'),
        error: z.string().nullable().describe('Why `valid` is false'),
      })
      .nullable()
      .describe('The conservation record (docs/signing.md "NOM-151 conservation record") of the document this file is the final PDF (`format=pdf`) of, or claims to be (a changed file then reports `valid: false`); null when the file is no final PDF of a document of this account'),
    sha256: z.string(),
  }),
});

/** `POST /v1/signing/verify` (designed here): upload a PDF; learn whether this service sealed it, which document, whether unmodified, who signed. */
export function registerVerify(app: ApiApp, service: SigningService): void {
  app.route({
    method: 'POST',
    url: '/v1/signing/verify',
    config: { auth: { permission: 'read' }, rateClass: 'standard', errorShape: 'structured' },
    schema: {
      tags: ['signing'],
      summary: 'Verify a signed PDF',
      description: 'multipart: `document` (PDF). Free. Only documents of the calling account are identified.',
      consumes: ['multipart/form-data'],
      response: { 200: VerifyResponse, ...SIGNING_ERRORS },
    },
    handler: async (request) => {
      const { files } = await readMultipart(request, {
        maxFileBytes: MAX_PDF_BYTES + 256 * 1024,
        tooLarge: () => new ApiError(413, 'pdf_too_large', 'The PDF is too large', { max_bytes: MAX_PDF_BYTES }),
        notMultipart: () => new ApiError(400, 'validation_error', 'Send multipart/form-data with a `document` PDF file'),
      });
      const file = files.get('document');
      if (!file || file.data.length === 0) throw new ApiError(400, 'pdf_corrupted', 'The `document` PDF file is required', { field: 'document' });
      if (file.data.subarray(0, 1024).indexOf('%PDF-') < 0) throw new ApiError(400, 'pdf_corrupted', 'The file is not a PDF', { reason: 'no %PDF- header' });
      return { success: true as const, data: await mapSigningErrors(() => service.verify(request.auth!.tenantId, file.data)) };
    },
  });
}
