/**
 * Judging and reading uploaded PDFs with real parsers: MuPDF (npm `mupdf`, WebAssembly) and pdf-lib
 * (which stamps and signs them later, so it must read them too).
 *
 * A PDF is refused as `pdf_corrupted` when: it does not start with a `%PDF-` header; MuPDF cannot open it
 * or had to REPAIR it (broken xref, truncated file: what a viewer would silently reconstruct is not what the
 * signer would be shown faithfully); it is encrypted (needs a password, or pdf-lib refuses it as encrypted);
 * it has no page; a page cannot be loaded; pdf-lib cannot parse it. More than {@link MAX_PDF_PAGES} pages is
 * `pdf_too_many_pages` (400).
 */
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
