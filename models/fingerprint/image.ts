/**
 * Fingerprint image decoding to 8-bit grey at 500 ppi.
 *
 * - The format is judged from the bytes: PNG, JPEG and TIFF are decoded by `sharp` (libvips), BMP by
 *   {@link decodeBmp} (libvips has no BMP loader), WSQ by our decoder (`./wsq.ts`).
 * - Resolution: `dpi` when the caller declares it, else a WSQ file's NISTCOM `PPI` (250-1500), else 500. The image is resampled to 500 ppi
 *   (Lanczos 3) when it differs by more than 1%; FVC2002 DB2 is 569 ppi (FVC2002 report, Maio et al. 2002).
 * - Limits: 4,000,000 pixels before resampling (decompression bombs are refused by libvips'
 *   `limitInputPixels` before allocation), sides 100-2,000 px after it.
 */
import sharp from 'sharp';
import { fingerprintJobError } from '../../domain/fingerprint/errors.ts';
import type { GrayImage } from '../../domain/fingerprint/extract.ts';
import { decodeWsq, isWsq } from './wsq.ts';

sharp.concurrency(1);
sharp.cache(false);

export const MAX_PIXELS = 4_000_000;
export const MIN_SIDE = 100;
export const MAX_SIDE = 2000;
/** Accepted declared resolutions (ppi). */
export const DPI_RANGE = { min: 250, max: 1500 } as const;

export type FingerprintFormat = 'png' | 'jpeg' | 'tiff' | 'bmp' | 'wsq';

/** Format from the leading bytes, or null. */
export function sniffFingerprintFormat(b: Uint8Array): FingerprintFormat | null {
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 4 && ((b[0] === 0x49 && b[1] === 0x49 && b[2] === 0x2a && b[3] === 0) || (b[0] === 0x4d && b[1] === 0x4d && b[2] === 0 && b[3] === 0x2a))) return 'tiff';
  if (b.length >= 2 && b[0] === 0x42 && b[1] === 0x4d) return 'bmp';
  if (isWsq(b)) return 'wsq';
  return null;
}

/**
 * Decodes and resamples a print to 8-bit grey at 500 ppi.
 * @throws coded `unsupported_format`, `image_too_large`, `image_too_small`.
 */
