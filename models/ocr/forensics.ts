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

/**
 * Colourfulness of Hasler & Süsstrunk ("Measuring colourfulness in natural images", SPIE 5007, 2003):
 * opponent channels rg = R - G, yb = (R + G) / 2 - B over the region (every second pixel),
 * `M = sqrt(σrg² + σyb²) + 0.3 sqrt(μrg² + μyb²)`. `spread` is the first term alone, which a uniform
 * colour cast (white balance, a yellowish lamp) does not change: a greyscale photocopy photographed
 * under a tinted light keeps a near-zero spread, a colour-printed card does not.
 */
export function haslerColourfulness(img: RgbImage, region: Box): { m: number; spread: number } {
  const r = clampBox(region, img.width, img.height);
  let n = 0;
  let srg = 0;
  let srg2 = 0;
  let syb = 0;
  let syb2 = 0;
  for (let y = r.y; y < r.y + r.h; y += 2) {
    for (let x = r.x; x < r.x + r.w; x += 2) {
      const i = (y * img.width + x) * 3;
      const R = img.data[i]!;
      const G = img.data[i + 1]!;
      const B = img.data[i + 2]!;
      const rg = R - G;
      const yb = (R + G) / 2 - B;
      srg += rg;
      srg2 += rg * rg;
      syb += yb;
      syb2 += yb * yb;
      n++;
    }
  }
  if (!n) return { m: 0, spread: 0 };
  const mrg = srg / n;
  const myb = syb / n;
  const spread = Math.sqrt(Math.max(0, srg2 / n - mrg * mrg) + Math.max(0, syb2 / n - myb * myb));
  return { m: spread + 0.3 * Math.hypot(mrg, myb), spread };
}

const fftTables = new Map<number, { rev: Uint16Array; cos: Float64Array; sin: Float64Array }>();

/** In-place radix-2 complex FFT (iterative Cooley-Tukey); `re`/`im` length a power of two. */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  let t = fftTables.get(n);
  if (!t) {
    const rev = new Uint16Array(n);
    const bits = Math.log2(n);
    for (let i = 0; i < n; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      rev[i] = r;
    }
    t = { rev, cos: new Float64Array(n / 2).map((_, k) => Math.cos((-2 * Math.PI * k) / n)), sin: new Float64Array(n / 2).map((_, k) => Math.sin((-2 * Math.PI * k) / n)) };
    fftTables.set(n, t);
  }
  for (let i = 0; i < n; i++) {
    const j = t.rev[i]!;
    if (i < j) {
      const a = re[i]!;
      re[i] = re[j]!;
      re[j] = a;
      const b = im[i]!;
      im[i] = im[j]!;
      im[j] = b;
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const half = len >> 1;
    const step = n / len;
    for (let i = 0; i < n; i += len) {
      for (let k = 0; k < half; k++) {
        const wr = t.cos[k * step]!;
        const wi = t.sin[k * step]!;
        const p = i + k;
        const q = p + half;
        const xr = re[q]! * wr - im[q]! * wi;
        const xi = re[q]! * wi + im[q]! * wr;
        re[q] = re[p]! - xr;
        im[q] = im[p]! - xi;
        re[p] = re[p]! + xr;
        im[p] = im[p]! + xi;
      }
    }
  }
}

type Pt = readonly [number, number];

function insideQuad(p: Pt, q: readonly Pt[]): boolean {
  let sign = 0;
  for (let i = 0; i < 4; i++) {
    const a = q[i]!;
    const b = q[(i + 1) % 4]!;
    const c = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
    if (c !== 0) {
      if (sign && Math.sign(c) !== sign) return false;
      sign = Math.sign(c);
    }
  }
  return true;
}

/**
 * A tile without print strokes: under 1 % of its pixels are more than 60 grey levels darker than its
 * mean (text, photo and signature tiles carry broad spectra that would hide a faint periodic pattern).
 */
function isFlatTile(img: RgbImage, tx: number, ty: number, T: number): boolean {
  const g = new Float64Array(T * T);
  let mean = 0;
  for (let y = 0; y < T; y++) {
    for (let x = 0; x < T; x++) {
      const i = ((ty + y) * img.width + tx + x) * 3;
      const v = 0.299 * img.data[i]! + 0.587 * img.data[i + 1]! + 0.114 * img.data[i + 2]!;
      g[y * T + x] = v;
      mean += v;
    }
  }
  mean /= T * T;
  let dark = 0;
  for (let k = 0; k < g.length; k++) if (g[k]! < mean - 60) dark++;
  return dark <= 0.01 * T * T;
}

