/**
 * Passport data page parsing from OCR lines (no models): finding the TD3 zone when the text detector split
 * or cut its rows, check-digit-guided choice among readings, errors, and the MRZ row geometry of the
 * pipeline's whole-row re-read.
 */
import { describe, expect, it } from 'vitest';
import { buildTd3 } from '../../domain/mrz/index.ts';
import { OcrError } from '../../domain/ocr/errors.ts';
import { findTd3Lines, isMrzText, looksLikeMrzRow, mrzRowCandidates, td3Candidates } from '../../domain/ocr/mrz-zone.ts';
import { buildPassportResult, findCurp } from '../../domain/ocr/passport.ts';
import { curpAgrees, namesAgree, passportNameLines, passportNames, respaceLike, splitSurnames } from '../../domain/ocr/passport-names.ts';
import type { OcrLine } from '../../domain/ocr/text.ts';
import { groupMrzRowFragments, rowQuad } from '../../models/ocr/mrz-row-reread.ts';
import { enoughDocumentText } from '../../models/ocr/pipeline.ts';
import type { TextLine } from '../../models/ocr/paddle.ts';

const MRZ = buildTd3({
  documentCode: 'P', issuingState: 'MEX', primaryIdentifier: 'NUNEZ CASTILLO', secondaryIdentifier: 'INES', documentNumber: 'N39361351',
  nationality: 'MEX', dateOfBirth: '880705', sex: 'F', dateOfExpiry: '210805', emptyPersonalNumberCheck: '0',
});
// 'P<MEXNUNEZ<CASTILLO<<INES<<<<<<<<<<<<<<<<<<<', 'N393613516MEX8807054F2108058<<<<<<<<<<<<<<08'

/** An OCR-B row as the detector sees it: 20 px per character, 40 px high, starting at column `from`. */
function piece(text: string, from: number, y: number): OcrLine {
  return { text, confidence: 0.95, box: { x: 100 + 20 * from, y, w: 20 * text.length, h: 40 } };
}

const VIZ: OcrLine[] = [
  { text: 'Apellidos / Surnames', confidence: 0.9, box: { x: 400, y: 100, w: 200, h: 24 } },
  { text: 'NÚÑEZ CASTILLO', confidence: 0.9, box: { x: 400, y: 128, w: 200, h: 30 } },
  { text: 'Nombres / Given names', confidence: 0.9, box: { x: 400, y: 170, w: 200, h: 24 } },
  { text: 'INÉS', confidence: 0.9, box: { x: 400, y: 198, w: 80, h: 30 } },
  { text: 'CURP', confidence: 0.9, box: { x: 700, y: 240, w: 50, h: 24 } },
  { text: 'NUCI880705MZSXSN36', confidence: 0.9, box: { x: 700, y: 268, w: 240, h: 30 } },
];

