import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { validateCurp } from '../../domain/curp/index.ts';
import { parseMrz, readIneMrz, transliterateForMrz } from '../../domain/mrz/index.ts';
import { itfSvg } from './barcode.ts';
import { homography } from './degrade.ts';
import { generateDocument, type IneFields, type PassportFields } from './index.ts';
import { createRng } from './rng.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Field lists copied from the spec ("OCR identity result", "OCR address-proof result").
const INE_KEYS = ['curp', 'claveElector', 'name', 'firstSurname', 'secondSurname', 'surname', 'dateOfBirth', 'dateOfExpiry', 'gender', 'address', 'detailAddress', 'section', 'mrz', 'documentVersion'];
const PASSPORT_KEYS = ['curp', 'documentNumber', 'name', 'firstSurname', 'secondSurname', 'surname', 'dateOfBirth', 'dateOfExpiry', 'gender', 'nationality', 'issuingCountry', 'mrz', 'documentVersion'];
const BILL_KEYS = ['name', 'fullAddress', 'zipCode', 'phone', 'accountNumber', 'serviceNumber', 'billNumber', 'billingPeriod', 'totalPayment', 'paymentLimitDate', 'barCode'];

const plain = (s: string) => transliterateForMrz(s).replace(/</g, ' ');

describe('synthetic INE credentials', () => {
  for (const model of ['D', 'E', 'F', 'G'] as const) {
    it(`model ${model}: spec fields, valid CURP and an MRZ that agrees with the front`, async () => {
      const doc = await generateDocument({ type: 'ine', seed: 'test', index: 1, model });
      const f = doc.truth.fields as IneFields;
      expect(Object.keys(f).sort()).toEqual([...INE_KEYS].sort());
      expect(Object.keys(f.detailAddress).sort()).toEqual(['city', 'colony', 'state', 'streetAndNumber', 'zipCode']);
      expect(f.documentVersion).toBe(model);
      expect(f.claveElector).toMatch(/^[A-Z]{6}\d{8}[HM]\d{3}$/);
      expect(f.section).toMatch(/^\d{4}$/);
      expect(f.dateOfExpiry).toMatch(/^\d{4}$/);
      const curp = validateCurp(f.curp, { today: '2026-06-01' });
      expect(curp.valid).toBe(true);
      expect(curp.components?.birth_date).toBe(f.dateOfBirth);
      const mrz = parseMrz(f.mrz, { referenceYear: 2026 });
      expect(mrz.valid).toBe(true);
      expect(mrz.corrections).toEqual([]);
      const ine = readIneMrz(mrz, { curp: f.curp, knownSurnames: [f.firstSurname, f.secondSurname] })!;
      expect(ine).toMatchObject({ cic: doc.truth.extra.cic, identificadorCiudadano: doc.truth.extra.identificadorCiudadano, section: f.section, gender: f.gender, dateOfBirth: f.dateOfBirth, expiryYear: f.dateOfExpiry });
      expect(ine.firstSurname).toBe(plain(f.firstSurname));
      expect(ine.names).toBe(plain(f.name).slice(0, ine.names.length));
      expect(doc.truth.validation.mrz).toBe('ok');
      const front = await sharp(doc.images.front!.data).metadata();
      const back = await sharp(doc.images.back!.data).metadata();
      expect([front.width, front.height, front.format]).toEqual([1012, 638, 'png']);
      expect([back.width, back.height]).toEqual([1012, 638]);
    });
  }

  it('is deterministic for a seed and differs across seeds', async () => {
    const a = await generateDocument({ type: 'ine', seed: 7, index: 3 });
    const b = await generateDocument({ type: 'ine', seed: 7, index: 3 });
    const c = await generateDocument({ type: 'ine', seed: 8, index: 3 });
    expect(a.truth).toEqual(b.truth);
    expect(a.images.front!.data.equals(b.images.front!.data)).toBe(true);
    expect(a.truth.fields).not.toEqual(c.truth.fields);
  });

  it('degrades to a JPEG phone photo with the document corners inside the frame', async () => {
    const doc = await generateDocument({ type: 'ine', seed: 'deg', index: 0, degrade: true });
    expect(doc.images.front!.ext).toBe('jpg');
    const meta = await sharp(doc.images.front!.data).metadata();
    expect(meta.format).toBe('jpeg');
    const info = (doc.truth.extra.degradations as Record<string, { rotationDeg: number; corners: number[][]; outputSize: number[]; jpegQuality: number }>).front!;
    expect(Math.abs(info.rotationDeg)).toBeLessThanOrEqual(15);
    expect(info.jpegQuality).toBe(40);
    expect([meta.width, meta.height]).toEqual(info.outputSize);
    for (const [x, y] of info.corners) {
      expect(x).toBeGreaterThan(0);
      expect(y).toBeGreaterThan(0);
      expect(x).toBeLessThan(meta.width!);
      expect(y).toBeLessThan(meta.height!);
    }
  });
});

