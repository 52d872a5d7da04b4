/**
 * Image decoding for the face models, with `sharp` (libvips from npm).
 *
 * - The format is judged from the bytes ({@link sniffImageFormat}); anything but JPEG/PNG/WebP is
 *   `unsupported_format`, as is a truncated or corrupt file of an accepted format.
 * - EXIF orientation is applied (`rotate()` with no angle), so every coordinate the API returns is in
 *   the pixels of the image as a viewer shows it.
 * - Alpha is dropped (flattened on white) and the result is 8-bit sRGB, 3 channels, row major.
 * - `limitInputPixels` ({@link MAX_INPUT_PIXELS}) refuses decompression bombs before allocation.
 */
import sharp, { type OutputInfo } from 'sharp';
import { faceWork } from './work-counters.ts';
import { faceError } from '../../domain/face/errors.ts';
import {
  MAX_IMAGE_BYTES, MAX_INPUT_PIXELS, MIN_IMAGE_SIDE, sniffImageFormat, type ImageFormat,
} from '../../domain/face/image-format.ts';

sharp.concurrency(1); // one libvips thread per worker: the pool itself provides the parallelism
sharp.cache(false);

/** A decoded RGB image: `data.length === width * height * 3`, values 0-255. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
  format: ImageFormat;
}

/**
 * Decodes image bytes into {@link RgbImage}.
 * @param bytes the uploaded file
 * @param imageName the request field name, used in error details (e.g. `image1`)
 * @throws coded `image_too_large` (over 5 MB), `unsupported_format` (not JPEG/PNG/WebP or undecodable),
 *   `image_too_small` (under 100x100 px after EXIF orientation)
 */
export async function decodeImage(bytes: Uint8Array, imageName = 'image'): Promise<RgbImage> {
  if (bytes.byteLength > MAX_IMAGE_BYTES) {
    throw faceError('image_too_large', `${imageName} is larger than 5 MB`, { image: imageName, max_bytes: MAX_IMAGE_BYTES });
  }
  const format = sniffImageFormat(bytes);
  if (format === null || format === 'gif') {
    throw faceError('unsupported_format', `${imageName} is not a JPEG, PNG or WebP image`, {
      image: imageName, detected: format ?? 'unknown', accepted: ['jpeg', 'png', 'webp'],
    });
  }
  let out: { data: Buffer; info: OutputInfo };
  faceWork.decodes += 1;
  try {
    out = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', sequentialRead: true })
      .rotate()
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    if (/pixel limit/i.test(msg)) {
      throw faceError('image_too_large', `${imageName} has more than ${MAX_INPUT_PIXELS} pixels`, {
        image: imageName, max_pixels: MAX_INPUT_PIXELS,
      });
    }
    throw faceError('unsupported_format', `${imageName} could not be decoded as ${format} (truncated or corrupt file)`, {
      image: imageName, detected: format,
    });
  }
  const { width, height, channels } = out.info;
  if (channels !== 3) {
    throw faceError('unsupported_format', `${imageName} has an unsupported colour layout`, { image: imageName });
  }
  if (width < MIN_IMAGE_SIDE || height < MIN_IMAGE_SIDE) {
    throw faceError('image_too_small', `${imageName} is ${width}x${height} px; at least ${MIN_IMAGE_SIDE}x${MIN_IMAGE_SIDE} px is required`, {
      image: imageName, width, height, min_width: MIN_IMAGE_SIDE, min_height: MIN_IMAGE_SIDE,
    });
  }
  return { data: new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.byteLength), width, height, format };
}
