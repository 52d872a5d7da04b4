/**
 * Image-forensics cues for the authenticity score (see `domain/ocr/authenticity.ts`). Each returns a
 * measured figure and a pass/fail against a documented threshold; all run on the working image.
 */
import sharp from 'sharp';
import type { RgbImage } from './raster.ts';

type Box = { x: number; y: number; w: number; h: number };

function clampBox(b: Box, w: number, h: number): Box {
  const x = Math.max(0, Math.floor(b.x));
  const y = Math.max(0, Math.floor(b.y));
  return { x, y, w: Math.max(0, Math.min(w - x, Math.ceil(b.w))), h: Math.max(0, Math.min(h - y, Math.ceil(b.h))) };
}

/**
 * Error-level analysis (N. Krawetz, "A Picture's Worth", Black Hat 2007): recompress at JPEG quality 90
 * and compare per 16x16 block. A region pasted in after the last compression recompresses differently
 * from the rest. Fails when the 99.5th-percentile block error exceeds 4x the median *and* 12 grey levels.
 */
export async function errorLevelAnalysis(img: RgbImage): Promise<{ ratio: number; p995: number; median: number; passed: boolean }> {
  const raw = { width: img.width, height: img.height, channels: 3 as const };
  const src = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  const jpg = await sharp(src, { raw }).jpeg({ quality: 90 }).toBuffer();
  const re = await sharp(jpg).raw().toBuffer();
  const bs = 16;
  const bw = Math.floor(img.width / bs);
  const bh = Math.floor(img.height / bs);
  const errs: number[] = [];
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      let s = 0;
      for (let y = by * bs; y < (by + 1) * bs; y++) {
        for (let x = bx * bs; x < (bx + 1) * bs; x++) {
          const i = (y * img.width + x) * 3;
          s += Math.abs(src[i]! - re[i]!) + Math.abs(src[i + 1]! - re[i + 1]!) + Math.abs(src[i + 2]! - re[i + 2]!);
        }
      }
      errs.push(s / (bs * bs * 3));
    }
  }
  errs.sort((a, b) => a - b);
  const median = errs[Math.floor(errs.length / 2)] ?? 0;
  const p995 = errs[Math.floor(errs.length * 0.995)] ?? 0;
  const ratio = p995 / Math.max(0.25, median);
  return { ratio, p995, median, passed: !(ratio > 4 && p995 > 12) };
}

/**
 * Screen-capture (moiré) cue: the autocorrelation of the horizontal Laplacian at lags 2..6 px over the
 * document region. Photographed screens carry a periodic sub-pixel grid that makes one of these peak;
 * printed cards and paper give low values. Fails above 0.35.
 */
export function moireScore(img: RgbImage, region: Box): { peak: number; passed: boolean } {
  const r = clampBox(region, img.width, img.height);
  if (r.w < 32 || r.h < 32) return { peak: 0, passed: true };
  const rows = Math.min(r.h, 200);
  const step = Math.max(1, Math.floor(r.h / rows));
  const acc = new Float64Array(7);
  let energy = 0;
  for (let y = r.y; y < r.y + r.h; y += step) {
    const hp = new Float32Array(r.w);
    for (let x = 1; x < r.w - 1; x++) {
      const i = (y * img.width + r.x + x) * 3;
      const g = (k: number) => img.data[k]! * 0.299 + img.data[k + 1]! * 0.587 + img.data[k + 2]! * 0.114;
      hp[x] = 2 * g(i) - g(i - 3) - g(i + 3);
    }
    for (let x = 1; x < r.w - 7; x++) {
      energy += hp[x]! * hp[x]!;
      for (let lag = 2; lag <= 6; lag++) acc[lag]! += hp[x]! * hp[x + lag]!;
    }
  }
  let peak = 0;
  for (let lag = 2; lag <= 6; lag++) peak = Math.max(peak, acc[lag]! / Math.max(1e-9, energy));
  return { peak, passed: peak <= 0.35 };
}

/**
 * Photocopy cue: mean HSV saturation of the document region. INE cards and passports are printed in
 * colour (security background); a black-and-white photocopy or print measures near 0. Fails below 0.04.
 */
export function colourfulness(img: RgbImage, region: Box): { saturation: number; passed: boolean } {
  const r = clampBox(region, img.width, img.height);
  let s = 0;
  let n = 0;
  for (let y = r.y; y < r.y + r.h; y += 2) {
    for (let x = r.x; x < r.x + r.w; x += 2) {
      const i = (y * img.width + x) * 3;
      const mx = Math.max(img.data[i]!, img.data[i + 1]!, img.data[i + 2]!);
      const mn = Math.min(img.data[i]!, img.data[i + 1]!, img.data[i + 2]!);
      s += mx === 0 ? 0 : (mx - mn) / mx;
      n++;
    }
  }
  const saturation = n ? s / n : 0;
  return { saturation, passed: saturation >= 0.04 };
}

/**
 * Face-in-photo-area cue: fraction of skin-tone pixels (YCbCr rule of Chai & Ngan, IEEE TCSVT 1999:
 * 77 <= Cb <= 127, 133 <= Cr <= 173) in the photo area, plus texture (grey standard deviation) there.
 * Passes when std >= 20 (a blank or flat pasted patch fails) and either >= 8 % skin or the area is a
 * greyscale portrait (mean saturation < 0.1: INE models E/F print the photo in grey). A heuristic, not a
 * face detector: it catches a missing or blanked photo, not a swapped one.
 */
export function facePresence(img: RgbImage, photo: Box): { skin: number; std: number; passed: boolean } {
  const r = clampBox(photo, img.width, img.height);
  if (r.w < 16 || r.h < 16) return { skin: 0, std: 0, passed: false };
  let skin = 0;
  let n = 0;
  let s = 0;
  let s2 = 0;
  let sat = 0;
  for (let y = r.y; y < r.y + r.h; y += 2) {
    for (let x = r.x; x < r.x + r.w; x += 2) {
      const i = (y * img.width + x) * 3;
      const R = img.data[i]!;
      const G = img.data[i + 1]!;
      const B = img.data[i + 2]!;
      const Y = 0.299 * R + 0.587 * G + 0.114 * B;
      const cb = 128 - 0.168736 * R - 0.331264 * G + 0.5 * B;
      const cr = 128 + 0.5 * R - 0.418688 * G - 0.081312 * B;
      if (cb >= 77 && cb <= 127 && cr >= 133 && cr <= 173) skin++;
      const mx = Math.max(R, G, B);
      sat += mx === 0 ? 0 : (mx - Math.min(R, G, B)) / mx;
      s += Y;
      s2 += Y * Y;
      n++;
    }
  }
  const mean = s / n;
  const std = Math.sqrt(Math.max(0, s2 / n - mean * mean));
  const frac = skin / n;
  const grey = sat / n < 0.1;
  return { skin: frac, std, passed: std >= 20 && (frac >= 0.08 || grey) };
}