describe('TD3 zone from OCR lines', () => {
  it('takes a second row whose fillers were all missed for an MRZ row, not a visual-zone heading', () => {
    expect(looksLikeMrzRow('P390538731ME×7907201F2406189')).toBe(true);
    expect(looksLikeMrzRow('ESTADOSUNIDOSMEXICANOS')).toBe(false);
    expect(looksLikeMrzRow('11MAY/MAY1969 MUON690511MTCXRY60')).toBe(false);
    expect(looksLikeMrzRow('<<<<<<08')).toBe(true);
    expect(mrzRowCandidates([piece(MRZ[0].slice(0, 21), 0, 700), piece(MRZ[1].slice(0, 28), 0, 770)]).map((r) => r.text)).toEqual([MRZ[0].slice(0, 21), MRZ[1].slice(0, 28)]);
  });

  it('tells MRZ text from visual-zone text', () => {
    expect(isMrzText('<<<<<<<08')).toBe(true);
    expect(isMrzText('P<ME×NUNEZ')).toBe(true);
    expect(isMrzText('02')).toBe(true);
    expect(isMrzText('Nombres / Given names')).toBe(false);
    expect(isMrzText('Fecha de nacimiento / Date of birth')).toBe(false);
    expect(isMrzText('Pasaporte No. / Passport No.')).toBe(false);
  });

  it('rejoins a row split at its filler run, the gap filled with as many fillers as fit', () => {
    const rows = mrzRowCandidates([piece(MRZ[1].slice(0, 29), 0, 700), piece(MRZ[1].slice(36), 36, 702)]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.text).toBe(MRZ[1]);
    expect(rows[0]!.parts).toBe(2);
  });

  it('does not join a row of visual-zone codes (no filler) and keeps rows apart', () => {
    const rows = mrzRowCandidates([piece('P', 0, 300), piece('MEX', 5, 300), piece('N39361351', 20, 300), piece(MRZ[0], 0, 700), piece(MRZ[1], 0, 770)]);
    expect(rows.map((r) => r.text)).toEqual([MRZ[0], MRZ[1]]);
  });

  it('finds both rows when the detector split the second and cut the first before its fillers', () => {
    const lines = [...VIZ, piece(MRZ[0].slice(0, 25), 0, 700), piece(MRZ[1].slice(0, 28), 0, 770), piece('<<<<<<<08', 35, 771)];
    expect(findTd3Lines(lines)).toEqual([...MRZ]);
    const r = buildPassportResult(lines, '2026-06-01');
    expect(r.validation.mrz).toBe('ok');
    expect(r.fields).toMatchObject({ documentNumber: 'N39361351', dateOfBirth: '1988-07-05', dateOfExpiry: '2021-08-05', gender: 'M', firstSurname: 'NÚÑEZ', secondSurname: 'CASTILLO', name: 'INÉS', curp: 'NUCI880705MZSXSN36', mrz: MRZ.join('\n') });
    expect(r.validation.expired).toBe(true);
  });

  it('chooses by check digits the reading where a cut filler at a fragment edge is a filler', () => {
    // `<` cut by the box edge read as `4` (seen on degraded pages): the first reading fails the personal
    // number and composite checks; the edge variant passes them all.
    const lines = [...VIZ, piece(MRZ[0], 0, 700), piece(MRZ[1].slice(0, 28) + '<4', 0, 770), piece('<<<<<<<08', 35, 771)];
    const cands = td3Candidates(lines);
    expect(cands.length).toBeGreaterThan(1);
    expect(cands[0]![1]).not.toBe(MRZ[1]);
    const r = buildPassportResult(lines, '2026-06-01');
    expect(r.fields.mrz).toBe(MRZ.join('\n'));
    expect(r.validation).toMatchObject({ mrz: 'ok', mrzFields: { documentNumberCheck: true, dateOfBirthCheck: true, dateOfExpiryCheck: true, compositeCheck: true } });
  });

  it('needs the second row under the first and nearly whole', () => {
    expect(findTd3Lines([piece(MRZ[0], 0, 100), piece(MRZ[1], 0, 700)])).toEqual([]);
    expect(findTd3Lines([piece(MRZ[0], 0, 700), piece(MRZ[1].slice(0, 20) + '<', 0, 770)])).toEqual([]);
  });

  it('maps a page without a TD3 zone to wrong_document_type with the hint of what it is', () => {
    const err = (lines: OcrLine[]) => {
      try {
        buildPassportResult(lines, '2026-06-01');
      } catch (e) {
        return e as OcrError;
      }
      throw new Error('no error');
    };
    expect(err(VIZ).code).toBe('wrong_document_type');
    expect(err(VIZ).message).toMatch(/2 lines of 44/);
    const ineBack = ['IDMEX1146065362<<5308105793108', '8001015H3112315MEX<02<<<<<<<<2', 'PEREZ<LOPEZ<<JUAN<<<<<<<<<<<<<'].map((t, i) => piece(t, 0, 100 + 60 * i));
    expect(err(ineBack).message).toMatch(/voter credential/);
  });
});

describe('document check of a page read', () => {
  it('accepts the two rows of an MRZ-first TD3 read, not two stray lines', () => {
    expect(enoughDocumentText(MRZ.map((text) => ({ text })))).toBe(true);
    expect(enoughDocumentText([{ text: 'ESTADOS UNIDOS MEXICANOS' }, { text: 'PASAPORTE' }])).toBe(false);
    expect(enoughDocumentText([{ text: MRZ[0] }])).toBe(false);
    expect(enoughDocumentText([{ text: 'a' }, { text: 'b' }, { text: 'c' }])).toBe(true);
  });
});

