/**
 * Face photos for synthetic documents, from the sample images the `@vladmandic/face-api` npm
 * package ships (`demo/sample1-6.jpg`, group photos; the boxes below crop one head each, found
 * by inspecting the images). When that package is not installed, a drawn face is used instead
 * and the ground truth says so (`photoSource: 'drawn'`).
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { Rng } from './rng.ts';

/** Head boxes `[sample, left, top, width, height]` in the original 1920-px-wide images. */
const HEADS: ReadonlyArray<readonly [number, number, number, number, number]> = [
  [1, 444, 255, 288, 360], [1, 796, 357, 288, 360], [1, 1436, 195, 288, 360], [3, 556, 266, 288, 360], [3, 1036, 186, 288, 360],
  [3, 1456, 278, 288, 360], [6, 204, 436, 288, 360], [6, 676, 323, 288, 360], [6, 1088, 256, 288, 360], [6, 1496, 210, 288, 360],
  [4, 156, 126, 288, 360], [4, 596, 83, 288, 360], [4, 956, 147, 288, 360], [4, 1216, 104, 288, 360],
];

let demoDir: string | null | undefined;

/** Directory of face-api's demo images, or `null` when the package is absent. */
export function faceSampleDir(): string | null {
  if (demoDir !== undefined) return demoDir;
  try {
    const req = createRequire(import.meta.url);
    const pkg = req.resolve('@vladmandic/face-api/package.json');
    const dir = path.join(path.dirname(pkg), 'demo');
    demoDir = existsSync(path.join(dir, 'sample1.jpg')) ? dir : null;
  } catch {
    demoDir = null;
  }
  return demoDir;
}

const cache = new Map<string, Buffer>();

/**
 * A face photo `width` x `height` PNG (head and shoulders), colour or grey.
 * @returns the image and where it came from (`face-api:sampleN#i` or `drawn`).
 */
export async function facePhoto(rng: Rng, width: number, height: number, grey: boolean): Promise<{ png: Buffer; source: string }> {
  const dir = faceSampleDir();
  const i = rng.int(0, HEADS.length - 1);
  if (dir) {
    const [s, left, top, w, h] = HEADS[i]!;
    const key = `${i}:${width}x${height}:${grey}`;
    let png = cache.get(key);
    if (!png) {
      const file = path.join(dir, `sample${s}.jpg`);
      const meta = await sharp(file).metadata();
      // Widen the head box by 25% each way for shoulders, clamped to the image.
      const l = Math.max(0, Math.round(left - w * 0.25));
      const t = Math.max(0, Math.round(top - h * 0.12));
      const ww = Math.min(meta.width! - l, Math.round(w * 1.5));
      const hh = Math.min(meta.height! - t, Math.round(h * 1.45));
      let img = sharp(file).extract({ left: l, top: t, width: ww, height: hh }).resize(width, height, { fit: 'cover', position: 'top' });
      if (grey) img = img.grayscale();
      png = await img.png().toBuffer();
      cache.set(key, png);
    }
    return { png, source: `face-api:sample${s}#${i}` };
  }
  return { png: await drawnFace(rng, width, height, grey), source: 'drawn' };
}

async function drawnFace(rng: Rng, w: number, h: number, grey: boolean): Promise<Buffer> {
  const skin = grey ? '#b0b0b0' : rng.pick(['#e0ac69', '#c68642', '#8d5524', '#f1c27d']);
  const hair = grey ? '#303030' : rng.pick(['#2c1b10', '#4a3120', '#0d0d0d']);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 100 125">
  <rect width="100" height="125" fill="${grey ? '#dcdcdc' : '#e8eef5'}"/>
  <ellipse cx="50" cy="118" rx="42" ry="26" fill="${grey ? '#555' : '#34495e'}"/>
  <rect x="42" y="78" width="16" height="18" fill="${skin}"/>
  <ellipse cx="50" cy="42" rx="27" ry="30" fill="${hair}"/>
  <ellipse cx="50" cy="55" rx="22" ry="28" fill="${skin}"/>
  <ellipse cx="41" cy="50" rx="3.5" ry="2.2" fill="#222"/><ellipse cx="59" cy="50" rx="3.5" ry="2.2" fill="#222"/>
  <path d="M36 44 q5 -3 10 0 M54 44 q5 -3 10 0" stroke="#222" stroke-width="1.4" fill="none"/>
  <path d="M50 52 l-3 10 h6" stroke="#6b4a3a" stroke-width="1" fill="none"/>
  <path d="M42 70 q8 5 16 0" stroke="#8a3b3b" stroke-width="2" fill="none"/>
</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}
