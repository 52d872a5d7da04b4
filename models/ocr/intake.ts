/**
 * Input intake for OCR: format sniffing (JPEG, PNG, PDF), EXIF orientation, PDF rasterisation and the
 * quality gate (too small, too blurred). Raises `OcrError` with the spec's flat codes.
 */
import sharp, { type Metadata, type OutputInfo } from 'sharp';
import { OcrError } from '../../domain/ocr/errors.ts';
import { laplacianVariance, toGrey, type RgbImage } from './raster.ts';

/** Largest accepted upload (spec "Limits": OCR file size 10 MB per file). */
export const MAX_OCR_FILE_BYTES = 10 * 1024 * 1024;
/**
 * Shorter side below this (px, after orientation) is rejected as `image_too_small`: a TD1 card
 * photographed edge to edge at 150 px puts its MRZ characters at about 6 px, the least the recogniser
 * reads once enlarged (PassportEye's test images of 159-188 px read; see docs/mrz.md).
 */
export const MIN_SHORT_SIDE = 150;
/** Working resolution: longest side in px after decoding (larger inputs are downscaled). */
export const WORK_MAX_SIDE = 1600;
/**
 * Inputs whose shorter side is under 300 px are enlarged (Lanczos 3) to this longest side: the text
 * detector misses characters under about 8 px, which such small card photos have. (Enlarging larger
 * inputs measured worse: PassportEye's 600 px passports lost their MRZ rows at 1000 px.)
 */
export const WORK_MIN_SIDE = 800;
/** Decompression-bomb guard: sharp refuses inputs with more pixels than this. */
export const MAX_INPUT_PIXELS = 60_000_000;
/**
 * Focus threshold on the variance of the Laplacian measured at 800 px width. Chosen on the synthetic
 * set (`scripts/ocr-eval.ts`): degraded-but-readable documents (Gaussian blur sigma <= 1.5, JPEG 40)
 * measure well above it; sigma >= 4 blurs, which no engine reads, fall below.
 */
export const BLUR_THRESHOLD = 12;

/** What kind of bytes these are, by magic number; null when not JPEG/PNG/PDF. */
export function sniffFormat(bytes: Uint8Array): 'jpeg' | 'png' | 'pdf' | 'webp' | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'png';
  if (bytes.length >= 5 && Buffer.from(bytes.subarray(0, 1024)).includes('%PDF-')) return 'pdf';
  if (bytes.length >= 12 && Buffer.from(bytes.subarray(0, 4)).toString() === 'RIFF' && Buffer.from(bytes.subarray(8, 12)).toString() === 'WEBP') return 'webp';
  return null;
}

/**
 * Rasterises the page of a PDF that holds the document: the first page when there is one, otherwise the
 * page (of the first 5) with the most ink at a 36 dpi preview. Rendered so the longest side is
 * {@link WORK_MAX_SIDE} px. Uses MuPDF (npm `mupdf`, WebAssembly).
 * @throws OcrError `unsupported_format` for an unreadable or empty PDF
 */
export async function rasterisePdf(bytes: Uint8Array): Promise<Buffer> {
  const mupdf = await import('mupdf');
  let doc: import('mupdf').Document;
  try {
    doc = mupdf.Document.openDocument(bytes, 'application/pdf');
  } catch {
    throw new OcrError('unsupported_format', 'The PDF could not be opened (corrupted or encrypted).');
  }
  try {
    const pages = doc.countPages();
    if (pages < 1) throw new OcrError('unsupported_format', 'The PDF has no pages.');
    let pick = 0;
    if (pages > 1) {
      let best = -1;
      for (let i = 0; i < Math.min(5, pages); i++) {
        const page = doc.loadPage(i);
        const pix = page.toPixmap(mupdf.Matrix.scale(0.5, 0.5), mupdf.ColorSpace.DeviceGray, false);
        const px = pix.getPixels();
        let ink = 0;
        for (let k = 0; k < px.length; k++) ink += 255 - px[k]!;
        pix.destroy();
        page.destroy();
        if (ink > best) {
          best = ink;
          pick = i;
        }
      }
    }
    const page = doc.loadPage(pick);
    const [x0, y0, x1, y1] = page.getBounds();
    const side = Math.max(x1 - x0, y1 - y0);
    const scale = Math.min(4, WORK_MAX_SIDE / Math.max(1, side));
    const pix = page.toPixmap(mupdf.Matrix.scale(scale, scale), mupdf.ColorSpace.DeviceRGB, false);
    const png = Buffer.from(pix.asPNG());
    pix.destroy();
    page.destroy();
    return png;
  } catch (e) {
    if (e instanceof OcrError) throw e;
    throw new OcrError('unsupported_format', 'The PDF page could not be rendered.');
  } finally {
    doc.destroy();
  }
}

