/**
 * One incremental update of a PDF (ISO 32000-1 7.5.6): the original bytes are kept as they are, and the
 * objects added or changed are appended after them, followed by a cross-reference section listing only
 * those objects and a trailer whose `/Prev` points at the previous section. Signatures made over the
 * earlier bytes therefore stay valid (ISO 32000-1 12.8.1, ETSI EN 319 142-1 5.1).
 *
 * Objects are read with pdf-lib's parser (it reads every revision in file order, a later definition of an
 * object replacing an earlier one) and the appended ones are serialized by pdf-lib's object writers; only
 * the section framing (objects, classic xref table, trailer) is written here. The previous section must be
 * a classic xref table: files saved with a cross-reference stream go through {@link toIncrementalBase}
 * first (mixing a table section after a stream section would make a hybrid file many readers reject).
 */
import { createHash } from 'node:crypto';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRef, type PDFObject } from 'pdf-lib';

/** The end of a PDF: the last `startxref` offset before `%%EOF` (ISO 32000-1 7.5.5). */
const STARTXREF = /startxref\s+(\d+)\s+%%EOF\s*$/;

/** Offset of the last cross-reference section of `pdf`, or null when the file does not end with one. */
export function lastStartXref(pdf: Buffer): number | null {
  const tail = pdf.subarray(Math.max(0, pdf.length - 1024)).toString('latin1');
  const m = STARTXREF.exec(tail);
  return m ? Number(m[1]) : null;
}

/** Where an object was written in the updated file: `[start, end)` of `N G obj ... endobj`. */
export type ObjectSpan = [number, number];

/** An update being built: change objects of {@link doc}, {@link touch} or {@link register} them, then {@link finish}. */
export class IncrementalUpdate {
  private readonly changed = new Set<PDFRef>();

  private constructor(
    private readonly base: Buffer,
    /** The parsed document (every revision of `base`). */
    readonly doc: PDFDocument,
    private readonly prevXref: number,
  ) {}

  /**
   * Parses `pdf` for an update.
   * @throws Error when the file does not end with a classic cross-reference table (run
   *   {@link toIncrementalBase} on it first) or pdf-lib cannot read it.
   */
  static async open(pdf: Buffer): Promise<IncrementalUpdate> {
    const prev = lastStartXref(pdf);
    if (prev === null || pdf.subarray(prev, prev + 4).toString('latin1') !== 'xref') {
      throw new Error('the PDF does not end with a classic cross-reference table; pass it through toIncrementalBase first');
    }
    const doc = await PDFDocument.load(pdf, { updateMetadata: false, throwOnInvalidObject: true });
    return new IncrementalUpdate(pdf, doc, prev);
  }

  /** The catalog's reference (the trailer's `/Root`). */
  get rootRef(): PDFRef {
    const root = this.doc.context.trailerInfo.Root;
    if (!(root instanceof PDFRef)) throw new Error('the trailer has no /Root reference');
    return root;
  }

  /** Adds `object` as a new indirect object written by this update. */
  register(object: PDFObject): PDFRef {
    const ref = this.doc.context.register(object);
    this.changed.add(ref);
    return ref;
  }

  /** Marks an existing indirect object as changed: this update writes its new value. */
  touch(ref: PDFRef): void {
    this.changed.add(ref);
  }

  /**
   * Sets `key` of the direct or indirect dictionary `holder` (held by the indirect object `owner`) and marks
   * the object that holds it as changed.
   */
  setIn(owner: PDFRef, holder: PDFDict, key: string, value: PDFObject): void {
    holder.set(PDFName.of(key), value);
    this.touch(owner);
  }

  /**
   * Returns the array at `key` of `dict` (held by `owner`) for appending, creating it when absent, and marks
   * whichever object holds the array as changed (the array's own object when it is indirect).
   */
  arrayIn(owner: PDFRef, dict: PDFDict, key: string): PDFArray {
    const value = dict.get(PDFName.of(key));
    if (value instanceof PDFRef) {
      const arr = this.doc.context.lookup(value);
      if (arr instanceof PDFArray) {
        this.touch(value);
        return arr;
      }
    } else if (value instanceof PDFArray) {
      this.touch(owner);
      return value;
    }
    const arr = this.doc.context.obj([]);
    dict.set(PDFName.of(key), arr);
    this.touch(owner);
    return arr;
  }

  /**
   * Appends the changed objects, a cross-reference section listing them and a trailer (`/Size`, `/Root`,
   * `/Info`, `/ID` with its first element kept and the second new, `/Prev`).
   * @returns the updated file and where each written object lies in it.
   */
  finish(): { pdf: Buffer; spans: Map<PDFRef, ObjectSpan> } {
    const { context } = this.doc;
    const parts: Buffer[] = [this.base];
    let pos = this.base.length;
    const push = (b: Buffer) => {
      parts.push(b);
      pos += b.length;
    };
    if (this.base[this.base.length - 1] !== 0x0a) push(Buffer.from('\n'));
    const refs = [...this.changed].sort((a, b) => a.objectNumber - b.objectNumber);
    const spans = new Map<PDFRef, ObjectSpan>();
    for (const ref of refs) {
      const object = context.lookup(ref);
      if (!object) throw new Error(`object ${ref.toString()} is not in the document`);
      const body = new Uint8Array(object.sizeInBytes());
      object.copyBytesInto(body, 0);
      const start = pos;
      push(Buffer.from(`${ref.objectNumber} ${ref.generationNumber} obj\n`, 'latin1'));
      push(Buffer.from(body));
      push(Buffer.from('\nendobj\n', 'latin1'));
      spans.set(ref, [start, pos]);
    }
    // Cross-reference section: one subsection per run of consecutive object numbers, 20-byte entries.
    const xrefAt = pos;
    let xref = 'xref\n';
    for (let i = 0; i < refs.length; ) {
      let j = i;
      while (j + 1 < refs.length && refs[j + 1]!.objectNumber === refs[j]!.objectNumber + 1) j++;
      xref += `${refs[i]!.objectNumber} ${j - i + 1}\n`;
      for (let k = i; k <= j; k++) {
        xref += `${String(spans.get(refs[k]!)![0]).padStart(10, '0')} ${String(refs[k]!.generationNumber).padStart(5, '0')} n\r\n`;
      }
      i = j + 1;
    }
    const info = context.trailerInfo;
    const newId = PDFHexString.of(createHash('sha256').update(this.base).update(String(refs.length)).digest('hex').slice(0, 32).toUpperCase());
    const oldId = info.ID instanceof PDFArray ? info.ID.get(0) : undefined;
    const trailer = context.obj({});
    trailer.set(PDFName.of('Size'), PDFNumber.of(context.largestObjectNumber + 1));
    trailer.set(PDFName.of('Root'), this.rootRef);
    if (info.Info) trailer.set(PDFName.of('Info'), info.Info);
    trailer.set(PDFName.of('ID'), context.obj([oldId ?? newId, newId]));
    trailer.set(PDFName.of('Prev'), PDFNumber.of(this.prevXref));
    push(Buffer.from(`${xref}trailer\n${trailer.toString()}\nstartxref\n${xrefAt}\n%%EOF\n`, 'latin1'));
    return { pdf: Buffer.concat(parts), spans };
  }
}
