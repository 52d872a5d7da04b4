/**
 * WSQ decoder (models/fingerprint/wsq.ts) on the SourceAFIS sample: pixel comparison with the PNG
 * SourceAFIS converted it to, and hostile variants (cut, flipped bytes, inflated frame size), which must
 * fail with a clear error and never hang. Skipped with a printed reason when ../shared/data is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeWsq, isWsq, WSQ_MAX_SIDE } from '../../../models/fingerprint/wsq.ts';
import { decodeFingerprint } from '../../../models/fingerprint/image.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = path.resolve(repoRoot, '../shared/data/fingerprint/sourceafis-samples');
const have = existsSync(path.join(dir, 'wsq-original.wsq')) && existsSync(path.join(dir, 'wsq-converted.png'));
if (!have) console.warn(`WSQ decoder tests skipped: ${dir} is absent`);

/** Offset of the first byte after the SOF marker (its length field), walking the segments. */
function sofOffset(b: Uint8Array): number {
  let p = 2;
  for (;;) {
    const marker = (b[p]! << 8) | b[p + 1]!;
    if (marker === 0xffa2) return p + 2;
    p += 2 + ((b[p + 2]! << 8) | b[p + 3]!);
  }
}

describe.skipIf(!have)('WSQ decoding', () => {
  const wsq = have ? new Uint8Array(readFileSync(path.join(dir, 'wsq-original.wsq'))) : new Uint8Array();

  it('matches the PNG conversion of the sample pixel by pixel (PSNR and max difference)', async () => {
    expect(isWsq(wsq)).toBe(true);
    const img = decodeWsq(wsq);
    const ref = await sharp(path.join(dir, 'wsq-converted.png')).greyscale().raw().toBuffer({ resolveWithObject: true });
    expect([img.width, img.height]).toEqual([ref.info.width, ref.info.height]);
    expect(img.ppi).toBe(500);
    let se = 0;
    let max = 0;
    for (let i = 0; i < img.data.length; i++) {
      const e = img.data[i]! - ref.data[i * ref.info.channels]!;
      se += e * e;
      max = Math.max(max, Math.abs(e));
    }
    const psnr = 10 * Math.log10((255 * 255) / (se / img.data.length));
    console.log(`WSQ vs PNG: ${img.width}x${img.height}, PSNR ${psnr.toFixed(2)} dB, max |diff| ${max}`);
    expect(max).toBeLessThanOrEqual(1);
    expect(psnr).toBeGreaterThan(80);
  });

  it('refuses cut files with an error naming WSQ', () => {
    for (const cut of [3, 10, 100, 300, 1000, 5000, 20000, wsq.length - 3]) {
      expect(() => decodeWsq(wsq.subarray(0, cut)), `cut at ${cut}`).toThrow(/^WSQ: /);
    }
  });

  it('survives flipped bytes: a clear error or an image of the declared size, never a hang', () => {
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    let errors = 0;
    for (let t = 0; t < 24; t++) {
      const b = wsq.slice();
      const at = Math.floor(rnd() * b.length);
      b[at] = b[at]! ^ (1 + Math.floor(rnd() * 255));
      const t0 = performance.now();
      try {
        const img = decodeWsq(b);
        expect(img.data.length).toBe(img.width * img.height);
      } catch (error) {
        errors++;
        expect((error as Error).message.length).toBeGreaterThan(5);
      }
      expect(performance.now() - t0).toBeLessThan(20_000);
    }
    expect(errors).toBeGreaterThan(0);
  });

  it('refuses an inflated frame size before allocating, with image_too_large', async () => {
    const b = wsq.slice();
    const o = sofOffset(b);
    b[o + 4] = 0xff; // height
    b[o + 5] = 0xff;
    b[o + 6] = 0xff; // width
    b[o + 7] = 0xff;
    expect(() => decodeWsq(b)).toThrow(expect.objectContaining({ code: 'image_too_large' }));
    await expect(decodeFingerprint(b)).rejects.toMatchObject({ code: 'image_too_large' });
    const c = wsq.slice();
    c[o + 6] = (WSQ_MAX_SIDE + 1) >> 8;
    c[o + 7] = (WSQ_MAX_SIDE + 1) & 0xff;
    expect(() => decodeWsq(c)).toThrow(expect.objectContaining({ code: 'image_too_large' }));
  });

  it('is decoded by the fingerprint image decoder at the declared 500 ppi', async () => {
    const img = await decodeFingerprint(wsq);
    expect(img).toMatchObject({ format: 'wsq', sourcePpi: 500, width: 832, height: 768 });
    await expect(decodeFingerprint(wsq.subarray(0, 2000))).rejects.toMatchObject({ code: 'unsupported_format', details: { detected: 'wsq' } });
  });
});
