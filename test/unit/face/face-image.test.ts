import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeImage } from '../../../models/face/image.ts';

const base = () => sharp({ create: { width: 200, height: 150, channels: 4, background: { r: 200, g: 100, b: 50, alpha: 0.5 } } });

describe('decodeImage', () => {
  it('gives 8-bit RGB for 16-bit, grey, CMYK, alpha and WebP inputs, alpha flattened on white', async () => {
    const cases = {
      png16: await base().toColourspace('rgb16').png().toBuffer(),
      grey: await base().greyscale().png().toBuffer(),
      cmyk: await base().flatten().toColourspace('cmyk').jpeg().toBuffer(),
      rgba: await base().png().toBuffer(),
      webp: await base().webp({ lossless: true }).toBuffer(),
    };
    for (const [name, bytes] of Object.entries(cases)) {
      const d = await decodeImage(new Uint8Array(bytes), name);
      expect(d.width, name).toBe(200);
      expect(d.height, name).toBe(150);
      expect(d.data.length, name).toBe(200 * 150 * 3);
    }
    const rgba = await decodeImage(new Uint8Array(cases.rgba));
    // 50% alpha over white: (200+255)/2, (100+255)/2, (50+255)/2
    expect(Math.abs(rgba.data[0]! - 228)).toBeLessThanOrEqual(2);
    expect(Math.abs(rgba.data[1]! - 178)).toBeLessThanOrEqual(2);
    expect(Math.abs(rgba.data[2]! - 153)).toBeLessThanOrEqual(2);
  });

  it('applies EXIF orientation: a 200x150 image tagged orientation 6 is 150x200', async () => {
    const b = await sharp({ create: { width: 200, height: 150, channels: 3, background: '#336699' } }).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const d = await decodeImage(new Uint8Array(b));
    expect([d.width, d.height]).toEqual([150, 200]);
  });

  it('raises coded errors for bad input', async () => {
    await expect(decodeImage(new Uint8Array(10))).rejects.toMatchObject({ code: 'unsupported_format' });
    await expect(decodeImage(new Uint8Array(6 * 1024 * 1024))).rejects.toMatchObject({ code: 'image_too_large' });
    const small = await sharp({ create: { width: 99, height: 300, channels: 3, background: '#000' } }).png().toBuffer();
    await expect(decodeImage(new Uint8Array(small), 'image2')).rejects.toMatchObject({ code: 'image_too_small', details: { image: 'image2' } });
    const bomb = await sharp({ create: { width: 10000, height: 5000, channels: 3, background: '#fff' } }).png().toBuffer();
    await expect(decodeImage(new Uint8Array(bomb))).rejects.toMatchObject({ code: 'image_too_large' });
    const png = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#123' } }).png().toBuffer();
    await expect(decodeImage(new Uint8Array(png.subarray(0, 60)))).rejects.toMatchObject({ code: 'unsupported_format' });
  });
});
