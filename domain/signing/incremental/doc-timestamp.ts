/**
 * PAdES B-LTA's document time-stamp (ETSI EN 319 142-1 5.4.3 and 5.5; ISO 32000-2 12.8.5): a signature
 * field whose dictionary is `/Type /DocTimeStamp`, `/SubFilter /ETSI.RFC3161`, and whose `/Contents` is an
 * RFC 3161 TimeStampToken over the SHA-256 of its byte range, appended as an incremental update.
 */
import { createHash } from 'node:crypto';
import * as pkijs from 'pkijs';
import { PDFName } from 'pdf-lib';
import { derPrefix, digestByteRange, requestTimestamp, toAB, tstInfoOf, type TimestampOptions } from '../pades.ts';
import { appendSignatureField, embedContents } from './placeholder.ts';

/** Message-imprint algorithms of tokens we verify (OID -> node:crypto name). */
const IMPRINT_HASHES: Record<string, string> = { '2.16.840.1.101.3.4.2.1': 'sha256', '2.16.840.1.101.3.4.2.2': 'sha384', '2.16.840.1.101.3.4.2.3': 'sha512' };

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

/** What {@link verifyDocumentTimestamp} found. */
export interface DocumentTimestampCheck {
  /** The token's imprint is the digest of the bytes its byte range covers and its TSA signature verifies. */
  valid: boolean;
  /** The token's `genTime` (null when unreadable). */
  genTime: Date | null;
  /** The byte range covers the whole file but the token itself. */
  coversWholeFile: boolean;
  /** SHA-256 (hex) of the TSA certificate that signed the token, when the token carries it. */
  tsaCertificateSha256: string | null;
  error: string | null;
}

/**
 * Verifies a document time-stamp (what `pdfsig` 22.12 cannot: "Unable to validate this type of signature"):
 * the TimeStampToken in `/Contents` (DER, zero padding allowed) must be a SignedData over a TSTInfo whose
 * message imprint (SHA-256/384/512) is the digest of the bytes `byteRange` covers, signed by the certificate
 * its signer info names (RFC 3161 2.4.2, RFC 5652 5.6). No trust decision: compare `tsaCertificateSha256` to
 * the configured TSA's. Never throws.
 */
export async function verifyDocumentTimestamp(pdf: Buffer, byteRange: readonly [number, number, number, number], token: Buffer): Promise<DocumentTimestampCheck> {
  const [a, b, c, d] = byteRange;
  const coversWholeFile = a === 0 && c + d === pdf.length;
  let genTime: Date | null = null;
  let tsaCertificateSha256: string | null = null;
  try {
    const ci = pkijs.ContentInfo.fromBER(toAB(derPrefix(token)));
    const sd = new pkijs.SignedData({ schema: ci.content });
    const info = tstInfoOf(ci);
    genTime = info.genTime;
    const alg = IMPRINT_HASHES[info.messageImprint.hashAlgorithm.algorithmId];
    if (!alg) throw new Error(`unsupported imprint algorithm ${info.messageImprint.hashAlgorithm.algorithmId}`);
    if (c + d > pdf.length || a + b > c) throw new Error('the byte range lies outside the file');
    const digest = digestByteRange(pdf, byteRange, alg);
    if (!digest.equals(Buffer.from(info.messageImprint.hashedMessage.valueBlock.valueHexView))) throw new Error('the token imprint does not match the covered bytes');
    // pkijs checks a TSTInfo's imprint against `data` itself (the covered bytes, copied once) before the signature.
    const data = toAB(Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]));
    const result = await sd.verify({ signer: 0, checkChain: false, extendedMode: true, data });
    const signer = result.signerCertificate;
    if (signer) tsaCertificateSha256 = createHash('sha256').update(Buffer.from(signer.toSchema().toBER(false))).digest('hex');
    if (!result.signatureVerified) throw new Error('the TSA signature does not verify');
    return { valid: true, genTime, coversWholeFile, tsaCertificateSha256, error: null };
  } catch (error) {
    const e = error as { message?: string; signerCertificate?: pkijs.Certificate };
    // pkijs rejects with a SignedDataVerifyError that still names the signer certificate.
    if (!tsaCertificateSha256 && e.signerCertificate) tsaCertificateSha256 = createHash('sha256').update(Buffer.from(e.signerCertificate.toSchema().toBER(false))).digest('hex');
    return { valid: false, genTime, coversWholeFile, tsaCertificateSha256, error: e.message ?? 'unreadable time-stamp token' };
  }
}
