/**
 * Issue 18, item 1: OCR writes what is printed. Names (and addresses) carry an accented letter or `Ñ` only
 * when a recogniser read it on the document; the accent lexicon never adds one; names never come from
 * the MRZ's issuing-state or nationality fields. Run with the real models (worker handlers in this thread)
 * on a generated INE printed without accents and on two real passport pages of `../shared/data/mrz`
 * (skipped with a printed reason when that directory is absent).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { extractIne, type RunReadPageJob } from '../../domain/ocr/extract-ine.ts';
import { handlers, serially } from '../../models/ocr/jobs.ts';
import { generateDocument } from '../generators/index.ts';

vi.setConfig({ testTimeout: 180_000 });

const runJob: RunReadPageJob = serially((type, input) => handlers[type](input));
const today = '2026-06-01';
const ACCENTED = /[ÁÉÍÓÚÜÑ]/;
const passports = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/data/mrz/passporteye-testdata');
const haveData = existsSync(passports);
if (!haveData) console.warn(`ocr-printed-names: ${passports} is absent (../shared/data not mounted); the passport-image tests are skipped`);

async function passport(file: string) {
  const r = await handlers['ocr.extractId']({ front: new Uint8Array(readFileSync(path.join(passports, file))), back: null, documentType: 'passport', today });
  return r.fields as { surname: string; firstSurname: string; secondSurname: string; name: string; mrz: string; issuingCountry: string; nationality: string };
}

describe('names as printed (issue 18)', () => {
  it('an INE printed without accents comes back without accents (PÉREZ TREVIÑO, MARÍA DE LOS ÁNGELES, MÉRIDA printed plain)', async () => {
    const doc = await generateDocument({ type: 'ine', seed: 'api-test', index: 1, model: 'G', accents: false });
    const truth = doc.truth.fields as { name: string; firstSurname: string; secondSurname: string; address: string };
    // The card really is printed plain, with words the lexicon knows with accents.
    expect([truth.firstSurname, truth.secondSurname, truth.name]).toEqual(['PEREZ', 'TREVINO', 'MARIA DE LOS ANGELES']);
    expect(truth.address).toContain('MERIDA');
    for (const back of [doc.images.back!.data, null]) {
      const r = await extractIne(runJob, { front: new Uint8Array(doc.images.front!.data), back: back && new Uint8Array(back), today });
      expect({ first: r.fields.firstSurname, second: r.fields.secondSurname, name: r.fields.name }).toEqual({ first: 'PEREZ', second: 'TREVINO', name: 'MARIA DE LOS ANGELES' });
      expect(r.fields.address).not.toMatch(ACCENTED);
      expect(r.fields.address).toContain('GARCIA GINERES 97070 MERIDA');
    }
  });

  it.skipIf(!haveData)('the ICAO 9303 specimen passport: ERIKSSON / ANNA MARIA, no accent added', async () => {
    const f = await passport('100_pass-uto.jpg');
    expect({ surname: f.surname, name: f.name }).toEqual({ surname: 'ERIKSSON', name: 'ANNA MARIA' });
    expect(f.mrz.split('\n')[0]).toBe('P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<');
  });

  it.skipIf(!haveData)('a Taiwanese passport: the surname is LIN, never the issuing state TWN printed beside it', async () => {
    const f = await passport('43_pass-twn.jpg');
    expect(f.issuingCountry).toBe('TWN');
    expect(f.firstSurname).toBe('LIN');
    expect(f.surname).toBe('LIN');
    expect(f.name).toBe('CHIEN-SHENG'); // as printed in the visual zone (`LIN, CHIEN-SHENG`)
    expect(f.mrz.split('\n')[0]).toBe('P<TWNLIN<<CHIEN<SHENG<<<<<<<<<<<<<<<<<<<<<<<');
  });
});
