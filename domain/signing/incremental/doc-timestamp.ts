/**
 * PAdES B-LTA's document time-stamp (ETSI EN 319 142-1 5.4.3 and 5.5; ISO 32000-2 12.8.5): a signature
 * field whose dictionary is `/Type /DocTimeStamp`, `/SubFilter /ETSI.RFC3161`, and whose `/Contents` is an
 * RFC 3161 TimeStampToken over the SHA-256 of its byte range, appended as an incremental update.
 */
import { PDFName } from 'pdf-lib';
import { requestTimestamp, type TimestampOptions } from '../pades.ts';
import { appendSignatureField, embedContents } from './placeholder.ts';

/** Room for the time-stamp token (a TSA's token with its certificate chain is a few KiB). */
const TOKEN_BYTES = 16 * 1024;

/**
 * Appends a document time-stamp from `tsa` as the last incremental update: an invisible field
 * `DocTimeStamp` (`DocTimeStamp2`, ... when taken) on page 1; the token's message imprint is the SHA-256 of
 * the bytes its `/ByteRange` covers (the whole file but the token itself).
 * @throws SigningError `timestamp_unavailable` (503) when the TSA does not answer usably (never the local
 *   clock); Error when `pdf` is not an incremental base or the token does not fit 16 KiB.
 */
export async function addDocumentTimestamp(pdf: Buffer, tsa: TimestampOptions): Promise<Buffer> {
  const p = await appendSignatureField(pdf, {
    fieldName: 'DocTimeStamp',
    uniqueName: true,
    page: 1,
    rect: [0, 0, 0, 0],
    entries: { Type: PDFName.of('DocTimeStamp'), Filter: PDFName.of('Adobe.PPKLite'), SubFilter: PDFName.of('ETSI.RFC3161') },
    contentsBytes: TOKEN_BYTES,
  });
  const { token } = await requestTimestamp(p.digest, tsa);
  return embedContents(p, Buffer.from(token.toSchema().toBER(false)));
}
