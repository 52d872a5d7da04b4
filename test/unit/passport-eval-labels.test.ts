/**
 * The passport evaluation's ground truth (`scripts/passport-eval.ts`): every labelled MRZ of the real pages
 * (`test/fixtures/passporteye-passports.json`) passes all ICAO Doc 9303 check digits, each label names an
 * image of `../shared/data/mrz/passporteye-testdata` (checked where the folder is present), and the synthetic
 * specimen pages carry a valid TD3 zone. No OCR runs here.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseMrz } from '../../domain/mrz/index.ts';
import { specimenPassport, SPECIMEN_CAPTURES } from '../generators/specimen.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const labels = JSON.parse(readFileSync(path.join(here, '../fixtures/passporteye-passports.json'), 'utf8')) as { pages: Record<string, { mrz: [string, string] }> };
const dataDir = path.resolve(here, '../../../shared/data/mrz/passporteye-testdata');
if (!existsSync(dataDir)) console.warn(`passport-eval-labels: ${dataDir} is absent (../shared/data not mounted); the file check is skipped`);

describe('passport evaluation labels', () => {
  it.each(Object.entries(labels.pages))('%s: a TD3 zone passing every check digit', (_file, label) => {
    const r = parseMrz(label.mrz, { correct: false });
    expect(r.format).toBe('TD3');
    expect(r.checks.filter((c) => !c.valid).map((c) => c.name)).toEqual([]);
    expect(label.mrz.map((l) => l.length)).toEqual([44, 44]);
  });
  it.skipIf(!existsSync(dataDir))('names images that exist', () => {
    for (const file of Object.keys(labels.pages)) expect(existsSync(path.join(dataDir, file)), file).toBe(true);
  });
  it('synthetic specimen pages: every capture, a valid TD3 zone and an image', async () => {
    for (let i = 0; i < SPECIMEN_CAPTURES.length; i++) {
      const p = await specimenPassport('labels-test', i);
      expect(p.capture).toBe(SPECIMEN_CAPTURES[i]);
      expect(parseMrz(p.truth.mrz, { correct: false }).valid).toBe(true);
      expect(p.image.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8])); // JPEG
    }
  }, 60_000);
});
