/**
 * Judging and reading uploaded PDFs with real parsers: MuPDF (npm `mupdf`, WebAssembly) and pdf-lib
 * (which stamps and signs them later, so it must read them too).
 *
 * A PDF is refused as `pdf_corrupted` when: it does not start with a `%PDF-` header; MuPDF cannot open it
 * or had to REPAIR it (broken xref, truncated file: what a viewer would silently reconstruct is not what the
 * signer would be shown faithfully); it is encrypted (needs a password, or pdf-lib refuses it as encrypted);
 * it has no page; a page cannot be loaded; pdf-lib cannot parse it. More than {@link MAX_PDF_PAGES} pages is
 * `pdf_too_many_pages` (400).
 *
 * What we would seal under our certificate is refused at intake (422, docs/signing.md "What is refused at
 * intake"): active content (`pdf_active_content`: JavaScript, Launch actions, XFA forms), embedded files
 * (`pdf_embedded_file`: the `/EmbeddedFiles` name tree, file specifications with `/EF`, file-attachment
 * annotations) and earlier signatures (`pdf_already_signed`: a `/ByteRange`, a `/Sig` dictionary or a
 * signature field). A file whose pages would cost more to interpret than {@link MAX_CONTENT_BYTES} is
 * `pdf_too_complex` (422) before any page is interpreted.
 *
 * These functions run on the PDF threads (`apps/worker/pdf-pool.ts`), never on the HTTP thread: the pool
 * also stops any of them at a deadline.
 */
import { inflateSync } from 'node:zlib';
import { MAX_PDF_PAGES, SigningError } from './errors.ts';
import type { Placement } from './document.ts';

export interface PdfInfo {
  pages: number;
  /** Crop-box width and height in points, page 1 first. */
  pageSizes: { width: number; height: number }[];
  /** Boxes of `{{signature:N}}` text tags, keyed by N, in PDF user space (origin bottom-left). */
  tags: Map<number, Placement[]>;
}

type MuPdf = typeof import('mupdf');
let mupdfModule: Promise<MuPdf> | null = null;
/** MuPDF, loaded once (its WebAssembly module takes ~100 ms to instantiate). */
export function loadMupdf(): Promise<MuPdf> {
  return (mupdfModule ??= import('mupdf'));
}

const corrupted = (why: string) => new SigningError('pdf_corrupted', `The file is not a usable PDF: ${why}`, { reason: why });

/** Tag pattern: `{{signature:N}}` with N the signer `order` (1-99). */
const TAG = /\{\{\s*signature\s*:\s*(\d{1,2})\s*\}\}/g;

/**
 * Opens and judges a PDF; finds signature tags.
 * @throws SigningError `pdf_corrupted` or `pdf_too_many_pages` (see the module comment).
 */
