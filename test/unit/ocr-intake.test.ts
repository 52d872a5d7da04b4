/**
 * OCR intake: format sniffing, EXIF orientation, PDF page choice and rasterisation (MuPDF), quality gate,
 * hostile inputs. No OCR models involved.
 */
import * as mupdf from 'mupdf';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { OcrError } from '../../domain/ocr/errors.ts';
import { BLUR_THRESHOLD, intake, sniffFormat } from '../../models/ocr/intake.ts';
import { renderIneFront } from '../helpers/ocr-fixtures.ts';

async function code(p: Promise<unknown>): Promise<string | null> {
  try {
    await p;
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(OcrError);
    return (e as OcrError).code;
  }
}

/** A PDF whose page `withImageOn` (0-based) of `pages` holds `jpeg`; the others are blank. */
function pdfWith(jpeg: Buffer, pages: number, withImageOn: number): Uint8Array {
  const doc = new mupdf.PDFDocument();
  const img = doc.addImage(new mupdf.Image(jpeg));
  for (let i = 0; i < pages; i++) {
    const res = doc.newDictionary();
    const xobj = doc.newDictionary();
    if (i === withImageOn) xobj.put('Im0', img);
    res.put('XObject', xobj);
    const content = i === withImageOn ? 'q 550 0 0 350 30 200 cm /Im0 Do Q' : '';
    doc.insertPage(-1, doc.addPage([0, 0, 612, 792], 0, res, content));
  }
  return doc.saveToBuffer('compress').asUint8Array();
}

describe('OCR intake', () => {
  it('sniffs formats by magic bytes, not names', async () => {
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } }).png().toBuffer();
    const jpg = await sharp(png).jpeg().toBuffer();
    expect(sniffFormat(png)).toBe('png');
    expect(sniffFormat(jpg)).toBe('jpeg');
    expect(sniffFormat(Buffer.from('%PDF-1.7\n'))).toBe('pdf');
    expect(sniffFormat(Buffer.from('GIF89a'))).toBeNull();
    expect(sniffFormat(new Uint8Array())).toBeNull();
  });

  it('applies EXIF orientation before reading', async () => {
    const front = await renderIneFront();
    const tagged = await sharp(front).rotate(-90).jpeg().withMetadata({ orientation: 6 }).toBuffer(); // stored sideways, tag says rotate 90
    const r = await intake(tagged);
    expect(r.image.width).toBeGreaterThan(r.image.height); // upright landscape card again
  });

  it('rasterises the PDF page that holds the document', async () => {
    const jpeg = await sharp(await renderIneFront()).jpeg({ quality: 85 }).toBuffer();
    const r = await intake(pdfWith(jpeg, 3, 1));
    expect(r.original.format).toBe('pdf');
    expect(Math.max(r.image.width, r.image.height)).toBe(1600);
    // The picked page has the card: plenty of dark (ink) pixels, unlike the blank pages.
    let dark = 0;
    for (let i = 0; i < r.image.data.length; i += 3) if (r.image.data[i]! < 128) dark++;
    expect(dark).toBeGreaterThan(1000);
    expect(await code(intake(Buffer.from('%PDF-1.7\n% truncated and broken\n')))).toBe('unsupported_format');
  });

  it('rejects small, blurred, corrupt, oversized and bomb inputs with their codes', async () => {
    const small = await sharp({ create: { width: 140, height: 120, channels: 3, background: '#fff' } }).png().toBuffer();
    expect(await code(intake(small))).toBe('image_too_small');
    const blurred = await sharp(await renderIneFront()).blur(8).png().toBuffer();
    expect(await code(intake(blurred))).toBe('image_too_blurry');
    const sharpImg = await intake(await renderIneFront());
    expect(sharpImg.sharpness).toBeGreaterThan(BLUR_THRESHOLD * 3);
    expect(await code(intake(Buffer.from('not an image')))).toBe('unsupported_format');
    const jpg = await sharp(await renderIneFront()).jpeg().toBuffer();
    expect(await code(intake(jpg.subarray(0, 200)))).toBe('unsupported_format');
    expect(await code(intake(new Uint8Array(10 * 1024 * 1024 + 1)))).toBe('file_too_large');
    // A PNG header declaring 100000 x 100000 pixels (decompression bomb) is refused before decoding.
    const bomb = Buffer.from(await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } }).png().toBuffer());
    bomb.writeUInt32BE(100000, 16);
    bomb.writeUInt32BE(100000, 20);
    expect(await code(intake(bomb))).toBe('unsupported_format');
  });
});