/** A decoded, upright working image plus its measured quality. */
export interface IntakeImage {
  image: RgbImage;
  /** Size of the upright original before downscaling. */
  original: { width: number; height: number; format: string };
  /** Variance of the Laplacian at 800 px width. */
  sharpness: number;
  /** Size of the upload in bytes. */
  bytes: number;
  /** The decoded, upright input at full resolution (PNG/JPEG bytes; the rendered page for a PDF) for forensics. */
  source: Buffer;
}

/**
 * Decodes the upload: sniff, rasterise PDF, apply EXIF orientation (sharp `.rotate()`), downscale to
 * {@link WORK_MAX_SIDE} (or enlarge to {@link WORK_MIN_SIDE}), measure sharpness.
 * @throws OcrError `file_too_large`, `unsupported_format`, `image_too_small`, `image_too_blurry`
 */
export async function intake(bytes: Uint8Array, options: { checkBlur?: boolean } = {}): Promise<IntakeImage> {
  if (bytes.length > MAX_OCR_FILE_BYTES) throw new OcrError('file_too_large', 'The file is larger than 10 MB.');
  const fmt = sniffFormat(bytes);
  if (!fmt || fmt === 'webp') throw new OcrError('unsupported_format', 'The file is not a JPEG, PNG or PDF image.');
  let input: Buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (fmt === 'pdf') input = await rasterisePdf(bytes);
  let meta: Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  } catch {
    throw new OcrError('unsupported_format', 'The image could not be decoded (corrupted, truncated or too many pixels).');
  }
  const rotated = (meta.orientation ?? 1) >= 5;
  const w = rotated ? meta.height : meta.width;
  const h = rotated ? meta.width : meta.height;
  if (!w || !h) throw new OcrError('unsupported_format', 'The image has no dimensions.');
  if (Math.min(w, h) < MIN_SHORT_SIDE) {
    throw new OcrError('image_too_small', `The image is ${w}x${h} px; at least ${MIN_SHORT_SIDE} px on the shorter side are needed.`, { width: w, height: h });
  }
  let raw: { data: Buffer; info: OutputInfo };
  const side = Math.min(w, h) < 300 && Math.max(w, h) < WORK_MIN_SIDE ? WORK_MIN_SIDE : WORK_MAX_SIDE;
  try {
    raw = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
      .rotate()
      .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: side === WORK_MAX_SIDE, kernel: 'lanczos3' })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch {
    throw new OcrError('unsupported_format', 'The image could not be decoded (corrupted or truncated).');
  }
  const image: RgbImage = { data: new Uint8Array(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength), width: raw.info.width, height: raw.info.height };
  // From the decoded working image (not a second decode of the upload: issue 18, OCR time); the same
  // pipeline (resize to 800 px, grey) as the original for uploads up to WORK_MAX_SIDE, which are not resized.
  const sharpness = await measureSharpnessRaw(raw.data, raw.info.width, raw.info.height);
  if (options.checkBlur !== false && sharpness < BLUR_THRESHOLD) {
    throw new OcrError('image_too_blurry', 'The image is too blurred to read; take the photo again in focus.', { sharpness: Math.round(sharpness * 10) / 10, threshold: BLUR_THRESHOLD });
  }
  return { image, original: { width: w, height: h, format: fmt }, sharpness, bytes: bytes.length, source: input };
}

/**
 * Sharpness of an already decoded RGB image (8-bit, 3 channels, upright): the variance of the Laplacian
 * of its greyscale resized to 800 px width.
 */
export async function measureSharpnessRaw(rgb: Buffer, width: number, height: number): Promise<number> {
  const { data, info } = await sharp(rgb, { raw: { width, height, channels: 3 } }).resize({ width: 800 }).greyscale().raw().toBuffer({ resolveWithObject: true });
  const g = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) g[i] = data[i]!;
  return laplacianVariance(g, info.width, info.height);
}

export { toGrey };
