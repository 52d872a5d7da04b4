/**
 * Sello's own seal as the last signature of an incrementally signed document (issue 29 item 3): the same CMS
 * as the one-shot seal of `pades.ts` (PAdES B-B, B-T with a TSA), but appended as an incremental update so
 * the e.firma signatures before it stay valid.
 */
import { PDFName, PDFString } from 'pdf-lib';
import { buildCms, type PadesKey, type TimestampOptions } from '../pades.ts';
import { appendSignatureField, DEFAULT_CONTENTS_BYTES, embedContents, pdfText } from './placeholder.ts';

/**
 * Appends Sello's seal: an invisible signature field `Sello` (`Sello2`, ... when taken) on page 1 whose
 * dictionary has `/SubFilter /ETSI.CAdES.detached`, `/Name` = the key's subject, `/Reason`, `/M` =
 * `signingTime`, and a CMS signed with `key` over the byte range (with a signature time-stamp from `tsa`).
 * @throws SigningError `timestamp_unavailable` (503) when `tsa` is given and does not answer usably; Error
 *   when `pdf` is not an incremental base.
 */
export async function sealIncremental(pdf: Buffer, key: PadesKey, o: { reason: string; signingTime: Date; tsa?: TimestampOptions }): Promise<Buffer> {
  const p = await appendSignatureField(pdf, {
    fieldName: 'Sello',
    uniqueName: true,
    page: 1,
    rect: [0, 0, 0, 0],
    entries: {
      Type: PDFName.of('Sig'),
      Filter: PDFName.of('Adobe.PPKLite'),
      SubFilter: PDFName.of('ETSI.CAdES.detached'),
      Name: pdfText(key.subjectName),
      Reason: pdfText(o.reason),
      M: PDFString.fromDate(o.signingTime),
    },
    contentsBytes: DEFAULT_CONTENTS_BYTES,
  });
  const [a, b, c, d] = p.byteRange;
  const cms = await buildCms(Buffer.concat([p.pdf.subarray(a, a + b), p.pdf.subarray(c, c + d)]), key, o.tsa);
  return embedContents(p, cms);
}
