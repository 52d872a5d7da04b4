/**
 * Incremental PAdES (issue 29): each e.firma signer's signature, Sello's seal, the document security store
 * and the document time-stamp are appended to the PDF as incremental updates (ISO 32000-1 7.5.6), so every
 * earlier signature stays valid (PAdES B-B / B-T / B-LT / B-LTA, ETSI EN 319 142-1).
 *
 * Order of use: {@link toIncrementalBase} once on the original; per e.firma signer
 * {@link addSignaturePlaceholder} -> {@link buildSignedAttributes} -> (the browser signs) ->
 * {@link assembleCms} -> {@link embedCms}; at finalize {@link sealIncremental}, {@link addDss},
 * {@link addDocumentTimestamp}.
 */
export { toIncrementalBase } from './base.ts';
export { addSignaturePlaceholder, embedCms, type Placeholder } from './signature.ts';
export { assembleCms, buildSignedAttributes } from './cms.ts';
