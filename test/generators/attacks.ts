/**
 * Capture and edit attacks on a synthetic INE front, for measuring the authenticity cues
 * (`models/ocr/forensics.ts`) against genuine degraded fronts of the same seed and index:
 *
 * - `screen`: the clean card shown on an LCD (RGB vertical-stripe sub-pixels with a dark gap, the
 *   card at a non-integer 0.9-1.6 screen px per card px, gamma 0.8-1.2, a cool white point, raised
 *   black level, a specular glare blob), photographed through {@link degrade}: the sensor samples the
 *   sub-pixel grid at 1.1-1.9 sensor px per screen px after 0.3-0.6 px of optical blur (a non-integer
 *   ratio near the alias band is what makes moiré on real photos of screens), then perspective,
 *   rotation, noise, a scale-down to the genuine photos' size and JPEG 40.
 * - `photocopy`: greyscale, slight copier blur, levels pushed (the pale guilloche and pastel security
 *   background fall to white), toner speckle and a faint drum streak, on a white page; then either
 *   photographed ({@link degrade}) or flat-bed scanned (small rotation, JPEG 70-85).
 * - `edit`: the genuine phone photo (JPEG 40) with its portrait replaced by another face photo that
 *   never went through that compression (warped into place with the same homography), saved again
 *   at JPEG 70-95: the pasted region has a different compression history (error-level analysis).
 * - `no_face`: the portrait area blanked or filled with a non-face (flat tint, stripes, a landscape
 *   gradient, a text block) before the photo is taken.
 *
 * Deterministic from (seed, index, attack).
 */
import sharp from 'sharp';
import { degrade, homography, type DegradationInfo } from './degrade.ts';
import { facePhoto } from './faces.ts';
import { generateDocument } from './index.ts';
import { INE_CARD_SIZE } from './ine.ts';
import { createRng, type Rng } from './rng.ts';

/** The attacks {@link attackedIneFront} renders. */
export const ATTACKS = ['screen', 'photocopy', 'edit', 'no_face'] as const;
export type Attack = (typeof ATTACKS)[number];

/** One attacked (or genuine) INE front. */
export interface AttackedFront {
  /** JPEG bytes. */
  image: Buffer;
  attack: Attack | 'genuine';
  /** Card corners (TL, TR, BR, BL) in the output image, px (the portrait box maps through them). */
  corners: ReadonlyArray<readonly [number, number]>;
  /** Portrait box `[x, y, w, h]` in clean-card pixels. */
  photoBox: readonly [number, number, number, number];
  /** What was applied (attack parameters; the photo's degradation). */
  info: Record<string, unknown>;
}

/**
 * The INE front `index` of `seed` (same person and card as `generateDocument({type:'ine'})`),
 * genuine (degraded phone photo) or under `attack`.
 */