export async function inspectPdf(bytes: Uint8Array): Promise<PdfInfo> {
  if (bytes.length < 8 || Buffer.from(bytes.subarray(0, 1024)).indexOf('%PDF-') < 0) throw corrupted('no %PDF- header');
  const mupdf = await loadMupdf();
  let doc: import('mupdf').Document;
  try {
    doc = mupdf.Document.openDocument(bytes, 'application/pdf');
  } catch (error) {
    throw corrupted(`unreadable (${String((error as Error).message ?? error).slice(0, 120)})`);
  }
  try {
    if (doc.needsPassword()) throw corrupted('encrypted (password protected)');
    const pdfDoc = doc.asPDF();
    if (pdfDoc?.wasRepaired()) throw corrupted('damaged (its cross-reference table had to be repaired)');
    let pages: number;
    try {
      pages = doc.countPages();
    } catch {
      throw corrupted('its page tree cannot be read');
    }
    if (pages < 1) throw corrupted('no pages');
    if (pages > MAX_PDF_PAGES) throw new SigningError('pdf_too_many_pages', `The PDF has ${pages} pages; at most ${MAX_PDF_PAGES} are accepted`, { pages, max_pages: MAX_PDF_PAGES });
    if (pdfDoc) {
      refuseActiveContent(pdfDoc);
      assertContentBudget(pdfDoc, pages);
    }
    const pageSizes: PdfInfo['pageSizes'] = [];
    const tags = new Map<number, Placement[]>();
    for (let i = 0; i < pages; i++) {
      let page: import('mupdf').Page;
      try {
        page = doc.loadPage(i);
      } catch {
        throw corrupted(`page ${i + 1} cannot be loaded`);
      }
      const [x0, y0, x1, y1] = page.getBounds();
      const width = x1 - x0;
      const height = y1 - y0;
      pageSizes.push({ width, height });
      let text = '';
      try {
        text = page.toStructuredText('preserve-whitespace').asText();
      } catch {
        throw corrupted(`the content of page ${i + 1} cannot be read`);
      }
      if (text.includes('{{')) {
        for (const m of text.matchAll(TAG)) {
          const order = Number(m[1]);
          for (const hit of page.search(m[0], '')) {
            // A hit is a list of quads (fitz space: origin top-left, y down): take their bounding box.
            const xs = hit.flatMap((q) => [q[0], q[2], q[4], q[6]]);
            const ys = hit.flatMap((q) => [q[1], q[3], q[5], q[7]]);
            const left = Math.min(...xs) - x0;
            const top = Math.min(...ys) - y0;
            const bottom = Math.max(...ys) - y0;
            const w = Math.max(...xs) - x0 - left;
            // Signature box: at least 150 x 40 pt, anchored on the tag's baseline-left, kept inside the page.
            const bw = Math.min(Math.max(w, 150), width - left);
            const bh = Math.min(40, height);
            const y = Math.max(0, height - bottom);
            const list = tags.get(order) ?? [];
            if (!list.some((p) => p.page === i + 1 && Math.abs(p.x - left) < 1 && Math.abs(p.y - y) < 1)) {
              list.push({ page: i + 1, x: round(left), y: round(y), width: round(bw), height: round(Math.min(bh, height - y)), from_tag: true });
            }
            tags.set(order, list);
            void top;
          }
        }
      }
    }
    const { PDFDocument } = await import('pdf-lib');
    try {
      await PDFDocument.load(bytes, { updateMetadata: false });
    } catch (error) {
      const name = (error as Error).name ?? '';
      throw corrupted(name === 'EncryptedPDFError' || /encrypt/i.test(String((error as Error).message)) ? 'encrypted' : 'its objects cannot be parsed');
    }
    return { pages, pageSizes, tags };
  } finally {
    doc.destroy?.();
  }
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * Longest side, in pixels, of a rendered page image. A PDF page may be 14,400 points square (200 inches,
 * ISO 32000-1 annex C.2; more with `UserUnit`): at the signing page's 1.5 scale that is a 21,600-pixel square,
 * a 1.4 GB pixmap that MuPDF's WebAssembly heap could not allocate (500), and rendering a 10,000-point page
 * held the event loop for 3.4-3.9 s and left the heap 1.2 GB larger. 2,400 pixels is an A4 page at 1.5
 * scale (893 x 1,263) with room to spare, and a 17 MB pixmap at most.
 */
export const MAX_RENDER_SIDE_PX = 2400;

/**
 * Renders page `index` (0-based) to PNG at `scale` (1 = 72 dpi) with MuPDF, or at the scale that fits the
 * longer side into {@link MAX_RENDER_SIDE_PX} pixels when that is smaller.
 * @throws Error when the page does not exist.
 */
export async function renderPagePng(bytes: Uint8Array, index: number, scale: number): Promise<Buffer> {
  const mupdf = await loadMupdf();
  const doc = mupdf.Document.openDocument(bytes, 'application/pdf');
  try {
    const page = doc.loadPage(index);
    const [x0, y0, x1, y1] = page.getBounds();
    const side = Math.max(1, x1 - x0, y1 - y0);
    const fitted = Math.min(scale, MAX_RENDER_SIDE_PX / side);
    const pix = page.toPixmap(mupdf.Matrix.scale(fitted, fitted), mupdf.ColorSpace.DeviceRGB, false, true);
    try {
      return Buffer.from(pix.asPNG());
    } finally {
      pix.destroy?.();
    }
  } finally {
    doc.destroy?.();
  }
}

/**
 * Most bytes of decoded content streams that the pages of one PDF may draw, counting a stream (or form
 * XObject) once for every page and every time it is used: the cost of interpreting the file is about
 * proportional to it. MuPDF extracted text at about 4.6 MB/s of such content here (a 200-page file sharing
 * one 420 KB stream of text operators took 18 s to scan, issue 31), so 8 MiB is under 2 s of scanning;
 * a dense 200-page contract draws about 4 MB.
 */
export const MAX_CONTENT_BYTES = 8 * 1024 * 1024;
/** Deepest nesting of form XObjects followed when measuring a page (deeper forms count as over budget). */
const MAX_FORM_DEPTH = 8;
/** Most PDF objects (dictionary and array entries included) visited when looking for active content. */
export const MAX_OBJECTS_VISITED = 2_000_000;

type MuObj = import('mupdf').PDFObject;
type MuPdfDoc = import('mupdf').PDFDocument;

/** `o` resolved (MuPDF's shared Null object cannot be resolved). */
const resolved = (o: MuObj): MuObj => (o.isNull() ? o : o.resolve());

const tooComplex = (why: string, details: Record<string, unknown>) =>
  new SigningError('pdf_too_complex', `The PDF is too costly to process: ${why}`, details);

/**
 * Decoded length of a stream object, decoding at most `limit` bytes: a Flate stream (the usual filter) is
 * inflated by node's zlib with an output cap, so a deflate bomb costs `limit` bytes, not gigabytes; other
 * filters are decoded by MuPDF.
 * @returns the length, or `limit + 1` when it is longer
 */
function decodedLength(stream: MuObj, limit: number): number {
  const filter = stream.get('Filter');
  const only = filter.isArray() && filter.length === 1 ? filter.get(0) : filter;
  const lengthOf = (b: import('mupdf').Buffer) => {
    try {
      return b.getLength();
    } finally {
      b.destroy?.();
    }
  };
  try {
    if (filter.isNull()) return lengthOf(stream.readRawStream());
    if (only.isName() && only.asName() === 'FlateDecode' && stream.get('DecodeParms').isNull()) {
      const raw = stream.readRawStream();
      try {
        return inflateSync(raw.asUint8Array(), { maxOutputLength: limit + 1, finishFlush: 2 /* Z_SYNC_FLUSH: tolerate a missing end */ }).length;
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) return limit + 1;
        throw error;
      } finally {
        raw.destroy?.();
      }
    }
    return lengthOf(stream.readStream());
  } catch (error) {
    if (error instanceof SigningError) throw error;
    throw corrupted('a content stream cannot be decoded');
  }
}

