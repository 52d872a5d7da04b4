/**
 * Image format sniffing from magic bytes (never from the file name or the declared content type).
 *
 * Signatures: JPEG `FF D8 FF` (ITU-T T.81 Annex B, SOI marker followed by a marker),
 * PNG `89 50 4E 47 0D 0A 1A 0A` (PNG spec section 5.2), WebP `RIFF....WEBP` (RIFF container,
 * Google WebP container spec). GIF (`GIF87a`/`GIF89a`) is recognised only to be refused.
 */
export type ImageFormat = 'jpeg' | 'png' | 'webp';

/** Accepted formats (spec Limits: JPG, JPEG, PNG, WebP). */
export const ACCEPTED_FORMATS: readonly ImageFormat[] = ['jpeg', 'png', 'webp'];

/** Maximum upload size per image in bytes (spec Limits: 5 MB = 5 * 1024 * 1024). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Minimum decoded width and height in pixels (spec Limits). */
export const MIN_IMAGE_SIDE = 100;
/** Minimum face box width and height in pixels (spec Limits). */
export const MIN_FACE_SIDE = 80;
/**
 * Maximum decoded pixel count (width x height) accepted by the decoder, a guard against decompression
 * bombs: 40 megapixels (about 7300x5500) is above any phone camera in use, while a 5 MB file claiming
 * more is rejected before its pixels are allocated.
 */
export const MAX_INPUT_PIXELS = 40_000_000;

/**
 * Returns the format named by the leading bytes, `'gif'` for a GIF, or `null` for anything else.
 * Reads at most 12 bytes; never throws.
 */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | 'gif' | null {
  const b = bytes;
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (
    b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 &&
    b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a
  ) return 'png';
  if (
    b.length >= 12 && b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 &&
    b[8] === 0x57 && b[9] === 0x45 && b[10] === 0x42 && b[11] === 0x50
  ) return 'webp';
  if (b.length >= 6 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38) return 'gif';
  return null;
}
