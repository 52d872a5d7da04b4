/**
 * Pages appended to a signed PDF as an incremental update (ISO 32000-1 7.5.6): the certificate of
 * completion after the e.firma signers' signatures, before Sello's seal (issue 29 item 3). The signers'
 * byte ranges are untouched, so their signatures stay valid; the seal that follows covers the new pages.
 *
 * The pages are copied with pdf-lib (`copyPages`: each page with its content streams, fonts and images as
 * new objects); the update writes those new objects and the page-tree nodes whose `/Kids` or `/Count`
 * changed. Existing pages are not rewritten.
 */
import { PDFDict, PDFDocument, PDFName, PDFPageTree } from 'pdf-lib';
import { IncrementalUpdate } from './update.ts';

/**
 * Appends every page of `pages` (a PDF) after the last page of `pdf`.
 * @param pdf an incremental base (`toIncrementalBase`, or a file already signed incrementally)
 * @returns the updated file
 * @throws Error when `pdf` is not an incremental base or either file cannot be parsed
 */
export async function appendPages(pdf: Buffer, pages: Uint8Array): Promise<Buffer> {
  const upd = await IncrementalUpdate.open(pdf);
  const { doc } = upd;
  const { context } = doc;
  const before = context.largestObjectNumber;
  const source = await PDFDocument.load(pages, { updateMetadata: false });
  for (const page of await doc.copyPages(source, source.getPageIndices())) doc.addPage(page);
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    // New objects (the copied pages and what they use), and every page-tree node: adding a page changes the
    // `/Kids` of the node it joins and the `/Count` of that node's ancestors.
    const isTreeNode = object instanceof PDFPageTree || (object instanceof PDFDict && object.get(PDFName.of('Type')) === PDFName.of('Pages'));
    if (ref.objectNumber > before || isTreeNode) upd.touch(ref);
  }
  return upd.finish().pdf;
}
