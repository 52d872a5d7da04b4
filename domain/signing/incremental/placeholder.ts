/**
 * Signature fields appended as incremental updates (ISO 32000-1 12.7.4.5 signature fields, 12.8.1 signature
 * dictionaries), their byte range and their `/Contents` placeholder.
 *
 * `@signpdf/placeholder-plain` 3.3.0 (same line as our other `@signpdf` packages) was tried first: it does
 * append an incremental update and a second and third signature verify, but it always puts the widget on
 * the first page and names the field `SignatureN`, rewrites the AcroForm from string offsets (dropping its
 * other entries), writes a `/Size` qpdf warns about, and cannot write the `/DocTimeStamp` or `/DSS` PAdES
 * needs. So one small writer (`update.ts`, pdf-lib's parser and object serializers) serves every update.
 */
import { PDFDict, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString, type PDFObject } from 'pdf-lib';
import { digestByteRange, fieldNamesOf } from '../pades.ts';
import { SigningError } from '../errors.ts';
import { IncrementalUpdate } from './update.ts';

/** A signature field appended to a PDF, its byte range filled, its `/Contents` still zeros. */
export interface Placeholder {
  /** The whole updated file. */
  pdf: Buffer;
  /** `[0, a, b, c]`: bytes `[0, a)` and `[b, b + c)` are signed; `[a, b)` is the `<...>` of `/Contents`. */
  byteRange: [number, number, number, number];
  /** SHA-256 of the covered bytes (the CMS message-digest). */
  digest: Buffer;
}

/** Default room for the CMS in `/Contents`, in bytes (the hex string is twice as long). */
export const DEFAULT_CONTENTS_BYTES = 32 * 1024;
/** The ByteRange written first and replaced in place (10 digits: files up to 9.3 GiB). */
const BYTE_RANGE_PLACEHOLDER = '[ 0 9999999999 9999999999 9999999999 ]';

/** A PDF text string: a literal for plain ASCII, else UTF-16BE hex (ISO 32000-1 7.9.2.2). */
export function pdfText(text: string): PDFObject {
  return /^[\x20-\x7e]*$/.test(text) ? PDFString.of(text.replace(/[\\()]/g, (c) => `\\${c}`)) : PDFHexString.fromText(text);
}

/** What {@link appendSignatureField} writes. */
export interface SignatureFieldSpec {
  /** Partial field name `/T`; must not name an existing field (unless `uniqueName`). */
  fieldName: string;
  /** Use the first free name of `fieldName`, `fieldName2`, `fieldName3`, ... instead of failing. */
  uniqueName?: boolean;
  /** 1-based page of the widget. */
  page: number;
  /** Widget rectangle `[x1, y1, x2, y2]` in PDF points; `[0, 0, 0, 0]` for an invisible signature. */
  rect: [number, number, number, number];
  /** Entries of the signature dictionary besides `/ByteRange` and `/Contents` (e.g. `/Type`, `/SubFilter`). */
  entries: Record<string, PDFObject>;
  /** Room for the CMS or token, in bytes. */
  contentsBytes: number;
  /** Lines drawn in a visible widget (Helvetica, WinAnsi; other characters become `?`). */
  appearance?: string[];
}

/**
 * Appends a signature field (a merged field/widget annotation on `page`, listed in the AcroForm's `/Fields`
 * and the page's `/Annots`, `/SigFlags 3`) whose `/V` is a new signature dictionary, as one incremental
 * update; fills `/ByteRange` and hashes the covered bytes.
 * @throws SigningError `invalid_placement` for a page out of range or a malformed rect; Error when the field
 *   name is taken, `contentsBytes` is not a positive integer, or the file is not an incremental base.
 */
