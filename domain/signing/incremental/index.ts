/**
 * Incremental PAdES (issue 29): each e.firma signer's signature, Sello's seal, the document security store
 * and the document time-stamp are appended to the PDF as incremental updates (ISO 32000-1 7.5.6), so every
 * earlier signature stays valid (PAdES B-B / B-T / B-LT / B-LTA, ETSI EN 319 142-1).
 *
 * Order of use: {@link toIncrementalBase} once on the original; per e.firma signer
 * {@link addSignaturePlaceholder} -> {@link buildSignedAttributes} -> (the browser signs) ->
 * {@link assembleCms} -> {@link embedCms}; at finalize ({@link appendPages} for the certificate of
 * completion of `pdf_with_audit`), {@link sealIncremental}, {@link addDss}, {@link addDocumentTimestamp}.
 *
 * Checked with Debian 12's `pdfsig` 22.12.0 (poppler) and `qpdf --check` (no errors or warnings) in
 * test/unit/signing/incremental-pades.test.ts: after signer 1, signer 2, the seal, the DSS and the document
 * time-stamp, the three CAdES signatures print "Signature Validation: Signature is Valid." and "Not total
 * document signed", and one flipped byte in signer 1's range prints "Digest Mismatch". For the document
 * time-stamp pdfsig 22.12 prints "Signature Field Name: DocTimeStamp", "Signer Certificate Common Name:" the
 * TSA's, "Signing Time: Jan 01 1970 00:00:00", "Signature Type: unknown", "Total document signed",
 * "Signature Validation: Signature has not yet been verified." and "Unimplemented Feature (0): Unable to
 * validate this type of signature": it does not validate ETSI.RFC3161, so the test checks that token with
 * `openssl ts -verify` against the SHA-256 of its byte range instead.
 */
export { toIncrementalBase } from './base.ts';
export { addSignaturePlaceholder, embedCms, type Placeholder } from './signature.ts';
export { assembleCms, buildSignedAttributes } from './cms.ts';
export { sealIncremental } from './seal.ts';
export { addDss } from './dss.ts';
export { appendPages } from './pages.ts';
export { addDocumentTimestamp, verifyDocumentTimestamp, type DocumentTimestampCheck } from './doc-timestamp.ts';