/**
 * Refuses a PDF whose pages draw more than {@link MAX_CONTENT_BYTES} of content (see there).
 * @throws SigningError `pdf_too_complex` with `details.content_bytes` (at least) and `max_content_bytes`
 */
export function assertContentBudget(pdf: MuPdfDoc, pages: number): void {
  const lengths = new Map<number, number>();
  let total = 0;
  const over = () => tooComplex(`its pages draw more than ${MAX_CONTENT_BYTES} bytes of content`, { reason: 'content_size', content_bytes: total, max_content_bytes: MAX_CONTENT_BYTES });
  const add = (ref: MuObj) => {
    // A stream is always indirect: MuPDF answers isStream() and reads it on the reference.
    const obj = ref;
    if (!obj.isStream()) return;
    const num = ref.isIndirect() ? ref.asIndirect() : -1;
    let len = num >= 0 ? lengths.get(num) : undefined;
    if (len === undefined) {
      len = decodedLength(obj, MAX_CONTENT_BYTES - total);
      if (num >= 0) lengths.set(num, len);
    }
    total += len;
    if (total > MAX_CONTENT_BYTES) throw over();
  };
  const forms = (resources: MuObj, depth: number, seen: Set<number>) => {
    const res = resolved(resources);
    if (!res.isDictionary()) return;
    const xobjects = resolved(res.get('XObject'));
    if (!xobjects.isDictionary()) return;
    xobjects.forEach((ref) => {
      const x = ref;
      if (!x.isStream() || resolved(x.get('Subtype')).toString() !== '/Form') return;
      const num = ref.isIndirect() ? ref.asIndirect() : -1;
      if (num >= 0 && seen.has(num)) return;
      if (depth >= MAX_FORM_DEPTH) throw tooComplex('its forms nest too deep', { reason: 'form_depth', max_depth: MAX_FORM_DEPTH });
      add(ref);
      forms(x.get('Resources'), depth + 1, num >= 0 ? new Set([...seen, num]) : seen);
    });
  };
  for (let i = 0; i < pages; i++) {
    let page: MuObj;
    try {
      page = pdf.findPage(i);
    } catch {
      throw corrupted(`page ${i + 1} cannot be loaded`);
    }
    const contents = resolved(page.get('Contents'));
    if (contents.isArray()) {
      for (let k = 0; k < contents.length; k++) add(contents.get(k));
    } else {
      add(page.get('Contents'));
    }
    forms(page.getInheritable('Resources'), 0, new Set());
  }
}

/** What {@link refuseActiveContent} found, one entry per kind (`object` is the first object number seen). */
export interface ActiveContentFinding {
  kind: 'javascript' | 'launch' | 'xfa' | 'embedded_file' | 'file_attachment' | 'signature' | 'signature_field';
  object: number;
}

