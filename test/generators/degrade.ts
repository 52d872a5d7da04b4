/**
 * Degradations that turn a clean render into something like a phone photo of the document:
 * placement on a textured background, perspective (random corner displacement), rotation up to
 * +/-15 degrees, uneven light, Gaussian blur, sensor noise and JPEG re-encoding at quality 40.
 * Deterministic from the given random source. The warp is a projective transform applied by
 * inverse mapping with bilinear sampling (homography from the 4-point DLT, Hartley & Zisserman,
 * "Multiple View Geometry", 2nd ed., 4.1).
 */
import sharp from 'sharp';
import type { Rng } from './rng.ts';

/** What was applied, for the ground truth. */
export interface DegradationInfo {
  readonly rotationDeg: number;
  /** Document corners (TL, TR, BR, BL) in the output image, px. */
  readonly corners: ReadonlyArray<readonly [number, number]>;
  readonly blurSigma: number;
  readonly jpegQuality: number;
  /** Brightness range of the light gradient (min, max multipliers). */
  readonly light: readonly [number, number];
  readonly noise: number;
  readonly background: string;
  readonly outputSize: readonly [number, number];
}

type Mat3 = [number, number, number, number, number, number, number, number, number];

/** Homography mapping the 4 `src` points to the 4 `dst` points (h33 = 1). */
export function homography(src: ReadonlyArray<readonly [number, number]>, dst: ReadonlyArray<readonly [number, number]>): Mat3 {
  const A: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = src[i]!;
    const [u, v] = dst[i]!;
    A.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    A.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  // Gaussian elimination with partial pivoting on the 8x9 augmented matrix.
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(A[r]![c]!) > Math.abs(A[p]![c]!)) p = r;
    [A[c], A[p]] = [A[p]!, A[c]!];
    const piv = A[c]![c]!;
    for (let k = c; k < 9; k++) A[c]![k]! /= piv;
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = A[r]![c]!;
      if (f !== 0) for (let k = c; k < 9; k++) A[r]![k]! -= f * A[c]![k]!;
    }
  }
  const h = A.map((row) => row[8]!);
  return [h[0]!, h[1]!, h[2]!, h[3]!, h[4]!, h[5]!, h[6]!, h[7]!, 1];
}

const BACKGROUNDS: ReadonlyArray<[string, [number, number, number], number]> = [
  ['wood table', [150, 108, 70], 1], ['grey desk', [120, 122, 126], 0], ['dark cloth', [45, 48, 60], 2], ['white sheet', [225, 222, 215], 2], ['green mat', [60, 100, 75], 0],
];

/** Options of {@link degrade}. */
export interface DegradeOptions {
  /**
   * Output pixels per source pixel (default 1). A capture attack renders the document at a higher
   * resolution (e.g. the sub-pixel grid of a screen) and lets the "camera" sample it down.
   */
  outputScale?: number;
  /**
   * Multiplies the drawn blur sigma (default 1). The blur here acts after the warp's sampling; a capture
   * attack that models its optics before sampling (where aliasing happens) keeps only a little of it.
   */
  blurScale?: number;
  /**
   * Resizes the photo by this factor (area filter) before the JPEG encoding (default 1): a phone
   * captures at its sensor's resolution and the image is scaled down before it is sent.
   */
  finalScale?: number;
}

/**
 * Degrades a rendered document.
 * @param png the clean document image.
 * @returns a JPEG (quality 40) and the parameters used.
 */