describe('MRZ row geometry (whole-row re-read)', () => {
  const quadLine = (text: string, x0: number, y0: number, w: number, h: number, angle: number): TextLine => {
    const c = Math.cos(angle);
    const s = Math.sin(angle);
    const p = (dx: number, dy: number): [number, number] => [x0 + dx * c - dy * s, y0 + dx * s + dy * c];
    const quad = [p(0, 0), p(w, 0), p(w, h), p(0, h)] as TextLine['quad'];
    const xs = quad.map((q) => q[0]);
    const ys = quad.map((q) => q[1]);
    return { text, confidence: 0.9, quad, box: { x: Math.min(...xs), y: Math.min(...ys), w: Math.max(...xs) - Math.min(...xs), h: Math.max(...ys) - Math.min(...ys) } };
  };

  it('groups the fragments of rotated rows and extends the cut row to the zone length', () => {
    const a = 0.2; // ~11.5 degrees
    const along = (d: number, n: number): [number, number] => [100 + d * Math.cos(a) - n * Math.sin(a), 600 + d * Math.sin(a) + n * Math.cos(a)];
    const row1 = quadLine(MRZ[0].slice(0, 25), ...along(0, 0), 500, 40, a);
    const row2head = quadLine(MRZ[1].slice(0, 29), ...along(0, 60), 580, 40, a);
    const row2tail = quadLine('<<<<<<<08', ...along(700, 60), 180, 40, a);
    const viz = quadLine('Nombres / Given names', 300, 200, 200, 24, 0);
    const rows = groupMrzRowFragments([viz, row1, row2head, row2tail]);
    expect(rows.map((r) => r.members.map((m) => m.text))).toEqual([[MRZ[1].slice(0, 29), '<<<<<<<08'], [MRZ[0].slice(0, 25)]]);
    const r1 = rows[1]!;
    const q = rowQuad(r1, rows[0]!.right - rows[0]!.left);
    const len = Math.hypot(q[1][0] - q[0][0], q[1][1] - q[0][1]);
    expect(len).toBeCloseTo(880 + 20, 0); // zone length plus a quarter row height at both ends
    expect(Math.atan2(q[1][1] - q[0][1], q[1][0] - q[0][0])).toBeCloseTo(a, 3);
  });
});