const CODE_OF: Record<ActiveContentFinding['kind'], 'pdf_active_content' | 'pdf_embedded_file' | 'pdf_already_signed'> = {
  javascript: 'pdf_active_content',
  launch: 'pdf_active_content',
  xfa: 'pdf_active_content',
  embedded_file: 'pdf_embedded_file',
  file_attachment: 'pdf_embedded_file',
  signature: 'pdf_already_signed',
  signature_field: 'pdf_already_signed',
};

/**
 * Looks through every object of the file (those inside object streams too, as MuPDF resolves them) for what
 * we refuse to seal (module comment). Dictionaries are matched on their keys and names, wherever they sit:
 * `/JS` or `/S /JavaScript` (an action: `/OpenAction`, `/AA`, a link), the `/JavaScript` name tree,
 * `/S /Launch`, an `/XFA` form, `/EmbeddedFiles`, `/Type /EmbeddedFile`, a file specification with `/EF`,
 * `/Subtype /FileAttachment`, a `/ByteRange`, `/Type /Sig` or `/Type /DocTimeStamp`, and `/FT /Sig` fields.
 * @returns what was found (empty when nothing)
 * @throws SigningError `pdf_too_complex` past {@link MAX_OBJECTS_VISITED} entries
 */
export function findActiveContent(pdf: MuPdfDoc): ActiveContentFinding[] {
  const found = new Map<ActiveContentFinding['kind'], number>();
  const note = (kind: ActiveContentFinding['kind'], object: number) => {
    if (!found.has(kind)) found.set(kind, object);
  };
  let visited = 0;
  const nameOf = (o: MuObj) => (o.isName() ? o.asName() : null);
  const walk = (o: MuObj, object: number, depth: number): void => {
    if (++visited > MAX_OBJECTS_VISITED) throw tooComplex('it has too many objects', { reason: 'objects', max_objects: MAX_OBJECTS_VISITED });
    if (depth > 64) return;
    if (o.isArray()) {
      for (let k = 0; k < o.length; k++) {
        const v = o.get(k);
        if (!v.isIndirect()) walk(v, object, depth + 1);
      }
      return;
    }
    if (!o.isDictionary()) return;
    const type = nameOf(o.get('Type'));
    const s = nameOf(o.get('S'));
    if (!o.get('JS').isNull() || s === 'JavaScript' || !o.get('JavaScript').isNull()) note('javascript', object);
    if (s === 'Launch') note('launch', object);
    if (!o.get('XFA').isNull()) note('xfa', object);
    if (!o.get('EmbeddedFiles').isNull() || type === 'EmbeddedFile' || (type === 'Filespec' && !o.get('EF').isNull()) || !o.get('EF').isNull()) note('embedded_file', object);
    if (nameOf(o.get('Subtype')) === 'FileAttachment') note('file_attachment', object);
    if (!o.get('ByteRange').isNull() || type === 'Sig' || type === 'DocTimeStamp') note('signature', object);
    if (nameOf(o.get('FT')) === 'Sig') note('signature_field', object);
    o.forEach((v) => {
      if (!v.isIndirect()) walk(v, object, depth + 1);
    });
  };
  const count = pdf.countObjects();
  for (let num = 1; num < count; num++) {
    let obj: MuObj;
    try {
      obj = pdf.newIndirect(num).resolve();
    } catch {
      continue; // a free or unreadable entry: nothing to look at
    }
    walk(obj, num, 0);
  }
  walk(pdf.getTrailer(), 0, 0);
  return [...found].map(([kind, object]) => ({ kind, object }));
}

/**
 * Refuses a PDF with active content, embedded files or signatures (module comment), with the first kind
 * found deciding the code: `pdf_active_content`, then `pdf_embedded_file`, then `pdf_already_signed`.
 * @throws SigningError (422) with `details.found` listing every kind found and the object it was seen in
 */
export function refuseActiveContent(pdf: MuPdfDoc): void {
  const found = findActiveContent(pdf);
  if (found.length === 0) return;
  const codes = found.map((f) => CODE_OF[f.kind]);
  const code = (['pdf_active_content', 'pdf_embedded_file', 'pdf_already_signed'] as const).find((c) => codes.includes(c))!;
  const kinds = found.map((f) => f.kind.replace(/_/g, ' ')).join(', ');
  const message = {
    pdf_active_content: `The PDF contains active content (${kinds}); remove it and upload again: we do not seal scripts or actions under our certificate`,
    pdf_embedded_file: `The PDF embeds files (${kinds}); remove them and upload again: we seal only what the signers are shown`,
    pdf_already_signed: `The PDF is already signed or has signature fields (${kinds}); upload the unsigned document: sealing it again would break its earlier signature`,
  }[code];
  throw new SigningError(code, message, { found });
}
