import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  buildIneMrz, buildTd3, computeCheckDigit, normalizeMrzText, repairMrzFillers, correctMrzLine, inferLineKind, ineGender, isCheckDigitValid, parseMrz, readIneMrz, transliterateForMrz,
} from '../../domain/mrz/index.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const vectorsFile = path.resolve(repoRoot, '../shared/data/mrz/cheminfo-mrz/mrz-test-vectors.json');

interface Vector { file: string; test: string; lines: string[]; expectedFormat: string | null; expectedValid: boolean | null }

describe('check digits (Doc 9303 Part 3, 4.9)', () => {
  it('computes the worked examples of the standard', () => {
    // Doc 9303 Part 3, 4.9.1 example: date 520727 -> 3; the Utopia passport document number.
    expect(computeCheckDigit('520727')).toBe('3');
    expect(computeCheckDigit('L898902C3')).toBe('6');
    expect(computeCheckDigit('AB2134<<<')).toBe('5');
  });
  it('rejects non-MRZ characters without throwing in isCheckDigitValid', () => {
    expect(() => computeCheckDigit('ab')).toThrow(RangeError);
    expect(isCheckDigitValid('ab', '0')).toBe(false);
    expect(isCheckDigitValid('<<<<', '<', true)).toBe(true);
    expect(isCheckDigitValid('<<<<', '<')).toBe(false);
  });
});

describe('cheminfo/mrz test vectors', () => {
  const present = existsSync(vectorsFile);
  if (!present) console.warn(`skipping cheminfo vectors: ${vectorsFile} is absent (../shared/data not mounted)`);
  const vectors: Vector[] = present ? (JSON.parse(readFileSync(vectorsFile, 'utf8')) as { vectors: Vector[] }).vectors : [];
  const formatMap: Record<string, string> = { TD1: 'TD1', TD2: 'TD2', TD3: 'TD3', FRENCH_NATIONAL_ID: 'FRENCH_NATIONAL_ID', SWISS_DRIVING_LICENSE: 'SWISS_DRIVING_LICENSE' };

  it.skipIf(!present)('holds 33 vectors', () => expect(vectors).toHaveLength(33));

  for (const v of vectors.filter((x) => x.expectedValid !== null)) {
    it.skipIf(!present)(`${path.basename(v.file)}: ${v.test}`, () => {
      const r = parseMrz(v.lines, { correct: false, referenceYear: 2024 });
      expect(r.format).toBe(formatMap[v.expectedFormat!]);
      if (v.expectedValid) {
        expect(r.problems).toEqual([]);
        expect(r.valid).toBe(true);
      } else if (r.valid) {
        // cheminfo also rejects issuing states missing from its country table; ICAO's fictional
        // specimen state "UTO" (Utopia) is the only such case in the set, with correct digits.
        expect(r.fields.issuingState).toBe('UTO');
      } else {
        expect(r.problems.some((p) => p.code === 'check_digit_failed')).toBe(true);
      }
    });
  }

  // "Use autocorrect" blocks pair a clean MRZ with an OCR-corrupted copy of it.
  const pairs: Array<[Vector, Vector]> = [];
  for (let i = 1; i < vectors.length; i++) {
    const a = vectors[i - 1]!;
    const b = vectors[i]!;
    if (/autocorrect/i.test(b.test) && a.file === b.file && /autocorrect/i.test(a.test) && a.lines.join() !== b.lines.join()) pairs.push([a, b]);
  }
  it.skipIf(!present)('finds the 5 corrupted/clean pairs', () => expect(pairs).toHaveLength(5));
  for (const [clean, dirty] of pairs) {
    it.skipIf(!present)(`corrects ${path.basename(dirty.file)} back to the clean MRZ`, () => {
      const r = parseMrz(dirty.lines, { referenceYear: 2024 });
      expect(r.lines).toEqual(clean.lines);
      expect(r.corrections.length).toBeGreaterThan(0);
      for (const c of r.corrections) expect(dirty.lines[c.line]!.charAt(c.column)).toBe(c.from);
      const uncorrected = parseMrz(dirty.lines, { correct: false, referenceYear: 2024 });
      expect(uncorrected.corrections).toEqual([]);
    });
  }
});

