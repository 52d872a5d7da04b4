/**
 * Hand-made PDFs for the hostile-input tests (issue 31): a writer of raw objects with a correct
 * cross-reference table, so MuPDF, pdf-lib, qpdf and pdfsig read the file without repairing it, and the
 * crafted files themselves (costly pages, active content, embedded files, earlier signatures).
 */
import { deflateSync } from 'node:zlib';

/** One indirect object: its body text (`<< ... >>`), or a dictionary and stream data. */
export type RawObject = string | { dict: string; stream: Buffer | string; deflate?: boolean };

/**
 * Writes objects `1..n` (object 1 is the catalog) with a classic xref table and trailer. A stream's
 * `dict` holds its dictionary's entries without `<< >>` (e.g. `/Type /XObject`); `/Length`, and
 * `/Filter /FlateDecode` when `deflate`, are added.
 */
export function writePdf(objects: RawObject[], trailerExtra = ''): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(offset);
    let chunk: Buffer;
    if (typeof o === 'string') {
      chunk = Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`, 'latin1');
    } else {
      const raw = typeof o.stream === 'string' ? Buffer.from(o.stream, 'latin1') : o.stream;
      const data = o.deflate ? deflateSync(raw, { level: 9 }) : raw;
      chunk = Buffer.concat([
        Buffer.from(`${i + 1} 0 obj\n<< ${o.dict} ${o.deflate ? '/Filter /FlateDecode ' : ''}/Length ${data.length} >>\nstream\n`, 'latin1'),
        data,
        Buffer.from('\nendstream\nendobj\n', 'latin1'),
      ]);
    }
    parts.push(chunk);
    offset += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra}>>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/** A Helvetica font object body. */
const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';

/**
 * One `side` x `side` point page (14,400 is the largest the PDF 1.7 spec's implementation limits allow)
 * whose content stream strokes the same page-wide diagonal `lines` times with a very wide pen: tiny once
 * deflated, each stroke rasterises the whole page.
 */
export function hugePagePdf(lines: number, side = 14_400): Buffer {
  const ops = `${side / 4} w\n` + `0 0 m ${side} ${side} l S\n`.repeat(lines);
  return writePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${side} ${side}] /Contents 4 0 R >>`,
    { dict: '', stream: ops, deflate: true },
  ]);
}

/**
 * `pages` A4 pages all drawing the one content stream of `operators` text-showing operators (shared by
 * reference: the file stays small, every page costs the whole stream to scan).
 */
export function sharedHeavyStreamPdf(pages: number, operators: number): Buffer {
  const ops = 'BT /F1 1 Tf 10 10 Td\n' + '(x) Tj\n'.repeat(operators) + 'ET\n';
  const first = 5;
  const kids = Array.from({ length: pages }, (_, i) => `${first + i} 0 R`).join(' ');
  return writePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    { dict: '', stream: ops, deflate: true },
    FONT,
    ...Array.from({ length: pages }, () => '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 3 0 R >>'),
  ]);
}

/** A one-page A4 PDF with a line of text, plus `catalogExtra` entries in its catalog and `extra` objects numbered from 6. */
export function plainPdf(catalogExtra = '', extra: RawObject[] = [], pageExtra = ''): Buffer {
  return writePdf([
    `<< /Type /Catalog /Pages 2 0 R ${catalogExtra} >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R ${pageExtra} >>`,
    { dict: '', stream: 'BT /F1 12 Tf 72 760 Td (Contrato de prueba) Tj ET\n' },
    FONT,
    ...extra,
  ]);
}

/**
 * A PDF carrying the CMS blob `cms` in a signature dictionary whose `/ByteRange` covers the whole file but
 * the `/Contents` hex string: what a forger gets by copying a seal into a file of their own.
 */
export function pdfWithCopiedSignature(cms: Buffer, reason = 'copied'): Buffer {
  const hex = cms.toString('hex');
  const PAD = '0000000000';
  const sig = `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /ByteRange [0 ${PAD} ${PAD} ${PAD}] /Reason (${reason}) /M (D:20260101000000Z) /Contents <${hex}> >>`;
  const pdf = plainPdf('/AcroForm << /Fields [6 0 R] /SigFlags 3 >>', [`<< /Type /Annot /Subtype /Widget /FT /Sig /T (Signature1) /F 132 /Rect [0 0 0 0] /P 3 0 R /V 7 0 R >>`, sig], '/Annots [6 0 R]');
  const text = pdf.toString('latin1');
  const lt = text.indexOf(`/Contents <${hex}>`) + '/Contents '.length;
  const gt = lt + hex.length + 2;
  const range = [0, lt, gt, pdf.length - gt].map((n, i) => (i === 0 ? String(n) : String(n).padStart(10, ' ')));
  const at = text.indexOf(`[0 ${PAD} ${PAD} ${PAD}]`);
  const filled = `[${range.join(' ')}]`.padEnd(`[0 ${PAD} ${PAD} ${PAD}]`.length, ' ');
  pdf.write(filled, at, 'latin1');
  return pdf;
}
