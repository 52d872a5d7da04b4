/**
 * A PAdES signature (ETSI EN 319 142-1 5.3, SubFilter `ETSI.CAdES.detached`) appended as an incremental
 * update: the placeholder first, the CMS once the signer has signed the digest of its byte range.
 */
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { PDFName, PDFString } from 'pdf-lib';
import { digestByteRange, toAB } from '../pades.ts';
import { appendSignatureField, DEFAULT_CONTENTS_BYTES, embedContents, pdfText, type Placeholder } from './placeholder.ts';

export type { Placeholder } from './placeholder.ts';

/**
 * Appends an incremental update: a signature field (widget on `page`, 1-based, `rect` in PDF points, may be
 * `[0, 0, 0, 0]` for an invisible one), a signature dictionary (`/Filter /Adobe.PPKLite`, `/SubFilter
 * /ETSI.CAdES.detached`, `/Name`, `/Reason`, `/Location` when given, `/M` = `signingTime`) and a zeroed
 * `/Contents` of `contentsBytes` (default 32 KiB). Earlier signatures stay valid.
 * @param pdf an incremental base ({@link toIncrementalBase}) or an earlier result of these functions
 * @returns the updated file, its byte range and the SHA-256 of the covered bytes (the CMS message-digest)
 * @throws SigningError `invalid_placement` (page or rect); Error when `fieldName` is taken or the file is not
 *   an incremental base.
 */
export async function addSignaturePlaceholder(
  pdf: Buffer,
  o: { fieldName: string; page: number; rect: [number, number, number, number]; name: string; reason: string; location?: string; signingTime: Date; contentsBytes?: number },
): Promise<Placeholder> {
  const entries = {
    Type: PDFName.of('Sig'),
    Filter: PDFName.of('Adobe.PPKLite'),
    SubFilter: PDFName.of('ETSI.CAdES.detached'),
    Name: pdfText(o.name),
    Reason: pdfText(o.reason),
    ...(o.location ? { Location: pdfText(o.location) } : {}),
    M: PDFString.fromDate(o.signingTime),
  };
  const lines = ['Firmado con e.firma / Signed with e.firma', o.name, o.signingTime.toISOString().replace('T', ' ').slice(0, 19) + ' UTC'];
  return appendSignatureField(pdf, { fieldName: o.fieldName, page: o.page, rect: o.rect, entries, contentsBytes: o.contentsBytes ?? DEFAULT_CONTENTS_BYTES, appearance: lines });
}

/**
 * Writes the CMS (DER ContentInfo) into the placeholder's `/Contents` (hex, zero padded); the byte range and
 * everything outside `/Contents` stay as they are, so the digest the CMS signs is unchanged.
 * @throws Error when the CMS does not fit the placeholder, `p` is not a placeholder, or the CMS's
 *   message-digest is not the SHA-256 of the bytes `p.pdf`'s byte range covers (a CMS made for another
 *   placeholder would be embedded as a signature that can never verify).
 */
export function embedCms(p: Placeholder, cms: Buffer): Buffer {
  let signed: Buffer | null = null;
  try {
    const sd = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(toAB(cms)).content });
    const md = sd.signerInfos[0]?.signedAttrs?.attributes.find((a) => a.type === MESSAGE_DIGEST)?.values[0];
    if (md instanceof asn1js.OctetString) signed = Buffer.from(md.valueBlock.valueHexView);
  } catch {
    throw new Error('the CMS is not a DER ContentInfo with SignedData');
  }
  if (!signed || !signed.equals(digestByteRange(p.pdf, p.byteRange))) throw new Error('the CMS does not sign the bytes of this placeholder (message-digest mismatch)');
  return embedContents(p, cms);
}

const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