describe('parseMrz', () => {
  const td3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
  it('reads every TD3 field and check (Doc 9303 Part 4 specimen)', () => {
    const r = parseMrz(td3, { referenceYear: 2024 });
    expect(r.valid).toBe(true);
    expect(r.fields).toMatchObject({
      documentCode: 'P', issuingState: 'UTO', documentNumber: 'L898902C3', nationality: 'UTO', lastName: 'ERIKSSON', firstName: 'ANNA MARIA',
      sex: 'F', dateOfBirthIso: '1974-08-12', dateOfExpiryIso: '2012-04-15', personalNumber: 'ZE184226B',
    });
    expect(r.checkSummary).toEqual({ documentNumberCheck: true, dateOfBirthCheck: true, dateOfExpiryCheck: true, compositeCheck: true });
    expect(r.checks.map((c) => c.name)).toEqual(['documentNumber', 'dateOfBirth', 'dateOfExpiry', 'personalNumber', 'composite']);
  });
  it('reports each failed check digit by name', () => {
    const bad = [td3[0]!, 'L898902C37UTO7408124F1204159ZE184226B<<<<<10'];
    const r = parseMrz(bad, { correct: false });
    expect(r.valid).toBe(false);
    expect(r.checkSummary.documentNumberCheck).toBe(false);
    expect(r.checkSummary.dateOfBirthCheck).toBe(false);
    expect(r.checkSummary.dateOfExpiryCheck).toBe(true);
    expect(r.checkSummary.compositeCheck).toBe(false);
    expect(r.checks.find((c) => c.name === 'documentNumber')).toMatchObject({ actual: '7', expected: '6' });
  });
  it('reads a TD1 long document number from the optional data (Part 5, note j)', () => {
    const r = parseMrz(['I<UTOD23145890<7349<<<<<<<<<<<', '3407127M9507122UTO<<<<<<<<<<<2', 'STEVENSON<<PETER<JOHN<<<<<<<<<'], { referenceYear: 2024 });
    expect(r.fields.documentNumber).toBe('D23145890734');
    expect(r.checkSummary.documentNumberCheck).toBe(true);
    expect(r.valid).toBe(true);
  });
  it('rejects impossible dates and sexes', () => {
    const r = parseMrz(['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7413329Q1204159ZE184226B<<<<<10'], { correct: false });
    expect(r.problems.map((p) => p.code)).toEqual(expect.arrayContaining(['invalid_date', 'invalid_sex']));
  });
  it('never throws on hostile input', () => {
    for (const input of ['', '\n\n', 'x'.repeat(100_000), '<'.repeat(44) + '\n' + '\u0000'.repeat(44), ['é'.repeat(30), '🙂'.repeat(15), 'a'.repeat(30)], [] as string[]]) {
      const r = parseMrz(input);
      expect(r.valid).toBe(false);
    }
    const r = parseMrz(['IDMEX1146065362<<5308105793108', '8001014M2812315MEX<01<<<<<<<<', 'ÑÑÑ'.repeat(10)]);
    expect(r.valid).toBe(false);
  });
  it('reads PaddleOCR\'s × as X and other look-alikes as fillers', () => {
    expect(normalizeMrzText('idme× 1146065362«<5308105793108')).toBe('IDMEX1146065362<<5308105793108');
    expect(correctMrzLine('3200283622ME×6501010M1801107<<<<<<<<<<<<<<08').line).toBe('3200283622MEX6501010M1801107<<<<<<<<<<<<<<08');
  });
  it('normalises blanks, case and guillemets', () => {
    const r = parseMrz(' p«utoeriksson<<anna<maria<<<<<<<<<<<<<<<<<<< \n\n L898902C3 6UTO7408122F1204159ZE184226B<<<<<10 ');
    expect(r.valid).toBe(true);
  });
  it('does not guess when the check digit cannot single out one reading', () => {
    // Both 0 and O at a position of an alphanumeric number with a wrong check digit elsewhere.
    const r = parseMrz([td3[0]!, 'L8989O2C39UTO7408122F1204159ZE184226B<<<<<10'], { referenceYear: 2024 });
    expect(r.checkSummary.documentNumberCheck).toBe(false);
    expect(r.corrections.filter((c) => c.reason === 'check-digit')).toEqual([]);
  });
  it('fixes an alphanumeric document number by its check digit', () => {
    const r = parseMrz([td3[0]!, 'L8989O2C36UTO7408122F1204159ZE184226B<<<<<10'], { referenceYear: 2024 });
    expect(r.valid).toBe(true);
    expect(r.corrections).toEqual([{ line: 1, column: 5, from: 'O', to: '0', field: 'documentNumber', reason: 'check-digit' }]);
  });
});