/** Side of the tiles of {@link screenMoire}, px. */
const MOIRE_TILE = 64;

/**
 * Screen-capture cue: a periodic pattern over the whole document, found as a peak of its averaged
 * power spectrum (Welch's method: 64x64 Hann-windowed tiles, the three colour channels
 * summed). Photographing a display samples its pixel/sub-pixel grid at a non-integer ratio, which
 * aliases into a moiré of one fixed frequency everywhere on the screen (the cue of recapture
 * detectors, e.g. Cao & Kot, "Identification of recaptured photographs on LCD screens", ICASSP 2010,
 * and the frequency-domain moiré features of face anti-spoofing, Patel et al., IEEE TIFS 2016);
 * printed text and guilloche spread their energy instead. Each spectrum bin is divided by the median
 * of the bins at the same radius (the 1/f fall-off of natural images), over radii 6-32 bins
 * (periods 2-10.7 px); bins on the JPEG 8-px block grid (a multiple of 8 on either axis) are skipped.
 * Runs on the working image (not resampled), over the non-overlapping tiles inside the document
 * quadrilateral that hold no print strokes (`isFlatTile`: card background, where a moiré shows).
 * @returns `peak`: the largest normalised bin (10-200 on genuine photos: JPEG and sensor-noise
 *   structure also make peaks; thousands for a strong moiré), `tiles` used, and the peak's bin `at`
 *   (cycles per 64 px horizontally `u` and vertically `v`)
 */
export function screenMoire(img: RgbImage, quad: readonly Pt[]): { peak: number; tiles: number; at: { u: number; v: number } } {
  const T = MOIRE_TILE;
  const xs = quad.map((p) => p[0]);
  const ys = quad.map((p) => p[1]);
  const x0 = Math.max(0, Math.floor(Math.min(...xs)));
  const y0 = Math.max(0, Math.floor(Math.min(...ys)));
  const x1 = Math.min(img.width, Math.ceil(Math.max(...xs)));
  const y1 = Math.min(img.height, Math.ceil(Math.max(...ys)));
  const hann = new Float64Array(T).map((_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (T - 1)));
  const power = new Float64Array(T * T);
  const re = new Float64Array(T * T);
  const im = new Float64Array(T * T);
  const rowR = new Float64Array(T);
  const rowI = new Float64Array(T);
  let tiles = 0;
  for (let ty = y0; ty + T <= y1; ty += T) {
    for (let tx = x0; tx + T <= x1; tx += T) {
      if (![[tx, ty], [tx + T, ty], [tx, ty + T], [tx + T, ty + T]].every((p) => insideQuad(p as unknown as Pt, quad))) continue;
      if (!isFlatTile(img, tx, ty, T)) continue;
      tiles++;
      for (let c = 0; c < 3; c++) {
        const at = (x: number, y: number) => img.data[((ty + y) * img.width + tx + x) * 3 + c]!;
        let mean = 0;
        for (let y = 0; y < T; y++) for (let x = 0; x < T; x++) mean += at(x, y);
        mean /= T * T;
        for (let y = 0; y < T; y++) {
          for (let x = 0; x < T; x++) {
            re[y * T + x] = (at(x, y) - mean) * hann[x]! * hann[y]!;
            im[y * T + x] = 0;
          }
        }
        for (let y = 0; y < T; y++) {
          const r = re.subarray(y * T, (y + 1) * T);
          const i = im.subarray(y * T, (y + 1) * T);
          fft(r, i);
        }
        for (let x = 0; x < T; x++) {
          for (let y = 0; y < T; y++) {
            rowR[y] = re[y * T + x]!;
            rowI[y] = im[y * T + x]!;
          }
          fft(rowR, rowI);
          for (let y = 0; y < T; y++) power[y * T + x]! += rowR[y]! * rowR[y]! + rowI[y]! * rowI[y]!;
        }
      }
    }
  }
  if (tiles < 4) return { peak: 0, tiles, at: { u: 0, v: 0 } };
  // Radial median per integer radius over the half-plane (the spectrum of a real signal is symmetric).
  const byRadius = new Map<number, number[]>();
  const bins: { r: number; p: number; u: number; v: number }[] = [];
  for (let v = 0; v <= T / 2; v++) {
    for (let u = -T / 2 + 1; u <= T / 2; u++) {
      if (v === 0 && u <= 0) continue;
      if (u % 8 === 0 || v % 8 === 0) continue;
      const r = Math.round(Math.hypot(u, v));
      if (r < 6 || r > T / 2) continue;
      const p = power[v * T + ((u + T) % T)]!;
      bins.push({ r, p, u, v });
      const list = byRadius.get(r) ?? [];
      list.push(p);
      byRadius.set(r, list);
    }
  }
  const median = new Map<number, number>();
  for (const [r, list] of byRadius) {
    list.sort((a, b) => a - b);
    median.set(r, list[Math.floor(list.length / 2)]!);
  }
  let peak = 0;
  let at = { u: 0, v: 0 };
  for (const b of bins) {
    const x = b.p / Math.max(1e-9, median.get(b.r)!);
    if (x > peak) {
      peak = x;
      at = { u: b.u, v: b.v };
    }
  }
  return { peak, tiles, at };
}