export async function decodeFingerprint(bytes: Uint8Array, dpi?: number): Promise<GrayImage & { format: FingerprintFormat; sourcePpi: number }> {
  const format = sniffFingerprintFormat(bytes);
  if (!format) throw fingerprintJobError('unsupported_format', 'The image is not a PNG, JPEG, TIFF, BMP or WSQ file', { accepted: ['png', 'jpeg', 'tiff', 'bmp', 'wsq'] });
  let gray: GrayImage;
  let ppi = dpi ?? 500;
  if (format === 'bmp' || format === 'wsq') {
    try {
      if (format === 'bmp') gray = decodeBmp(bytes);
      else {
        const w = decodeWsq(bytes);
        gray = w;
        // the NISTCOM `PPI` of a WSQ file, when plausible (a hostile value is ignored, 500 assumed)
        if (dpi === undefined && w.ppi >= DPI_RANGE.min && w.ppi <= DPI_RANGE.max) ppi = w.ppi;
      }
    } catch (error) {
      const e = error as Error & { code?: string };
      if (e.code) throw e;
      throw fingerprintJobError('unsupported_format', `The ${format.toUpperCase()} file could not be decoded (${e.message})`, { detected: format });
    }
    if (gray.width * gray.height > MAX_PIXELS) throw fingerprintJobError('image_too_large', `The image has more than ${MAX_PIXELS} pixels`, { max_pixels: MAX_PIXELS });
  } else {
    try {
      const out = await sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'error' }).flatten({ background: '#ffffff' }).greyscale().raw().toBuffer({ resolveWithObject: true });
      const ch = out.info.channels;
      const n = out.info.width * out.info.height;
      const data = new Uint8Array(n);
      for (let i = 0; i < n; i++) data[i] = out.data[i * ch]!;
      gray = { data, width: out.info.width, height: out.info.height };
    } catch (error) {
      const msg = error instanceof Error ? error.message : String(error);
      if (/pixel limit/i.test(msg)) throw fingerprintJobError('image_too_large', `The image has more than ${MAX_PIXELS} pixels`, { max_pixels: MAX_PIXELS });
      throw fingerprintJobError('unsupported_format', `The ${format.toUpperCase()} file could not be decoded (truncated or corrupt)`, { detected: format });
    }
  }
  if (Math.abs(ppi - 500) / 500 > 0.01) {
    const width = Math.max(1, Math.round((gray.width * 500) / ppi));
    const height = Math.max(1, Math.round((gray.height * 500) / ppi));
    if (width > MAX_SIDE * 2 || height > MAX_SIDE * 2) throw fingerprintJobError('image_too_large', `The image is over ${MAX_SIDE} px a side at 500 ppi`, { max_side: MAX_SIDE });
    const out = await sharp(Buffer.from(gray.data), { raw: { width: gray.width, height: gray.height, channels: 1 } }).resize(width, height, { kernel: 'lanczos3', fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
    const ch = out.info.channels;
    const data = new Uint8Array(out.info.width * out.info.height);
    for (let i = 0; i < data.length; i++) data[i] = out.data[i * ch]!;
    gray = { data, width: out.info.width, height: out.info.height };
  }
  if (gray.width < MIN_SIDE || gray.height < MIN_SIDE) {
    throw fingerprintJobError('image_too_small', `The print is ${gray.width}x${gray.height} px at 500 ppi; at least ${MIN_SIDE}x${MIN_SIDE} is required`, { width: gray.width, height: gray.height, min_side: MIN_SIDE });
  }
  if (gray.width > MAX_SIDE || gray.height > MAX_SIDE) {
    throw fingerprintJobError('image_too_large', `The print is ${gray.width}x${gray.height} px at 500 ppi; at most ${MAX_SIDE} px a side`, { width: gray.width, height: gray.height, max_side: MAX_SIDE });
  }
  return { ...gray, format, sourcePpi: ppi };
}

/**
 * Decodes an uncompressed Windows bitmap (BITMAPINFOHEADER or later; 1, 4, 8 bit palette, 24 or 32 bit
 * BGR; bottom-up or top-down) to grey (ITU-R BT.601 luma). Layout: Microsoft "Bitmap Storage" docs.
 * @throws Error on a truncated file, a compressed bitmap or an unsupported bit depth.
 */
export function decodeBmp(b: Uint8Array): GrayImage {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.length < 54) throw new Error('truncated header');
  const dataOffset = dv.getUint32(10, true);
  const headerSize = dv.getUint32(14, true);
  if (headerSize < 40) throw new Error('unsupported header');
  const width = dv.getInt32(18, true);
  const rawHeight = dv.getInt32(22, true);
  const bpp = dv.getUint16(28, true);
  const compression = dv.getUint32(30, true);
  if (width <= 0 || rawHeight === 0) throw new Error('bad dimensions');
  const height = Math.abs(rawHeight);
  if (width * height > MAX_PIXELS) throw fingerprintJobError('image_too_large', `The image has more than ${MAX_PIXELS} pixels`, { max_pixels: MAX_PIXELS });
  if (!(compression === 0 || (compression === 3 && bpp === 32))) throw new Error('compressed bitmaps are not supported');
  if (![1, 4, 8, 24, 32].includes(bpp)) throw new Error(`unsupported bit depth ${bpp}`);
  const rowBytes = Math.ceil((width * bpp) / 32) * 4;
  if (dataOffset + rowBytes * height > b.length) throw new Error('truncated pixel data');
  let palette: Uint8Array | null = null;
  if (bpp <= 8) {
    const colours = dv.getUint32(46, true) || 1 << bpp;
    const pOff = 14 + headerSize;
    if (pOff + colours * 4 > b.length) throw new Error('truncated palette');
    palette = new Uint8Array(256);
    for (let i = 0; i < Math.min(colours, 256); i++) {
      const o = pOff + i * 4;
      palette[i] = Math.round(0.114 * b[o]! + 0.587 * b[o + 1]! + 0.299 * b[o + 2]!);
    }
  }
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = dataOffset + (rawHeight > 0 ? height - 1 - y : y) * rowBytes;
    for (let x = 0; x < width; x++) {
      let v: number;
      if (bpp === 24 || bpp === 32) {
        const o = row + x * (bpp / 8);
        v = Math.round(0.114 * b[o]! + 0.587 * b[o + 1]! + 0.299 * b[o + 2]!);
      } else {
        const bit = x * bpp;
        const byte = b[row + (bit >> 3)]!;
        const idx = (byte >> (8 - bpp - (bit & 7))) & ((1 << bpp) - 1);
        v = palette![idx]!;
      }
      data[y * width + x] = v;
    }
  }
  return { data, width, height };
}