export async function attackedIneFront(seed: string, index: number, attack: Attack | 'genuine'): Promise<AttackedFront> {
  const rng = createRng(`${seed}:attack:${attack}:${index}`);
  if (attack === 'genuine' || attack === 'edit') {
    const doc = await generateDocument({ type: 'ine', seed, index, degrade: true });
    const genuine = doc.images.front!.data;
    const deg = (doc.truth.extra.degradations as Record<string, DegradationInfo>).front!;
    const photoBox = doc.truth.extra.photoBox as [number, number, number, number];
    if (attack === 'genuine') return { image: genuine, attack, corners: deg.corners, photoBox, info: {} };
    const edited = await pastePhoto(rng, genuine, photoBox, deg);
    return { image: edited.image, attack, corners: deg.corners, photoBox, info: edited.info };
  }
  const doc = await generateDocument({ type: 'ine', seed, index });
  const png = doc.images.front!.data;
  const photoBox = doc.truth.extra.photoBox as [number, number, number, number];
  const [cw, ch] = INE_CARD_SIZE;
  if (attack === 'screen') {
    const { png: screen, info } = await onScreen(rng, png);
    const sensor = info.sensorPerScreenPx as number;
    const photo = await degrade(rng.fork('camera'), screen, { outputScale: sensor / info.simPerScreenPx!, blurScale: 0.3, finalScale: 1 / (sensor * info.screenPxPerCardPx!) });
    return { image: photo.jpeg, attack, corners: photo.info.corners, photoBox, info: { ...info, photo: photo.info } };
  }
  if (attack === 'photocopy') {
    const { png: copy, info } = await photocopy(rng, png);
    const m = info.margin!;
    const page: Array<[number, number]> = [[0, 0], [cw + 2 * m, 0], [cw + 2 * m, ch + 2 * m], [0, ch + 2 * m]];
    const card: Array<[number, number]> = [[m, m], [m + cw, m], [m + cw, m + ch], [m, m + ch]];
    if (rng.chance(0.5)) {
      const photo = await degrade(rng.fork('camera'), copy);
      const H = homography(page, photo.info.corners);
      const corners = card.map(([x, y]) => {
        const w = H[6] * x + H[7] * y + H[8];
        return [(H[0] * x + H[1] * y + H[2]) / w, (H[3] * x + H[4] * y + H[5]) / w] as const;
      });
      return { image: photo.jpeg, attack, corners, photoBox, info: { ...info, capture: 'photo', photo: photo.info } };
    }
    const angle = rng.range(-3, 3);
    const q = rng.int(70, 85);
    const scan = await sharp(copy).rotate(angle, { background: '#fbfbf8' }).blur(rng.range(0.4, 0.8)).jpeg({ quality: q }).toBuffer();
    // sharp rotates about the centre and grows the canvas to hold the turned page.
    const a = (angle * Math.PI) / 180;
    const [pw, ph] = [cw + 2 * m, ch + 2 * m];
    const [ow, oh] = [Math.abs(pw * Math.cos(a)) + Math.abs(ph * Math.sin(a)), Math.abs(pw * Math.sin(a)) + Math.abs(ph * Math.cos(a))];
    const corners = card.map(([x, y]) => [ow / 2 + (x - pw / 2) * Math.cos(a) - (y - ph / 2) * Math.sin(a), oh / 2 + (x - pw / 2) * Math.sin(a) + (y - ph / 2) * Math.cos(a)] as const);
    return { image: scan, attack, corners, photoBox, info: { ...info, capture: 'scan', angle, jpegQuality: q } };
  }
  const { png: blanked, fill } = await blankPhoto(rng, png, photoBox);
  const photo = await degrade(rng.fork('camera'), blanked);
  return { image: photo.jpeg, attack, corners: photo.info.corners, photoBox, info: { fill, photo: photo.info } };
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
}

/**
 * The card on an LCD: each screen pixel is 3x3 simulation pixels, one vertical R, G, B stripe each,
 * the bottom row dimmed (the black matrix between pixel rows); card pixels are resampled to screen
 * pixels at a non-integer scale.
 */
