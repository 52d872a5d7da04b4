/**
 * The starting point of an incremental signing chain: the original PDF rewritten once by pdf-lib with a
 * classic cross-reference table and no object streams (ISO 32000-1 7.5.4), so every later signature, DSS
 * and document time-stamp can be appended as a plain incremental update (see `update.ts`).
 */
import { createHash } from 'node:crypto';
import { PDFArray, PDFDocument, PDFHexString } from 'pdf-lib';

/**
 * Rewrites a PDF once so later incremental updates can be appended (classic xref table, no object streams),
 * keeping its content (pages, metadata, `/Info` untouched). A trailer `/ID` is added when the file has none
 * (ISO 32000-2 14.4 requires it; the updates keep its first element).
 * @throws Error when pdf-lib cannot read the file (intake already refuses those: `pdf_corrupted`).
 */
export async function toIncrementalBase(pdf: Buffer): Promise<Buffer> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const { context } = doc;
  if (!(context.trailerInfo.ID instanceof PDFArray)) {
    const id = PDFHexString.of(createHash('sha256').update(pdf).digest('hex').slice(0, 32).toUpperCase());
    context.trailerInfo.ID = context.obj([id, id]);
  }
  return Buffer.from(await doc.save({ useObjectStreams: false, addDefaultPage: false, updateFieldAppearances: false }));
}