/**
 * JPEG ghost cue (H. Farid, "Exposing digital forgeries from JPEG ghosts", IEEE TIFS 4(1), 2009): an
 * image once saved at quality q1 changes little when recompressed at q1, much less than at the
 * qualities around it (a "ghost" dip), even after a later save at another quality; a region pasted in
 * afterwards (never compressed at q1) shows no dip. The image is recompressed at qualities 30-90
 * (step 10) and, over its textured 16x16 blocks (grey standard deviation over 6: flat paper changes
 * little at any quality), the median change is followed: a quality whose median is at least 0.5 grey
 * levels under both neighbours is a dip. At each dip, `outliers` is the share of textured blocks that
 * change by more than the median + 2.5 grey levels (the largest share over the dips; 0 when there is
 * no dip: a resized image, or a single save, whose curve falls steadily towards its own quality).
 * Needs the JPEG block grid: run it on the image as decoded (not resampled).
 */
export async function jpegGhost(img: RgbImage): Promise<{ outliers: number; ghostQuality: number | null }> {
  const raw = { width: img.width, height: img.height, channels: 3 as const };
  const src = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  const bs = 16;
  const bw = Math.floor(img.width / bs);
  const bh = Math.floor(img.height / bs);
  const textured: number[] = [];
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      let s = 0;
      let s2 = 0;
      for (let y = by * bs; y < (by + 1) * bs; y += 2) {
        for (let x = bx * bs; x < (bx + 1) * bs; x += 2) {
          const i = (y * img.width + x) * 3;
          const g = 0.299 * src[i]! + 0.587 * src[i + 1]! + 0.114 * src[i + 2]!;
          s += g;
          s2 += g * g;
        }
      }
      const n = (bs * bs) / 4;
      if (Math.sqrt(Math.max(0, s2 / n - (s / n) ** 2)) > 6) textured.push(by * bw + bx);
    }
  }
  if (!textured.length) return { outliers: 0, ghostQuality: null };
  const sweep: { q: number; median: number; errs: Float64Array }[] = [];
  for (let q = 30; q <= 90; q += 10) {
    const re = await sharp(await sharp(src, { raw }).jpeg({ quality: q }).toBuffer()).raw().toBuffer();
    const errs = new Float64Array(textured.length);
    textured.forEach((b, k) => {
      const by = Math.floor(b / bw);
      const bx = b % bw;
      let s = 0;
      for (let y = by * bs; y < (by + 1) * bs; y++) {
        for (let x = bx * bs; x < (bx + 1) * bs; x++) {
          const i = (y * img.width + x) * 3;
          s += Math.abs(src[i]! - re[i]!) + Math.abs(src[i + 1]! - re[i + 1]!) + Math.abs(src[i + 2]! - re[i + 2]!);
        }
      }
      errs[k] = s / (bs * bs * 3);
    });
    const sorted = Float64Array.from(errs).sort();
    sweep.push({ q, median: sorted[Math.floor(sorted.length / 2)]!, errs });
  }
  let best = 0;
  let ghostQuality: number | null = null;
  for (let k = 1; k < sweep.length - 1; k++) {
    const { q, median, errs } = sweep[k]!;
    if (median > sweep[k - 1]!.median - 0.5 || median > sweep[k + 1]!.median - 0.5) continue;
    const share = errs.filter((e) => e > median + 2.5).length / errs.length;
    if (ghostQuality === null || share > best) {
      best = share;
      ghostQuality = q;
    }
  }
  return { outliers: best, ghostQuality };
}