async function onScreen(rng: Rng, png: Buffer): Promise<{ png: Buffer; info: Record<string, number> }> {
  const meta = await sharp(png).metadata();
  const pxPerCard = rng.range(0.9, 1.6);
  const sw = Math.round(meta.width! * pxPerCard);
  const sh = Math.round(meta.height! * pxPerCard);
  const screen = await sharp(png).removeAlpha().resize(sw, sh, { kernel: 'linear' }).raw().toBuffer();
  const gamma = rng.range(0.8, 1.2);
  const white = [rng.range(0.86, 0.95), rng.range(0.93, 0.99), 1];
  const black = rng.range(6, 18);
  const glare = { x: rng.range(0.1, 0.9) * sw, y: rng.range(0.1, 0.9) * sh, r: rng.range(0.12, 0.3) * sw, a: rng.range(30, 110) };
  const gap = rng.range(0.25, 0.5); // brightness of the inter-row black matrix
  const S = 3;
  const W = sw * S;
  const H = sh * S;
  const out = Buffer.alloc(W * H * 3);
  const lut = Array.from({ length: 256 }, (_, v) => Math.pow(v / 255, gamma) * 255);
  for (let y = 0; y < sh; y++) {
    for (let x = 0; x < sw; x++) {
      const i = (y * sw + x) * 3;
      const g = glare.a * Math.exp(-(((x - glare.x) ** 2 + (y - glare.y) ** 2) / (2 * glare.r * glare.r)));
      for (let dy = 0; dy < S; dy++) {
        const rowGain = dy === S - 1 ? gap : 1;
        for (let c = 0; c < 3; c++) {
          // Sub-column c is the stripe of colour c: it lights channel c only (the exposure below restores
          // the brightness). Glare is a white reflection on top of all of it.
          const v = (black + lut[screen[i + c]!]! * white[c]! * (1 - black / 255)) * rowGain;
          const o = ((y * S + dy) * W + x * S + c) * 3;
          for (let ch = 0; ch < 3; ch++) out[o + ch] = clamp((ch === c ? v : 0) + g / 3);
        }
      }
    }
  }
  // The phone's sensor samples the screen at 1.1-1.9 sensor pixels per screen pixel (a grid near or
  // above half the sampling rate aliases into moiré); optics (lens point-spread and focus, 0.3-0.6
  // sensor pixels) act before that sampling. The photo is then scaled down to the size of the genuine
  // photos, whose own blur (applied after sampling) is scaled to 0.3x.
  const sensorPerScreenPx = rng.range(1.1, 1.9);
  const lens = rng.range(0.3, 0.6) * (S / sensorPerScreenPx);
  // Camera exposure: a lit stripe covers a third of the pixel and (2 + gap) / 3 of its height.
  const exposure = 9 / (2 + gap);
  const blurred = await sharp(out, { raw: { width: W, height: H, channels: 3 }, limitInputPixels: false })
    .blur(Math.max(0.3, lens)).linear(exposure, 0).png({ compressionLevel: 1 }).toBuffer();
  const r = (v: number) => Math.round(v * 1000) / 1000;
  return { png: blurred, info: { screenPxPerCardPx: r(pxPerCard), sensorPerScreenPx: r(sensorPerScreenPx), gamma: r(gamma), blackLevel: r(black), glare: r(glare.a), lensSim: r(lens), simPerScreenPx: S } };
}

/**
 * A black-and-white photocopy: luminance, copier blur, levels [lo, hi] -> [0, 255] with a gamma
 * (pale security print drops to white), toner speckle and a faint streak, on a white page margin.
 */