export async function degrade(rng: Rng, png: Buffer, options: DegradeOptions = {}): Promise<{ jpeg: Buffer; info: DegradationInfo }> {
  const { data: src, info: si } = await sharp(png, { limitInputPixels: false }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const sw = si.width;
  const sh = si.height;
  const k = options.outputScale ?? 1;
  const margin = 0.18;
  const ow = Math.round(sw * k * (1 + 2 * margin));
  const oh = Math.round(sh * k * (1 + 2 * margin));
  const rotationDeg = rng.range(-15, 15);
  const rot = (rotationDeg * Math.PI) / 180;
  const scale = rng.range(0.8, 0.95);
  const cx = ow / 2 + rng.range(-0.04, 0.04) * ow;
  const cy = oh / 2 + rng.range(-0.04, 0.04) * oh;
  const jitter = () => rng.range(-0.05, 0.05);
  const srcCorners: Array<[number, number]> = [[0, 0], [sw, 0], [sw, sh], [0, sh]];
  const corners = srcCorners.map(([x, y]) => {
    const px = ((x - sw / 2) * scale + jitter() * sw * scale) * k;
    const py = ((y - sh / 2) * scale + jitter() * sh * scale) * k;
    return [cx + px * Math.cos(rot) - py * Math.sin(rot), cy + px * Math.sin(rot) + py * Math.cos(rot)] as [number, number];
  });
  const Hinv = homography(corners, srcCorners); // output -> source
  const [bgName, bgColor, grain] = rng.pick(BACKGROUNDS);
  const lightMin = rng.range(0.55, 0.8);
  const lightMax = rng.range(1.0, 1.15);
  const lx = rng.range(0, ow);
  const ly = rng.range(0, oh);
  const maxD = Math.hypot(ow, oh);
  const noise = rng.range(3, 9);
  const out = Buffer.alloc(ow * oh * 3);
  // Cheap deterministic noise: an LCG seeded from the rng (Math.random is not reproducible).
  let seed = rng.int(1, 2 ** 31 - 2);
  const rnd = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) - 0.5;
  for (let y = 0; y < oh; y++) {
    for (let x = 0; x < ow; x++) {
      const w = Hinv[6] * x + Hinv[7] * y + Hinv[8];
      const sx = (Hinv[0] * x + Hinv[1] * y + Hinv[2]) / w;
      const sy = (Hinv[3] * x + Hinv[4] * y + Hinv[5]) / w;
      const o = (y * ow + x) * 3;
      let r: number, g: number, b: number;
      if (sx >= 0 && sy >= 0 && sx < sw - 1 && sy < sh - 1) {
        const x0 = Math.floor(sx);
        const y0 = Math.floor(sy);
        const fx = sx - x0;
        const fy = sy - y0;
        const i00 = (y0 * sw + x0) * 3;
        const i01 = i00 + sw * 3;
        const w00 = (1 - fx) * (1 - fy);
        const w10 = fx * (1 - fy);
        const w01 = (1 - fx) * fy;
        const w11 = fx * fy;
        r = src[i00]! * w00 + src[i00 + 3]! * w10 + src[i01]! * w01 + src[i01 + 3]! * w11;
        g = src[i00 + 1]! * w00 + src[i00 + 4]! * w10 + src[i01 + 1]! * w01 + src[i01 + 4]! * w11;
        b = src[i00 + 2]! * w00 + src[i00 + 5]! * w10 + src[i01 + 2]! * w01 + src[i01 + 5]! * w11;
      } else {
        const tex = grain === 1 ? Math.sin(y / 7 + Math.sin(x / 90) * 3) * 14 : grain === 2 ? Math.sin(x / 3) * Math.sin(y / 3) * 8 : 0;
        r = bgColor[0] + tex;
        g = bgColor[1] + tex;
        b = bgColor[2] + tex;
      }
      const l = lightMax - (lightMax - lightMin) * (Math.hypot(x - lx, y - ly) / maxD);
      const n = rnd() * noise;
      out[o] = clamp(r * l + n);
      out[o + 1] = clamp(g * l + n);
      out[o + 2] = clamp(b * l * 0.97 + n);
    }
  }
  const blurSigma = Math.max(0.3, rng.range(0.5, 1.6) * (options.blurScale ?? 1));
  const jpegQuality = 40;
  const f = options.finalScale ?? 1;
  let img = sharp(out, { raw: { width: ow, height: oh, channels: 3 } }).blur(blurSigma);
  if (f !== 1) img = sharp(await img.raw().toBuffer(), { raw: { width: ow, height: oh, channels: 3 } }).resize(Math.round(ow * f), Math.round(oh * f), { kernel: 'linear' });
  const jpeg = await img.jpeg({ quality: jpegQuality }).toBuffer();
  return {
    jpeg,
    info: {
      rotationDeg: Math.round(rotationDeg * 100) / 100,
      corners: corners.map(([x, y]) => [Math.round(x * f), Math.round(y * f)] as const),
      blurSigma: Math.round(blurSigma * 100) / 100,
      jpegQuality,
      light: [Math.round(lightMin * 100) / 100, Math.round(lightMax * 100) / 100],
      noise: Math.round(noise * 10) / 10,
      background: bgName,
      outputSize: f === 1 ? [ow, oh] : [Math.round(ow * f), Math.round(oh * f)],
    },
  };
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
}