export async function appendSignatureField(pdf: Buffer, spec: SignatureFieldSpec): Promise<Placeholder> {
  if (!Number.isInteger(spec.contentsBytes) || spec.contentsBytes <= 0 || spec.contentsBytes > 1024 * 1024) throw new Error('contentsBytes must be an integer in 1..1 MiB');
  const upd = await IncrementalUpdate.open(pdf);
  const { doc } = upd;
  const { context } = doc;
  const pages = doc.getPages();
  const page = pages[spec.page - 1];
  if (!Number.isInteger(spec.page) || !page) throw new SigningError('invalid_placement', `Page ${spec.page} is not in the document (1..${pages.length})`, { page: spec.page, pages: pages.length });
  const [x1, y1, x2, y2] = spec.rect;
  if (spec.rect.length !== 4 || !spec.rect.every(Number.isFinite) || x2 < x1 || y2 < y1) throw new SigningError('invalid_placement', 'The signature rectangle must be [x1, y1, x2, y2] with x1 <= x2 and y1 <= y2', { rect: spec.rect });

  const catalog = doc.catalog;
  const rootRef = upd.rootRef;
  let acroForm: PDFDict;
  let acroOwner: PDFRef;
  const acroValue = catalog.get(PDFName.of('AcroForm'));
  if (acroValue instanceof PDFRef && context.lookup(acroValue) instanceof PDFDict) {
    acroForm = context.lookup(acroValue, PDFDict);
    acroOwner = acroValue;
  } else if (acroValue instanceof PDFDict) {
    acroForm = acroValue;
    acroOwner = rootRef;
  } else {
    acroForm = context.obj({});
    acroOwner = upd.register(acroForm);
    upd.setIn(rootRef, catalog, 'AcroForm', acroOwner);
  }
  const fields = upd.arrayIn(acroOwner, acroForm, 'Fields');
  const taken = fieldNamesOf(fields);
  let fieldName = spec.fieldName;
  for (let n = 2; spec.uniqueName && taken.has(fieldName); n++) fieldName = `${spec.fieldName}${n}`;
  if (taken.has(fieldName)) throw new Error(`a field named ${fieldName} already exists`);
  upd.setIn(acroOwner, acroForm, 'SigFlags', PDFNumber.of(3)); // SignaturesExist | AppendOnly (12.7.2)

  const sig = context.obj({});
  for (const [k, v] of Object.entries(spec.entries)) sig.set(PDFName.of(k), v);
  // Fixed-width numbers, overwritten in place once the offsets are known (the xref offsets do not move).
  sig.set(PDFName.of('ByteRange'), context.obj([0, 9999999999, 9999999999, 9999999999]));
  sig.set(PDFName.of('Contents'), PDFHexString.of('0'.repeat(spec.contentsBytes * 2)));
  const sigRef = upd.register(sig);

  const width = x2 - x1;
  const height = y2 - y1;
  const widget = context.obj({
    Type: 'Annot',
    Subtype: 'Widget',
    FT: 'Sig',
    Rect: [x1, y1, x2, y2],
    F: 132, // Print | Locked (12.5.3)
    P: page.ref,
  });
  widget.set(PDFName.of('T'), pdfText(fieldName));
  widget.set(PDFName.of('V'), sigRef);
  if (width > 0 && height > 0) widget.set(PDFName.of('AP'), context.obj({ N: upd.register(appearanceStream(context, width, height, spec.appearance ?? [])) }));
  const widgetRef = upd.register(widget);
  fields.push(widgetRef);
  upd.arrayIn(page.ref, page.node, 'Annots').push(widgetRef);

  const { pdf: out, spans } = upd.finish();
  const [start, end] = spans.get(sigRef)!;
  const object = out.subarray(start, end).toString('latin1');
  const brAt = start + object.indexOf(BYTE_RANGE_PLACEHOLDER);
  const lt = start + object.indexOf('/Contents <') + '/Contents '.length;
  const gt = lt + 1 + spec.contentsBytes * 2;
  if (brAt < start || lt < start + 10 || out[lt] !== 0x3c || out[gt] !== 0x3e) throw new Error('signature dictionary layout not understood');
  const byteRange: [number, number, number, number] = [0, lt, gt + 1, out.length - (gt + 1)];
  out.write(`[ ${byteRange.join(' ')} ]`.padEnd(BYTE_RANGE_PLACEHOLDER.length, ' '), brAt, 'latin1');
  return { pdf: out, byteRange, digest: digestByteRange(out, byteRange) };
}

/** A form XObject drawing a thin frame and `lines` of text, clipped to the box (ISO 32000-1 12.5.5). */
function appearanceStream(context: import('pdf-lib').PDFContext, width: number, height: number, lines: string[]) {
  const size = Math.max(4, Math.min(9, (height - 4) / Math.max(1, lines.length) / 1.25));
  const winAnsi = (s: string) =>
    Array.from(s, (c) => {
      const code = c.codePointAt(0)!;
      return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) ? c : '?';
    })
      .join('')
      .replace(/[\\()]/g, (c) => `\\${c}`);
  let ops = `q 0 0 ${width} ${height} re W n 0.2 0.3 0.5 RG 0.8 w 0.4 0.4 ${Math.max(0, width - 0.8)} ${Math.max(0, height - 0.8)} re S BT /Helv ${size.toFixed(2)} Tf 0.1 0.1 0.1 rg`;
  lines.forEach((line, i) => {
    ops += ` 1 0 0 1 3 ${(height - 2 - size * 1.2 * (i + 1)).toFixed(2)} Tm (${winAnsi(line)}) Tj`;
  });
  ops += ' ET Q';
  return context.stream(Buffer.from(ops, 'latin1'), {
    Type: 'XObject',
    Subtype: 'Form',
    BBox: [0, 0, width, height],
    Resources: { Font: { Helv: { Type: 'Font', Subtype: 'Type1', BaseFont: 'Helvetica', Encoding: 'WinAnsiEncoding' } } },
  });
}

/** The signature's value to embed, checked against the placeholder. */
export function embedContents(p: Placeholder, contents: Buffer): Buffer {
  const [, a, b] = p.byteRange;
  const room = (b - a - 2) / 2;
  if (contents.length > room) throw new Error(`the CMS (${contents.length} bytes) does not fit the placeholder (${room} bytes)`);
  if (p.pdf[a] !== 0x3c || p.pdf[b - 1] !== 0x3e) throw new Error('the placeholder byte range does not frame /Contents');
  const out = Buffer.from(p.pdf);
  out.write(contents.toString('hex').toUpperCase(), a + 1, 'latin1');
  return out;
}
