/**
 * `face_in_photo_area` on real passport data pages (`../shared/data/mrz/passporteye-testdata`, skipped with a
 * printed reason when absent): the portrait crop runs from the page's left edge to the visual-zone text
 * column. It used to end at the leftmost line (the `PASSPORT` header above the portrait), a crop a few
 * pixels wide, so every genuine page failed the signal and `is_authentic` was false.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { measureAuthenticity } from '../../models/ocr/authenticity.ts';

vi.setConfig({ testTimeout: 120_000 });
const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/data/mrz/passporteye-testdata');
const haveData = existsSync(dir);
if (!haveData) console.warn(`ocr-authenticity-passport: ${dir} is absent (../shared/data not mounted); skipped`);

describe.skipIf(!haveData)('passport portrait area', () => {
  it.each(['100_pass-uto.jpg', '79_pass-can.jpg', '98_pass-nld.jpg'])('%s: the face detector finds the portrait', async (file) => {
    const r = await measureAuthenticity({ image: new Uint8Array(readFileSync(path.join(dir, file))), documentType: 'passport', today: '2026-06-01' });
    expect(r.signals.face_in_photo_area).toBe(true);
    expect(r.signals.mrz_check_digits).toBe(true);
  });
});
