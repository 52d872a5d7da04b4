/**
 * Face test images: crops of the group photos `@vladmandic/face-api` ships (`demo/sample1.jpg`, three
 * faces) and images generated here. Nothing is read from the network or from shared data.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';

const require = createRequire(import.meta.url);
const demoDir = path.join(path.dirname(require.resolve('@vladmandic/face-api/dist/face-api.node-wasm.js')), '..', 'demo');

/** `demo/sample1.jpg` (1920x1280, three faces). */
export const sample1 = (): Buffer => readFileSync(path.join(demoDir, 'sample1.jpg'));

/** Face boxes of sample1 as the detector finds them (used only to frame crops). */
const FACES = { a: { x: 414, y: 354, w: 177, h: 239 }, b: { x: 837, y: 419, w: 187, h: 227 }, c: { x: 1476, y: 198, w: 202, h: 240 } };

/** A 640x480 JPEG of one face of sample1, framed with `margin` (x face size) around it. */
export async function faceCrop(which: keyof typeof FACES, margin = 0.6, opts: { flip?: boolean; brightness?: number; format?: 'jpeg' | 'png' | 'webp' } = {}): Promise<Buffer> {
  const f = FACES[which];
  const side = Math.round(Math.max(f.w, f.h) * (1 + 2 * margin));
  const left = Math.max(0, Math.round(f.x + f.w / 2 - (side * 4) / 3 / 2));
  const top = Math.max(0, Math.round(f.y + f.h / 2 - side / 2));
  let img = sharp(sample1()).extract({ left, top, width: Math.min(1920 - left, Math.round((side * 4) / 3)), height: Math.min(1280 - top, side) }).resize(640, 480);
  if (opts.flip) img = img.flop();
  if (opts.brightness) img = img.modulate({ brightness: opts.brightness });
  const fmt = opts.format ?? 'jpeg';
  return fmt === 'png' ? img.png().toBuffer() : fmt === 'webp' ? img.webp().toBuffer() : img.jpeg({ quality: 90 }).toBuffer();
}

/** A 400x300 image with no face: a smooth colour gradient with a little structure. */
export async function noFace(): Promise<Buffer> {
  const w = 400, h = 300;
  const raw = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const o = (y * w + x) * 3;
    raw[o] = (x * 255) / w; raw[o + 1] = (y * 255) / h; raw[o + 2] = ((x + y) % 40) * 4;
  }
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } }).jpeg().toBuffer();
}

/** A valid 60x60 JPEG (under the 100x100 minimum). */
export const tiny = (): Promise<Buffer> => sharp({ create: { width: 60, height: 60, channels: 3, background: '#884422' } }).jpeg().toBuffer();

/** A PNG of noise just over 5 MB. */
export async function overFiveMb(): Promise<Buffer> {
  const w = 1400, h = 1400;
  const raw = Buffer.alloc(w * h * 3);
  let s = 12345;
  for (let i = 0; i < raw.length; i++) { s = (s * 1103515245 + 12345) >>> 0; raw[i] = s >>> 24; }
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
}

/** A 12000x12000 single-colour PNG: tiny file, 144 megapixels once decoded (decompression bomb). */
export const pixelBomb = (): Promise<Buffer> =>
  sharp({ create: { width: 12000, height: 12000, channels: 3, background: '#ffffff' } }).png({ compressionLevel: 9 }).toBuffer();

/** A minimal valid GIF (1x1). */
export const gif = (): Buffer => Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