async function photocopy(rng: Rng, png: Buffer): Promise<{ png: Buffer; info: Record<string, number> }> {
  const blur = rng.range(0.5, 1.1);
  const { data, info } = await sharp(png).removeAlpha().grayscale().blur(blur).raw().toBuffer({ resolveWithObject: true });
  const lo = rng.range(50, 100);
  const hi = rng.range(165, 205);
  const gamma = rng.range(0.8, 1.25);
  const margin = Math.round(info.width * rng.range(0.05, 0.12));
  const W = info.width + 2 * margin;
  const H = info.height + 2 * margin;
  const paper = rng.range(240, 252);
  const out = Buffer.alloc(W * H * 3, Math.round(paper));
  const speckle = rng.range(0.0004, 0.002);
  const streakX = rng.int(0, W - 1);
  const streak = rng.range(10, 40);
  let seed = rng.int(1, 2 ** 31 - 2);
  const rnd = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const sx = x - margin;
      const sy = y - margin;
      let v = paper;
      if (sx >= 0 && sy >= 0 && sx < info.width && sy < info.height) {
        const t = Math.min(1, Math.max(0, (data[sy * info.width + sx]! - lo) / (hi - lo)));
        v = Math.pow(t, gamma) * paper;
        // The card's edge leaves a thin grey shadow on the copy.
        if (sx < 2 || sy < 2 || sx >= info.width - 2 || sy >= info.height - 2) v = Math.min(v, 150);
      }
      if (Math.abs(x - streakX) < 2) v -= streak;
      if (rnd() < speckle) v = rnd() * 60;
      const o = (y * W + x) * 3;
      out[o] = out[o + 1] = out[o + 2] = clamp(v);
    }
  }
  const copy = await sharp(out, { raw: { width: W, height: H, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer();
  const r = (v: number) => Math.round(v * 1000) / 1000;
  return { png: copy, info: { copierBlur: r(blur), levelLo: r(lo), levelHi: r(hi), gamma: r(gamma), speckle: r(speckle), margin } };
}

/**
 * Replaces the portrait of a degraded photo: another face photo (colour, never JPEG-compressed) is
 * warped with the photo's own homography onto the portrait box, blurred like the rest, and the whole
 * image is saved again at JPEG 70-95.
 */
async function pastePhoto(rng: Rng, jpeg: Buffer, photoBox: readonly number[], deg: DegradationInfo): Promise<{ image: Buffer; info: Record<string, unknown> }> {
  const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  const [bx, by, bw, bh] = photoBox as [number, number, number, number];
  const face = await facePhoto(rng.fork('face'), bw, bh, rng.chance(0.5));
  const { data: fp } = await sharp(face.png).removeAlpha().blur(0.6).raw().toBuffer({ resolveWithObject: true });
  // Card corners are in clean-card pixels (1012 x 638, ID-1 at 300 dpi): map output -> card.
  const [cardW, cardH] = INE_CARD_SIZE;
  const Hinv = homography(deg.corners, [[0, 0], [cardW, 0], [cardW, cardH], [0, cardH]]);
  const gain = rng.range(0.75, 1.0);
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const w = Hinv[6] * x + Hinv[7] * y + Hinv[8];
      const u = (Hinv[0] * x + Hinv[1] * y + Hinv[2]) / w - bx;
      const v = (Hinv[3] * x + Hinv[4] * y + Hinv[5]) / w - by;
      if (u < 0 || v < 0 || u >= bw - 1 || v >= bh - 1) continue;
      const i = (Math.floor(v) * bw + Math.floor(u)) * 3;
      const o = (y * info.width + x) * 3;
      for (let c = 0; c < 3; c++) data[o + c] = clamp(fp[i + c]! * gain);
    }
  }
  const q = rng.int(70, 95);
  const image = await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } }).jpeg({ quality: q }).toBuffer();
  return { image, info: { pasted: 'photo', source: face.source, jpegQuality: q } };
}

/** Fills the portrait box of a clean card with a non-face. */
async function blankPhoto(rng: Rng, png: Buffer, photoBox: readonly number[]): Promise<{ png: Buffer; fill: string }> {
  const [x, y, w, h] = photoBox as [number, number, number, number];
  const fill = rng.pick(['blank', 'tint', 'stripes', 'landscape', 'text'] as const);
  const tint = rng.pick(['#e9e4d8', '#d8dde6', '#cfc6bd', '#f3f3f3']);
  let body = '';
  if (fill === 'blank') body = `<rect width="${w}" height="${h}" fill="#fbfbfb"/>`;
  else if (fill === 'tint') body = `<rect width="${w}" height="${h}" fill="${tint}"/>`;
  else if (fill === 'stripes') {
    body = `<rect width="${w}" height="${h}" fill="${tint}"/>`;
    for (let i = 0; i < h; i += 12) body += `<rect y="${i}" width="${w}" height="5" fill="#8a7f74" opacity="0.6"/>`;
  } else if (fill === 'landscape') {
    body = `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#7fb3e0"/><stop offset="1" stop-color="#d9ecf7"/></linearGradient></defs>
<rect width="${w}" height="${h}" fill="url(#sky)"/><path d="M0 ${h * 0.65} L${w * 0.3} ${h * 0.4} L${w * 0.55} ${h * 0.6} L${w * 0.8} ${h * 0.35} L${w} ${h * 0.55} L${w} ${h} L0 ${h} Z" fill="#5b7f4a"/>`;
  } else {
    body = `<rect width="${w}" height="${h}" fill="#f5f5f0"/>`;
    for (let i = 0; i < 9; i++) body += `<text x="10" y="${30 + i * 30}" font-family="DejaVu Sans" font-size="16" fill="#333">${'LOREM IPSUM DOLOR'.slice(0, 8 + (i % 9))}</text>`;
  }
  const patch = await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${body}</svg>`)).png().toBuffer();
  const out = await sharp(png).composite([{ input: patch, left: x, top: y }]).png().toBuffer();
  return { png: out, fill };
}
