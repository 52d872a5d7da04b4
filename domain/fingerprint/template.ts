/**
 * The fingerprint template: minutiae in the pixel frame of a 500 ppi image.
 *
 * Conventions (those of ISO/IEC 19794-2:2005 except the sense of the direction, which iso.ts turns by π):
 * - `x` grows to the right, `y` grows downwards, in pixels at 500 ppi (197 px/cm).
 * - `angle` in radians in [0, 2π), counter-clockwise from the x axis as seen on screen (so with y down,
 *   a direction (dx, dy) has angle `atan2(-dy, dx)`). A ridge ending points along its ridge, away from
 *   the ridge (into the valley that continues it); a bifurcation points along its stem, away from the
 *   fork (so both types point the way the ISO templates beside FVC2002 do once turned by π).
 * - `quality` 0-100 (ISO minutia quality; 0 = not reported).
 */
export type MinutiaType = 'ending' | 'bifurcation' | 'other';

export interface Minutia {
  x: number;
  y: number;
  angle: number;
  type: MinutiaType;
  quality: number;
}

export interface FingerprintTemplate {
  /** Image width and height in pixels at 500 ppi (ISO header). */
  width: number;
  height: number;
  minutiae: Minutia[];
  /** NFIQ-style quality 0-100 of the print the template came from (ISO finger quality). */
  quality: number;
  /** Our extractor's coarse orientation field, base64 (field.ts); absent on ISO templates. */
  field?: string;
}

/** Version of our minutiae extractor and matcher, stored with each template. */
export const TEMPLATE_VERSION = 'sello-mcc-1';

/** The resolution every template is expressed at (pixels per inch). */
export const TEMPLATE_PPI = 500;

const TWO_PI = Math.PI * 2;

/** Angle normalised to [0, 2π). */
export function normAngle(a: number): number {
  a %= TWO_PI;
  return a < 0 ? a + TWO_PI : a;
}

/** Signed smallest difference a − b in (−π, π]. */
export function angleDiff(a: number, b: number): number {
  let d = (a - b) % TWO_PI;
  if (d <= -Math.PI) d += TWO_PI;
  else if (d > Math.PI) d -= TWO_PI;
  return d;
}

/**
 * Compact serialisation for events: 6 bytes per minutia (x u16, y u16, angle u8 in ISO units of 360/256
 * degrees, type 2 bits + quality 6 bits (quality / 100 × 63)), base64. Width, height, quality stored beside it.
 */
export function encodeMinutiae(ms: readonly Minutia[]): string {
  const buf = Buffer.alloc(ms.length * 6);
  ms.forEach((m, i) => {
    buf.writeUInt16LE(Math.max(0, Math.min(65535, Math.round(m.x))), i * 6);
    buf.writeUInt16LE(Math.max(0, Math.min(65535, Math.round(m.y))), i * 6 + 2);
    buf.writeUInt8(Math.round((normAngle(m.angle) / TWO_PI) * 256) & 255, i * 6 + 4);
    const t = m.type === 'ending' ? 1 : m.type === 'bifurcation' ? 2 : 0;
    buf.writeUInt8((t << 6) | Math.round((Math.max(0, Math.min(100, m.quality)) / 100) * 63), i * 6 + 5);
  });
  return buf.toString('base64');
}

/** Inverse of {@link encodeMinutiae}. @throws Error when the length is not a multiple of 6 bytes. */
export function decodeMinutiae(b64: string): Minutia[] {
  const buf = Buffer.from(b64, 'base64');
  if (buf.length % 6 !== 0) throw new Error('minutiae: byte length is not a multiple of 6');
  const out: Minutia[] = [];
  for (let o = 0; o < buf.length; o += 6) {
    const tq = buf.readUInt8(o + 5);
    const t = tq >> 6;
    out.push({
      x: buf.readUInt16LE(o),
      y: buf.readUInt16LE(o + 2),
      angle: (buf.readUInt8(o + 4) / 256) * TWO_PI,
      type: t === 1 ? 'ending' : t === 2 ? 'bifurcation' : 'other',
      quality: Math.round(((tq & 63) / 63) * 100),
    });
  }
  return out;
}
