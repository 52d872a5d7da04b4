/**
 * Upside-down pages (`models/ocr/angle.ts`): PaddleOCR's direction classifier on the detected lines of a
 * generated INE front, upright and turned by 180 degrees, and the pipeline turning the page back.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { clsInput, CLS_SHAPE, isUpsideDown, rotate180 } from '../../models/ocr/angle.ts';
import { getPaddle, readPage } from '../../models/ocr/pipeline.ts';
import type { RgbImage } from '../../models/ocr/raster.ts';
import { generateDocument } from '../generators/index.ts';

async function decode(b: Buffer): Promise<RgbImage> {
  const { data, info } = await sharp(b).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

describe('text direction (PaddleOCR cls)', () => {
  it('rotate180 turns the pixels and keeps the size', () => {
    const img: RgbImage = { data: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]), width: 2, height: 2 };
    const r = rotate180(img);
    expect([...r.data]).toEqual([10, 11, 12, 7, 8, 9, 4, 5, 6, 1, 2, 3]);
    expect([...rotate180(r).data]).toEqual([...img.data]);
  });

  it('clsInput: BGR planes normalised to [-1, 1], height 48, right-padded with 0 to 192', () => {
    const white: RgbImage = { data: new Uint8Array(96 * 24 * 3).fill(255), width: 96, height: 24 };
    const t = clsInput([white]);
    const { height: H, width: W } = CLS_SHAPE;
    expect(t.length).toBe(3 * H * W);
    expect(t[24 * 192 + 100]).toBeCloseTo(1, 5); // inside the resized crop (96x24 -> 192x48)
    const narrow: RgbImage = { data: new Uint8Array(24 * 24 * 3).fill(0), width: 24, height: 24 };
    const u = clsInput([narrow]);
    expect(u[24 * 192 + 24]).toBeCloseTo(-1, 5); // a black pixel inside the resized crop (48 x 48)
    expect(u[100]).toBe(0); // beyond width 48: padding
  });

  it('an INE front is upright; turned by 180 degrees it is upside down, and readPage reads it back', async () => {
    const doc = await generateDocument({ type: 'ine', seed: 'angle', index: 3, degrade: true });
    const img = await decode(doc.images.front!.data);
    const ocr = await getPaddle();
    const quads = await ocr.detect(img, 960);
    expect(quads.length).toBeGreaterThan(8);
    expect(await isUpsideDown(img, quads)).toBe(false);
    const turned = rotate180(img);
    expect(await isUpsideDown(turned, await ocr.detect(turned, 960))).toBe(true);

    const flipped = await sharp(doc.images.front!.data).rotate(180).jpeg({ quality: 90 }).toBuffer();
    const page = await readPage(new Uint8Array(flipped));
    expect(page.timings.rotated180).toBe(1);
    const curp = (doc.truth.fields as { curp: string }).curp;
    expect(page.lines.some((l) => l.text.replace(/\s/g, '').includes(curp))).toBe(true);
  });
});
