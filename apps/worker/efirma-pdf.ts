/**
 * The PDF work of an e.firma signature (issue 29), run on a PDF thread of {@link PdfPool} (never on the
 * HTTP thread): `prepare` rewrites the original once into an incremental base when the document has no
 * e.firma signature yet (`toIncrementalBase`), then appends the signer's signature field and zeroed
 * `/Contents` (`addSignaturePlaceholder`); `embed` writes the CMS into that placeholder (`embedCms`).
 */
import { addSignaturePlaceholder, embedCms, toIncrementalBase } from '../../domain/signing/incremental/index.ts';

/** What `prepare` needs: the PDF to sign and the signature field (see `addSignaturePlaceholder`). */
export interface EfirmaPrepareTask {
  op: 'efirma-prepare';
  bytes: Uint8Array;
  /** True for the original (no e.firma signature yet): made an incremental base first. */
  base: boolean;
  fieldName: string;
  page: number;
  rect: [number, number, number, number];
  name: string;
  reason: string;
  /** ISO time written in `/M` (the same instant as the CMS signing-time). */
  signingTime: string;
}

/** What `embed` needs: the placeholder PDF, its byte range and the CMS (DER). */
export interface EfirmaEmbedTask {
  op: 'efirma-embed';
  bytes: Uint8Array;
  byteRange: [number, number, number, number];
  digest: Uint8Array;
  cms: Uint8Array;
}

/** The placeholder as it crosses the thread boundary. */
export interface EfirmaPrepared {
  pdf: Uint8Array;
  byteRange: [number, number, number, number];
  digest: Uint8Array;
}

const buf = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** Runs one e.firma task (on a PDF thread). */
export async function runEfirmaPdfTask(task: EfirmaPrepareTask | EfirmaEmbedTask): Promise<EfirmaPrepared | Uint8Array> {
  if (task.op === 'efirma-prepare') {
    const input = task.base ? await toIncrementalBase(buf(task.bytes)) : buf(task.bytes);
    const p = await addSignaturePlaceholder(input, { fieldName: task.fieldName, page: task.page, rect: task.rect, name: task.name, reason: task.reason, signingTime: new Date(task.signingTime) });
    return { pdf: new Uint8Array(p.pdf.buffer, p.pdf.byteOffset, p.pdf.byteLength), byteRange: p.byteRange, digest: new Uint8Array(p.digest) };
  }
  const out = embedCms({ pdf: buf(task.bytes), byteRange: task.byteRange, digest: buf(task.digest) }, buf(task.cms));
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
