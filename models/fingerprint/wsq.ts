/** WSQ (FBI Wavelet Scalar Quantization) detection and decoding. */
import type { GrayImage } from '../../domain/fingerprint/extract.ts';

/** True when the bytes start with the WSQ SOI marker 0xFFA0 followed by another marker. */
export function isWsq(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0xff && b[1] === 0xa0 && b[2] === 0xff;
}

/** Decodes a WSQ file. @throws Error (not yet implemented). */
export function decodeWsq(_b: Uint8Array): GrayImage & { ppi: number } {
  throw Object.assign(new Error('WSQ decoding is not available'), { code: 'unsupported_format', details: { detected: 'wsq' } });
}