describe('synthetic passports', () => {
  it('has the spec fields and a TD3 MRZ whose values match the visual zone', async () => {
    const doc = await generateDocument({ type: 'passport', seed: 'test', index: 2 });
    const f = doc.truth.fields as PassportFields;
    expect(Object.keys(f).sort()).toEqual([...PASSPORT_KEYS].sort());
    const mrz = parseMrz(f.mrz, { referenceYear: 2026 });
    expect(mrz.format).toBe('TD3');
    expect(mrz.valid).toBe(true);
    expect(mrz.fields.documentNumber).toBe(f.documentNumber);
    expect(mrz.fields.dateOfBirthIso).toBe(f.dateOfBirth);
    expect(mrz.fields.dateOfExpiryIso).toBe(f.dateOfExpiry);
    expect(mrz.fields.lastName).toBe(plain(`${f.firstSurname} ${f.secondSurname}`));
    expect(mrz.fields.sex).toBe(f.gender === 'H' ? 'M' : 'F');
    expect(validateCurp(f.curp, { today: '2026-06-01' }).valid).toBe(true);
  });
});

describe('synthetic bills', () => {
  for (const type of ['electricity_bill', 'phone_bill', 'cable_bill'] as const) {
    it(`${type}: spec fields, normalised values and both layouts over a few seeds`, async () => {
      const layouts = new Set<string>();
      for (let i = 0; i < 6; i++) {
        const doc = await generateDocument({ type, seed: 'bills', index: i });
        const f = doc.truth.fields as unknown as Record<string, string>;
        expect(Object.keys(f).sort()).toEqual([...BILL_KEYS].sort());
        for (const v of Object.values(f)) expect(typeof v).toBe('string');
        expect(f.zipCode).toMatch(/^\d{5}$/);
        expect(f.phone).toMatch(/^\d{10}$/);
        expect(f.totalPayment).toMatch(/^\d+\.\d{2}$/);
        expect(f.paymentLimitDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(f.billingPeriod).toMatch(/^\d{4}-\d{2}-\d{2} - \d{4}-\d{2}-\d{2}$/);
        expect(f.fullAddress).toContain(f.zipCode);
        expect(f.barCode).toMatch(/^\d+$/);
        expect(doc.truth.validation).toEqual({ mrz: 'not_present', curp: 'not_present', expired: null });
        layouts.add(doc.truth.extra.layout as string);
      }
      expect([...layouts].sort()).toEqual(['A', 'B']);
    });
  }
});

describe('fonts', () => {
  const render = (family: string) =>
    sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="400" height="60"><rect width="400" height="60" fill="#fff"/><text x="5" y="40" font-family="${family}" font-size="32">IDMEX1&lt;&lt;08B</text></svg>`)).raw().toBuffer();
  it('renders the MRZ in OCR-B (Debian fonts-ocr-b), not a fallback font', async () => {
    const [ocrb, fallback] = await Promise.all([render('OCR B'), render('No Such Font Family')]);
    if (ocrb.equals(fallback)) console.warn('OCR-B is not installed (apt-get install -y fonts-ocr-b): generated MRZs use a fallback font');
    expect(ocrb.equals(fallback), 'OCR-B missing: install Debian fonts-ocr-b').toBe(false);
  });
});

describe('building blocks', () => {
  it('ITF bar code: start, 5 bars per digit pair, stop; rejects non-digits', () => {
    const { svg } = itfSvg('1234', 0, 0, 10);
    expect(svg.match(/<rect/g)).toHaveLength(2 + 10 + 2);
    expect(() => itfSvg('12a4', 0, 0, 10)).toThrow(RangeError);
  });
  it('homography maps the four corners exactly', () => {
    const src = [[0, 0], [100, 0], [100, 50], [0, 50]] as const;
    const dst = [[10, 5], [120, 15], [110, 70], [5, 60]] as const;
    const h = homography(src, dst);
    for (let i = 0; i < 4; i++) {
      const [x, y] = src[i]!;
      const w = h[6] * x + h[7] * y + h[8];
      expect((h[0] * x + h[1] * y + h[2]) / w).toBeCloseTo(dst[i]![0], 6);
      expect((h[3] * x + h[4] * y + h[5]) / w).toBeCloseTo(dst[i]![1], 6);
    }
  });
  it('rng is reproducible', () => {
    const a = createRng(5);
    const b = createRng(5);
    expect(Array.from({ length: 5 }, () => a.next())).toEqual(Array.from({ length: 5 }, () => b.next()));
  });
});

describe('CLI scripts/generate-documents.ts', () => {
  const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts/generate-documents.ts'), ...args], { cwd: repoRoot, encoding: 'utf8' });
  it('writes images, ground truth and a manifest', () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'gen-'));
    try {
      const r = run(['--type', 'phone_bill', '--count', '2', '--seed', '4', '--out', out]);
      expect(r.status, r.stderr).toBe(0);
      expect(readdirSync(out).sort()).toEqual(['manifest.json', 'phone_bill-0000-front.png', 'phone_bill-0000.json', 'phone_bill-0001-front.png', 'phone_bill-0001.json']);
      const truth = JSON.parse(readFileSync(path.join(out, 'phone_bill-0001.json'), 'utf8'));
      expect(truth.images).toEqual({ front: 'phone_bill-0001-front.png' });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
  it('rejects bad arguments with exit code 2', () => {
    expect(run(['--type', 'selfie', '--out', '/tmp/x']).status).toBe(2);
    expect(run(['--type', 'ine', '--count', '-3', '--out', '/tmp/x']).status).toBe(2);
    expect(run(['--type', 'ine']).status).toBe(2);
  });
});