describe('passport names: visual zone, MRZ and CURP reconciled', () => {
  const at = (text: string, x: number, y: number, h = 30): OcrLine => ({ text, confidence: 0.9, box: { x, y, w: 12 * text.length, h } });

  it('puts back the word spaces the visual-zone reading lost, from the MRZ', () => {
    expect(respaceLike('ALVAREZORDONEZ', 'ALVAREZ ORDONEZ')).toBe('ALVAREZ ORDONEZ');
    expect(respaceLike('GÓMEZDELAROSA', 'GOMEZ DE LA ROSA')).toBe('GÓMEZ DE LA ROSA');
    expect(respaceLike('DELA CRUZ ORDÓÑEZ', 'DE LA CRUZ ORDONEZ')).toBe('DE LA CRUZ ORDÓÑEZ');
    expect(respaceLike('RUIZ VÁZQUEZ', 'RUIZ VAZQUEZ')).toBe('RUIZ VÁZQUEZ');
    // The MRZ reading dropped the Z: the letter goes to the word it makes a known surname.
    expect(respaceLike('ORDONEZAGUILAR', 'ORDONE AGUILAR')).toBe('ORDONEZ AGUILAR');
    expect(splitSurnames('GÓMEZ DE LA ROSA')).toEqual(['GÓMEZ', 'DE LA ROSA']);
  });

  it('tolerates OCR noise between readings, and reads the CURP name letters with Ñ lost', () => {
    expect(namesAgree('TREVIÑO CRUZ', 'TREVINO RUZ')).toBe(true);
    expect(namesAgree('PÉREZ LÓPEZ', 'GARCIA LOPEZ')).toBe(false);
    expect(curpAgrees('CUYJ640805HCMRXS24', 'CRUZ YANEZ', 'JOSE')).toBe(true); // YAÑEZ: X in the CURP
    expect(curpAgrees('CUYJ640805HCMRXS24', 'RO YNEZ', 'JOSE')).toBe(false);
  });

  it('rejects the remainder of a label taken for a value and a lower-case label line', () => {
    const lines = [at('Apellidos/Suman', 400, 100, 24), at('mes', 560, 104, 10), at('RUIZ VÁZQUEZ', 400, 128), at('Nombres/Givennames', 400, 170, 34), at('LUIS', 400, 176, 34), at('Nacionalidad/Nationality', 400, 210, 24)];
    const n = passportNames(lines, 'RUIZ VAZQUEZ', 'LUIS', '');
    expect(passportNameLines(lines).map((l) => l.text)).toEqual(['RUIZ VÁZQUEZ', 'LUIS']);
    expect(n).toMatchObject({ surnames: 'RUIZ VÁZQUEZ', givenNames: 'LUIS', fromVisualZone: true, mrzAgrees: true, labelsFound: 2 });
  });

  it('lets the CURP choose the printed names when the labels are unreadable and the MRZ name is misread', () => {
    const lines = [at('ps/Codes', 400, 60, 24), at('CRUZ YANEZ', 400, 100), at('JOSE', 400, 150), at('MEXICANA', 400, 200), at('CUYJ640805HCMRXS24', 700, 250)];
    const n = passportNames(lines, 'RO YNEZ', 'JOSE', 'CUYJ640805HCMRXS24');
    // Chosen by the CURP, written as read (the Ñ the CURP shows is put back by buildPassportResult, no accent is added).
    expect(n).toMatchObject({ surnames: 'CRUZ YANEZ', givenNames: 'JOSE', confirmedByCurp: true, mrzAgrees: null, labelsFound: 0 });
    // Without the CURP nothing supports the visual-zone line: the MRZ's reading stays.
    expect(passportNames(lines, 'RO YNEZ', 'JOSE', '').surnames).toBe('RO YNEZ');
  });

  it('keeps a value with a few capitals read in lower case, accents as read (none added by the lexicon)', () => {
    const lines = [at('Apellidos/Surnames', 400, 100, 24), at('NÚÑEZ RAMÍREZ', 400, 128), at('Nombres/Givennames', 400, 170, 24), at('ROCio', 400, 198)];
    expect(passportNames(lines, 'NUNEZ RAMIREZ', 'ROIO', '')).toMatchObject({ surnames: 'NÚÑEZ RAMÍREZ', givenNames: 'ROCIO', mrzAgrees: true });
  });

  it('flags a visual zone that contradicts a clean MRZ name', () => {
    const lines = [at('Apellidos / Surnames', 400, 100, 24), at('PÉREZ LÓPEZ', 400, 128), at('Nombres / Given names', 400, 170, 24), at('JUAN', 400, 198)];
    expect(passportNames(lines, 'GARCIA LOPEZ', 'MARIA', '').mrzAgrees).toBe(false);
  });

  it('rewrites the MRZ name field and issuing state from the visual zone when they agree within OCR noise', () => {
    const misread = ['P<MERRUIZ<VAZQUE<<LUIS' + '<'.repeat(22), 'N456754266MEX5106206M3105135<<<<<<<<<<<<<<08'];
    const lines = [
      at('Clave del país / Code of issuing State', 400, 40, 24), at('MEX', 400, 66),
      at('Apellidos / Surnames', 400, 100, 24), at('RUIZ VÁZQUEZ', 400, 128), at('Nombres / Given names', 400, 170, 24), at('LUIS', 400, 198),
      piece(misread[0]!, 0, 700), piece(misread[1]!, 0, 770),
    ];
    const r = buildPassportResult(lines, '2026-06-01');
    expect(r.fields.mrz.split('\n')[0]).toBe('P<MEXRUIZ<VAZQUEZ<<LUIS<<<<<<<<<<<<<<<<<<<<<');
    expect(r.fields).toMatchObject({ issuingCountry: 'MEX', firstSurname: 'RUIZ', secondSurname: 'VÁZQUEZ', name: 'LUIS' });
    expect(r.cross.mrzVsFront.name).toBe(true);
  });
});

describe('passport CURP', () => {
  const line = (text: string): OcrLine => ({ text, confidence: 0.9, box: { x: 0, y: 0, w: 400, h: 20 } });
  it('is read from the visual zone, never from an MRZ row that fits the pattern by accident', () => {
    const row2 = '99003853<1CZE1101018M1207046110101111<<<<<94';
    expect(findCurp([line(row2)])).toBe('');
    expect(findCurp([line(row2), line('CURP PEJJ900517HDFRNN09')])).toBe('PEJJ900517HDFRNN09');
  });
});
