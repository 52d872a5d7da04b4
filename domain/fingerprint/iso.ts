/**
 * ISO/IEC 19794-2:2005 finger minutiae record format (FMR), import and export.
 *
 * Layout (big-endian; ISO/IEC 19794-2:2005 §7): header of 24 bytes: "FMR\0", version " 20\0", record
 * length (4 bytes), capture equipment (2), image width and height in pixels (2 + 2), x and y resolution
 * in pixels per centimetre (2 + 2), number of finger views (1), reserved (1). Each finger view: finger
 * position (1), view number and impression type (1), finger quality 0-100 (1), number of minutiae (1),
 * then 6 bytes per minutia: type (2 bits: 01 ending, 10 bifurcation, 00 other) and x (14 bits), reserved
 * (2 bits) and y (14 bits), angle (1 byte, units of 360/256 degrees, counter-clockwise), quality (1); then
 * the extended data block length (2) and its bytes.
 *
 * Coordinates are rescaled to 500 ppi (197 px/cm) on import.
 */
import { FingerprintError } from './errors.ts';
import { normAngle, type FingerprintTemplate, type Minutia } from './template.ts';

/**
 * Our angle minus the ISO angle. ISO/IEC 19794-2 measures a ridge ending's direction along the ridge into
 * its body (and a bifurcation's along the valley into the fork); our extractor points the other way
 * (template.ts). Checked on the FVC2002 ISO templates of ../shared/data: matching them against our
 * extraction of the same image works with this offset, not without (docs/fingerprint.md).
 */
export const ISO_ANGLE_OFFSET = Math.PI;

export interface IsoRecord {
  template: FingerprintTemplate;
  fingerPosition: number;
}

const bad = (why: string, details: Record<string, unknown> = {}) => new FingerprintError('invalid_template', `Not a valid ISO/IEC 19794-2:2005 template: ${why}`, details);

/** True when the bytes start with the FMR magic. */
export function isIsoTemplate(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x46 && b[1] === 0x4d && b[2] === 0x52 && b[3] === 0;
}

/**
 * Parses the first finger view of a record. Zero bytes after the declared record length are padding and
 * ignored (SourceAFIS's sample templates are 263-269 byte records padded with zeros to 384 bytes).
 * @throws FingerprintError `invalid_template` on a wrong magic or version, a record length above the byte
 * count (truncated) or followed by non-zero bytes, a truncated view or extended data block,
 * coordinates outside the image, or a zero resolution.
 */
export function parseIsoTemplate(file: Uint8Array): IsoRecord {
  let b = file;
  if (b.length < 24) throw bad('shorter than the 24-byte header', { bytes: b.length });
  if (!isIsoTemplate(b)) throw bad('missing the "FMR" format identifier');
  if (!(b[4] === 0x20 && b[5] === 0x32 && b[6] === 0x30 && b[7] === 0)) throw bad('unsupported version (expected " 20")');
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const length = dv.getUint32(8);
  if (length >= 24 && length < b.length && b.subarray(length).every((x) => x === 0)) b = b.subarray(0, length);
  if (length !== b.length) throw bad(`record length field says ${length} bytes, the file has ${b.length}`, { declared_length: length, bytes: b.length });
  const width = dv.getUint16(14), height = dv.getUint16(16);
  const xres = dv.getUint16(18), yres = dv.getUint16(20);
  const views = b[22]!;
  if (xres === 0 || yres === 0) throw bad('zero resolution');
  if (views < 1) throw bad('no finger view');
  let o = 24;
  if (o + 4 > b.length) throw bad('truncated finger view header');
  const fingerPosition = b[o]!;
  const quality = b[o + 2]!;
  const n = b[o + 3]!;
  o += 4;
  if (o + n * 6 + 2 > b.length) throw bad(`truncated: ${n} minutiae need ${n * 6 + 2} more bytes`, { minutiae: n });
  const sx = 197 / xres, sy = 197 / yres;
  const minutiae: Minutia[] = [];
  for (let i = 0; i < n; i++, o += 6) {
    const t = b[o]! >> 6;
    const x = dv.getUint16(o) & 0x3fff;
    const y = dv.getUint16(o + 2) & 0x3fff;
    if ((width && x > width) || (height && y > height)) throw bad(`minutia ${i} lies outside the ${width}x${height} image`);
    minutiae.push({ x: x * sx, y: y * sy, angle: normAngle((b[o + 4]! / 256) * 2 * Math.PI + ISO_ANGLE_OFFSET), type: t === 1 ? 'ending' : t === 2 ? 'bifurcation' : 'other', quality: Math.min(100, b[o + 5]!) });
  }
  const ext = dv.getUint16(o);
  if (o + 2 + ext > b.length) throw bad('truncated extended data block');
  if (views === 1 && o + 2 + ext !== b.length) throw bad('trailing bytes after the finger view');
  if (fingerPosition > 10) throw bad(`finger position ${fingerPosition} is not an ANSI/NIST-ITL code 0-10`);
  return { template: { width: Math.round(width * sx), height: Math.round(height * sy), minutiae, quality: Math.min(100, quality) }, fingerPosition };
}

/** Writes a one-view record at 500 ppi (197 px/cm). */
export function toIsoTemplate(t: FingerprintTemplate, fingerPosition: number): Uint8Array {
  const ms = t.minutiae.slice(0, 255);
  const len = 24 + 4 + ms.length * 6 + 2;
  const b = new Uint8Array(len);
  const dv = new DataView(b.buffer);
  b.set([0x46, 0x4d, 0x52, 0, 0x20, 0x32, 0x30, 0]);
  dv.setUint32(8, len);
  dv.setUint16(12, 0);
  dv.setUint16(14, Math.min(0x3fff, t.width));
  dv.setUint16(16, Math.min(0x3fff, t.height));
  dv.setUint16(18, 197);
  dv.setUint16(20, 197);
  b[22] = 1;
  b[24] = fingerPosition;
  b[25] = 0;
  b[26] = Math.max(0, Math.min(100, Math.round(t.quality)));
  b[27] = ms.length;
  let o = 28;
  for (const m of ms) {
    const type = m.type === 'ending' ? 1 : m.type === 'bifurcation' ? 2 : 0;
    dv.setUint16(o, (type << 14) | (Math.max(0, Math.min(0x3fff, Math.round(m.x)))));
    dv.setUint16(o + 2, Math.max(0, Math.min(0x3fff, Math.round(m.y))));
    b[o + 4] = Math.round((normAngle(m.angle - ISO_ANGLE_OFFSET) / (2 * Math.PI)) * 256) & 255;
    b[o + 5] = Math.max(0, Math.min(100, Math.round(m.quality)));
    o += 6;
  }
  dv.setUint16(o, 0);
  return b;
}