describe('INE credential (IDMEX TD1)', () => {
  const input = {
    cic: '114606536', section: '5308', identificadorCiudadano: '105793108', dateOfBirth: '1987-03-09', gender: 'M' as const,
    expiryYear: '2031', emission: '02', firstSurname: 'Muñoz', secondSurname: 'Peña', names: 'José Ángel',
  };
  it('builds an MRZ that parses with every check digit and reads back its INE values', () => {
    const lines = buildIneMrz(input);
    // Real line 1 (doubango MRZ data set, Mexico-Voters-Card-back.jpg) has this exact shape.
    expect(lines[0]).toBe('IDMEX1146065362<<5308105793108');
    expect(lines[2]).toBe('MUNOZ<PENA<<JOSE<ANGEL<<<<<<<<');
    const r = parseMrz(lines, { referenceYear: 2026 });
    expect(r.valid).toBe(true);
    expect(r.ine).toBe(true);
    expect(lines[1]!.slice(7, 15)).toBe('F3112319');
    const ine = readIneMrz(r, { curp: 'MUPA870309MDFXXX09' })!;
    expect(ine).toMatchObject({
      cic: '114606536', ocr: '5308105793108', section: '5308', identificadorCiudadano: '105793108', firstSurname: 'MUNOZ', secondSurname: 'PENA',
      names: 'JOSE ANGEL', gender: 'M', dateOfBirth: '1987-03-09', dateOfExpiry: '2031-12-31', expiryYear: '2031',
    });
  });
  it('splits compound surnames with the front as a hint', () => {
    const r = parseMrz(buildIneMrz({ ...input, firstSurname: 'De la Cruz', secondSurname: 'Ruiz' }));
    expect(readIneMrz(r)!.firstSurname).toBe('DE');
    expect(readIneMrz(r, { knownSurnames: ['De la Cruz', 'Ruiz'] })).toMatchObject({ firstSurname: 'DE LA CRUZ', secondSurname: 'RUIZ' });
  });
  it('maps the MRZ sex to the front H/M convention', () => {
    expect(ineGender('F')).toBe('M');
    expect(ineGender('M')).toBe('H');
    expect(ineGender('H')).toBe('H');
    expect(ineGender('M', 'GOMC900101MDFRRR05')).toBe('M');
    expect(ineGender('<')).toBeNull();
  });
  it('corrects digits read as letters in the CIC and citizen identifier (numeric on INE)', () => {
    const lines = buildIneMrz(input);
    const dirty = [lines[0]!.replace('1146065', 'I14G0G5').replace('5308105', 'S3O81O5'), lines[1]!, lines[2]!];
    const r = parseMrz(dirty, { referenceYear: 2026 });
    expect(r.lines).toEqual(lines);
    expect(r.valid).toBe(true);
  });
  it('returns null for a non-INE TD1', () => {
    expect(readIneMrz(parseMrz(['IDCHEA1234567<6<<<<<<<<<<<<<<<', '7510256M2009018CHE<<<<<<<<<<<8', 'SMITH<<JOHN<ALBERT<<<<<<<<<<<<']))).toBeNull();
  });
});

