/**
 * What finalize hands the `signing.seal` job for a document signed with e.firma (issue 29): the working PDF
 * (every signer's incremental PAdES signature) and the OCSP responses recorded at signing time, read from the
 * blob store and checked against the hashes the log holds. The PDF work itself runs in the job
 * (domain/signing/efirma-final.ts).
 */
import { createHash } from 'node:crypto';
import type { BlobStore } from '../../infra/ports/blob-store.ts';
import type { DocumentState } from '../../domain/signing/document.ts';
import { SigningError } from '../../domain/signing/errors.ts';
import type { SealInput } from '../../models/signing/jobs.ts';

/**
 * The e.firma part of the seal job's input, or null for a document without e.firma signatures (today's path).
 * @throws SigningError `efirma_file_mismatch` (500) when the working PDF is missing or does not hash to the
 *   `working_pdf_sha256` the log holds, or a signature's OCSP response is missing: nothing is sealed.
 */
export async function efirmaSealInput(blobs: BlobStore, s: DocumentState): Promise<NonNullable<SealInput['efirma']> | null> {
  if (!s.working_pdf_blob) return null;
  const working = await blobs.get(s.working_pdf_blob);
  if (!working || createHash('sha256').update(working).digest('hex') !== s.working_pdf_sha256) {
    throw new SigningError('efirma_file_mismatch', `The e.firma-signed working PDF is ${working ? 'not the one the log names' : 'missing'}; the document is not sealed`, { document_id: s.document_id });
  }
  const ocspResponses: Uint8Array[] = [];
  for (const signer of s.signers) {
    if (!signer.efirma) continue;
    const der = await blobs.get(signer.efirma.ocsp_blob);
    if (!der) throw new SigningError('efirma_file_mismatch', `The OCSP response of signer ${signer.id} is missing; the document is not sealed`, { document_id: s.document_id, signer_id: signer.id });
    ocspResponses.push(new Uint8Array(der));
  }
  return { working: new Uint8Array(working), ocspResponses };
}