describe('single lines', () => {
  it('infers the kind of each line', () => {
    expect(inferLineKind('IDMEX1146065362<<5308105793108')).toBe('TD1_1');
    expect(inferLineKind('8805049F2309095IRL<<<<<<<<<<<9')).toBe('TD1_2');
    expect(inferLineKind('DOBROVOLSKA<<SVITLANA<<<<<<<<<')).toBe('TD1_3');
    expect(inferLineKind('P<CANMARTIN<<SARAH<<<<<<<<<<<<<<<<<<<<<<<<<<')).toBe('TD3_1');
    expect(inferLineKind('C01X00T478D<<6408125F2702283<<<<<<<<<<<<<<<4')).toBe('TD3_2');
    expect(inferLineKind('short')).toBeNull();
    expect(inferLineKind('IDFRADURAND<<<<<<<<<<<<<<<<<<<<75000')).toBe('FRA_1');
    expect(inferLineKind('1101912009242GEDEON<<MBALA<9409101M6')).toBe('FRA_2');
    expect(inferLineKind('D231458907UTO7408122F1204159<<<<<<<6')).toBe('TD2_2');
  });
  it('corrects a TD3 data line and checks its digits', () => {
    const r = correctMrzLine('L898902C36UTO740BIZZF12041S9ZE184226B<<<<<1O');
    expect(r.line).toBe('L898902C36UTO7408122F1204159ZE184226B<<<<<10');
    expect(r.checks.every((c) => c.valid)).toBe(true);
    expect(r.checks).toHaveLength(5);
  });
  it('keeps French card numbers and names apart (no digits forced into the name)', () => {
    const r = correctMrzLine('1101912009242GEDE0N<<MBALA<9409101M6');
    expect(r.line).toBe('1101912009242GEDEON<<MBALA<9409101M6');
    expect(correctMrzLine('IDFRADURAND<<<<<<<<<<<<<<<<<<<<75000').line).toBe('IDFRADURAND<<<<<<<<<<<<<<<<<<<<75000');
  });
  it('repairs fillers read as letters and restores the row length', () => {
    expect(repairMrzFillers('P<USATRAVELER<<MR<<<<<KKK<<<<<<<')).toBe('P<USATRAVELER<<MR<<<<<<<<<<<<<');
    expect(repairMrzFillers('8805049F2309095IRL<<<<<<<<<9')).toBe('8805049F2309095IRL<<<<<<<<<<<9');
    expect(repairMrzFillers('SMITH<<JOHN<ALBERT<<<<<<<<<<<<<<')).toBe('SMITH<<JOHN<ALBERT<<<<<<<<<<<<');
    expect(repairMrzFillers('KOWALSKI<<JAN<IWAN<<<<<<<<<<<<')).toBe('KOWALSKI<<JAN<IWAN<<<<<<<<<<<<');
  });
  it('reports TD1 line 2 date checks only (the composite spans lines)', () => {
    const r = correctMrzLine('88O5O49F23O9O95IRL<<<<<<<<<<<9');
    expect(r.line).toBe('8805049F2309095IRL<<<<<<<<<<<9');
    expect(r.checks.map((c) => c.name)).toEqual(['dateOfBirth', 'dateOfExpiry']);
  });
});

describe('builders', () => {
  it('transliterates Spanish names (Doc 9303 Part 3, 6)', () => {
    expect(transliterateForMrz('María José Núñez-Gómez')).toBe('MARIA<JOSE<NUNEZ<GOMEZ');
  });
  it('builds a TD3 with the CURP as personal number', () => {
    const lines = buildTd3({ documentCode: 'P', issuingState: 'MEX', primaryIdentifier: 'Hernández Ñuñez', secondaryIdentifier: 'Sofía', documentNumber: 'G12345678', nationality: 'MEX', dateOfBirth: '900101', sex: 'F', dateOfExpiry: '300101', personalNumber: 'HENS900101MDFRXF09' });
    expect(lines.map((l) => l.length)).toEqual([44, 44]);
    const r = parseMrz(lines);
    expect(r.valid).toBe(true);
    expect(r.fields.lastName).toBe('HERNANDEZ NUNEZ');
  });
});
