/**
 * Pure OCR domain logic (no models): code repair, label matching, INE front/back composition,
 * validation rules, bills normalisation, authenticity scoring, respacing.
 */
import { describe, expect, it } from 'vitest';
import { buildIneMrz, buildTd3 } from '../../domain/mrz/index.ts';
import { scoreAuthenticity } from '../../domain/ocr/authenticity.ts';
import { billLabelOf, dateIn, money, parseBill, periodIn } from '../../domain/ocr/bills.ts';
import { OcrError } from '../../domain/ocr/errors.ts';
import { buildIneResult, foreignMrzState, isExpired } from '../../domain/ocr/identity.ts';
import { colonyName, findTd1Lines, parseDmy, splitIneAddress } from '../../domain/ocr/ine.ts';
import { restoreDiacritics, snapStateAbbreviation } from '../../domain/ocr/lexicon.ts';
import { enyeFromCurp } from '../../domain/ocr/curp-spelling.ts';
import { generateCurp } from '../../domain/curp/index.ts';
import { buildPassportResult } from '../../domain/ocr/passport.ts';
import { CLAVE_ELECTOR_PATTERN, CURP_PATTERN, matchLabelPrefix, repairByPattern, type OcrLine } from '../../domain/ocr/text.ts';
import { respace } from '../../models/ocr/pipeline.ts';

/** Lays out text rows like a card: [text, x, y] with a 24 px line height. */
function L(rows: [string, number, number][]): OcrLine[] {
  return rows.map(([text, x, y]) => ({ text, confidence: 0.99, box: { x, y, w: text.length * 12, h: 24 } }));
}

const FRONT_G = L([
  ['INSTITUTO NACIONAL ELECTORAL', 300, 40],
  ['NOMBRE', 300, 120],
  ['SEXO H', 800, 120],
  ['PEÑA', 300, 148],
  ['MUÑOZ', 300, 176],
  ['JOSÉ ÁNGEL', 300, 204],
  ['DOMICILIO', 300, 250],
  ['C SAN MARTÍN 123', 300, 278],
  ['COL CENTRO 06000', 300, 306],
  ['CUAUHTEMOC, CDMX.', 300, 334],
  ['CLAVE DE ELECTOR', 300, 380],
  ['PEMUAN90010209H300', 520, 380],
  ['CURP PEMA9OO1O2HDFXXN05', 300, 410], // O for 0: repaired by position
  ['FECHA DE NACIMIENTO', 300, 440],
  ['02/01/1990', 560, 440],
  ['SECCIÓN 0423', 300, 470],
  ['VIGENCIA 2020 - 2030', 520, 470],
]);

function backLines(rows: string[]): OcrLine[] {
  return L([['INSTITUTO NACIONAL ELECTORAL', 300, 40], ...rows.map((r, i) => [r, 40, 500 + i * 40] as [string, number, number])]);
}

const MRZ = buildIneMrz({ cic: '123456789', section: '0423', identificadorCiudadano: '123456789', dateOfBirth: '1990-01-02', gender: 'H', expiryYear: '2030', firstSurname: 'PEÑA', secondSurname: 'MUÑOZ', names: 'JOSÉ ÁNGEL' });

describe('codes and labels', () => {
  it('repairs confusable characters by position and refuses impossible codes', () => {
    expect(repairByPattern('PEMA9OO1O2HDFXXN05', CURP_PATTERN)).toBe('PEMA900102HDFXXN05');
    expect(repairByPattern('PEMUAN9OO1O2O9H3OO', CLAVE_ELECTOR_PATTERN)).toBe('PEMUAN90010209H300');
    expect(repairByPattern('PEMA900102XDFXXN05', CURP_PATTERN)).toBeNull(); // sex must be H/M
    expect(repairByPattern('PEMA900102HDFXXN0', CURP_PATTERN)).toBeNull();
  });
  it('matches labels glued to values, with OCR errors, not inside other words', () => {
    expect(matchLabelPrefix('CLAVEDEELECTORPEMUAN90010209H300', 'CLAVE DE ELECTOR')).toBe(14);
    expect(matchLabelPrefix('DOMICIUO', 'DOMICILIO')).toBeGreaterThan(0);
    expect(matchLabelPrefix('SECCIÓN 0423', 'SECCION')).toBe(7);
    expect(matchLabelPrefix('COL CENTRO', 'CURP')).toBe(-1);
  });
  it('parses printed dates and the year-only expiry rule', () => {
    expect(parseDmy('FECHA 1O/11/2OO2')).toBe('2002-11-10');
    expect(parseDmy('31/02/2002')).toBe('');
    expect(isExpired('2025', '2025-12-31')).toBe(false); // valid through the end of the year
    expect(isExpired('2025', '2026-01-01')).toBe(true);
    expect(isExpired('2031-01-01', '2031-01-02')).toBe(true);
    expect(isExpired('', '2026-01-01')).toBeNull();
  });
  it('splits an INE address by content (postal code, comma)', () => {
    expect(splitIneAddress(['AV REFORMA 123 INT 4', 'COL JUÁREZ 06600', 'CUAUHTÉMOC, CDMX.'])).toEqual({ streetAndNumber: 'AV REFORMA 123 INT 4', colony: 'JUÁREZ', zipCode: '06600', city: 'CUAUHTÉMOC', state: 'CDMX' });
    // A long street wraps onto two rows: the colony is still the row with the postal code.
    expect(splitIneAddress(['PRIV DE LOS INSURGENTES', 'NORTE 45', 'COL CENTRO 50000', 'TOLUCA, MEX.'])).toMatchObject({ streetAndNumber: 'PRIV DE LOS INSURGENTES NORTE 45', colony: 'CENTRO', city: 'TOLUCA', state: 'MEX' });
  });
  it('gives the colony without the printed COL prefix, also as OCR reads it, and keeps names that start with COL (issue 30)', () => {
    const colony = (row: string) => splitIneAddress(['C HIDALGO 12', row, 'LEON, GTO.']).colony;
    expect(colony('COL JARDINES DEL MORAL 37160')).toBe('JARDINES DEL MORAL');
    expect(colony('COLCENTRO 06000')).toBe('CENTRO'); // the space lost
    expect(colony('C0L DEL VALLE 03100')).toBe('DEL VALLE');
    expect(colony('COR SAN JUAN DE DIOS 37004')).toBe('SAN JUAN DE DIOS');
    expect(colony('COL. ROMA NORTE 06700')).toBe('ROMA NORTE');
    expect(colony('COLONIA ROMA NORTE 06700')).toBe('ROMA NORTE');
    expect(colony('COL COLINAS DEL SUR 37160')).toBe('COLINAS DEL SUR');
    expect(colony('COLINAS DEL SUR 37160')).toBe('COLINAS DEL SUR');
    expect(colony('COLONIAL 37160')).toBe('COLONIAL');
    expect(colony('FRACC LAS AGUILAS 45080')).toBe('FRACC LAS AGUILAS');
    expect(colonyName('COL CENTRO')).toBe('CENTRO');
  });
  it('never adds an accent or Ñ the recogniser did not read; places a read accent; snaps state abbreviations', () => {
    expect(restoreDiacritics('GARCIA NUNEZ VERONICA')).toBe('GARCIA NUNEZ VERONICA');
    expect(restoreDiacritics('ANNA MARIA')).toBe('ANNA MARIA');
    expect(restoreDiacritics('MARIÁ GÁRCIA NÚNEZ')).toBe('MARÍA GARCÍA NÚNEZ');
    expect(restoreDiacritics('NÚÑEZ PEÑA')).toBe('NÚÑEZ PEÑA');
    expect(restoreDiacritics('SMITH')).toBe('SMITH');
    expect(snapStateAbbreviation('NI')).toBe('NL');
    expect(snapStateAbbreviation('COMX')).toBe('CDMX');
    expect(snapStateAbbreviation('XYZW')).toBe('XYZW');
  });
  it('respaces a glued Paddle line from Tesseract word boundaries and takes its accents', () => {
    expect(respace('CAZUCENAS1404INT12', 'C AZUCENAS 1404 INT 12')).toBe('C AZUCENAS 1404 INT 12');
    expect(respace('JOSEANGEL', 'JOSÉ ÁNGEL')).toBe('JOSÉ ÁNGEL');
    expect(respace('ALREADY SPACED', 'X Y')).toBe('ALREADY SPACED');
    expect(respace('ABCDEFGH', 'QQ RR')).toBe('ABCDEFGH'); // too different: unchanged
  });
});

describe('Ñ confirmed by the CURP (issue 18)', () => {
  const person = (nombres: string, primerApellido: string, segundoApellido: string) =>
    generateCurp({ nombres, primerApellido, segundoApellido, sexo: 'H', fechaNacimiento: '1990-01-02', entidad: '09' });
  it('writes Ñ for an N read where the CURP holds the X of an Ñ, and nothing else', () => {
    const curp = person('IÑAKI', 'NÚÑEZ', 'PEÑA');
    // The accent of NÚÑEZ was not read: it is not added; the Ñ the CURP encodes is.
    expect(enyeFromCurp(curp, 'NUNEZ', 'PENA', 'INAKI')).toEqual(['NUÑEZ', 'PEÑA', 'IÑAKI']);
    // A person registered without Ñ (CURP with N) keeps the N.
    expect(enyeFromCurp(person('INAKI', 'NUNEZ', 'PENA'), 'NUNEZ', 'PENA', 'INAKI')).toEqual(['NUNEZ', 'PENA', 'INAKI']);
    // The CURP encodes only the first internal consonant: the Ñ of IBÁÑEZ (internal consonant B) is not known.
    expect(enyeFromCurp(person('JOSÉ', 'IBÁÑEZ', 'DE LA PEÑA'), 'IBANEZ', 'DE LA PENA', 'JOSE')).toEqual(['IBANEZ', 'DE LA PEÑA', 'JOSE']);
    expect(enyeFromCurp('', 'NUNEZ', 'PENA', 'INAKI')).toEqual(['NUNEZ', 'PENA', 'INAKI']);
  });
});

describe('INE composition', () => {
  it('front + back: MRZ authoritative, cross-checked, every field of the spec', () => {
    const r = buildIneResult(FRONT_G, backLines(MRZ), '2026-06-01');
    expect(r.fields).toEqual({
      curp: 'PEMA900102HDFXXN05',
      claveElector: 'PEMUAN90010209H300',
      name: 'JOSÉ ÁNGEL',
      firstSurname: 'PEÑA',
      secondSurname: 'MUÑOZ',
      surname: 'PEÑA MUÑOZ',
      dateOfBirth: '1990-01-02',
      dateOfExpiry: '2030',
      gender: 'H',
      // As read: `CUAUHTEMOC` was read without its accent and stays so (issue 18), `MARTÍN` with it.
      address: 'C SAN MARTÍN 123 COL CENTRO 06000 CUAUHTEMOC, CDMX.',
      detailAddress: { streetAndNumber: 'C SAN MARTÍN 123', colony: 'CENTRO', zipCode: '06000', city: 'CUAUHTEMOC', state: 'CDMX' },
      section: '0423',
      mrz: MRZ.join('\n'),
      documentVersion: 'G',
    });
    expect(r.validation).toEqual({ mrz: 'ok', mrzFields: { documentNumberCheck: true, dateOfBirthCheck: true, dateOfExpiryCheck: true, compositeCheck: true }, curp: 'ok', expired: false });
    expect(r.cross.mrzVsFront).toEqual({ name: true, dateOfBirth: true, sex: true, section: true });
    expect(r.cross.curpVsData).toEqual({ initials: true, dateOfBirth: true, sex: true });
  });

  it('a broken check digit gives mrz failed and no mrzFields; a mismatching MRZ is flagged', () => {
    const d = Number(MRZ[1][14]);
    const bad = [MRZ[0], MRZ[1].slice(0, 14) + String((d + 1) % 10) + MRZ[1].slice(15), MRZ[2]]; // expiry check digit off by one
    const r = buildIneResult(FRONT_G, backLines(bad), '2026-06-01');
    expect(r.validation.mrz).toBe('failed');
    expect(r.validation).not.toHaveProperty('mrzFields');
    const other = buildIneMrz({ cic: '123456789', section: '0423', identificadorCiudadano: '123456789', dateOfBirth: '1985-07-04', gender: 'H', expiryYear: '2030', firstSurname: 'PEÑA', secondSurname: 'MUÑOZ', names: 'JOSÉ ÁNGEL' });
    const m = buildIneResult(FRONT_G, backLines(other), '2026-06-01');
    expect(m.validation.mrz).toBe('ok');
    expect(m.fields.dateOfBirth).toBe('1985-07-04'); // the MRZ is authoritative...
    expect(m.cross.mrzVsFront.dateOfBirth).toBe(false); // ...and the disagreement is reported
  });

  it('without a back: date of birth from the CURP, mrz not_present, expired from the year', () => {
    const front = FRONT_G.map((l) => (l.text.startsWith('02/01') ? { ...l, text: '03/01/1990' } : l)); // misprinted/misread front date
    const r = buildIneResult(front, null, '2031-01-01');
    expect(r.fields.dateOfBirth).toBe('1990-01-02');
    expect(r.validation).toEqual({ mrz: 'not_present', curp: 'ok', expired: true });
    expect(r.fields.mrz).toBe('');
  });

  it('keeps the printed name when the MRZ name row (no check digit) is misread; flags a real contradiction', () => {
    const misread = [MRZ[0], MRZ[1], MRZ[2].replace('MUNOZ', 'MONO<')];
    const r = buildIneResult(FRONT_G, backLines(misread), '2026-06-01');
    expect(r.validation.mrz).toBe('ok');
    expect([r.fields.firstSurname, r.fields.secondSurname]).toEqual(['PEÑA', 'MUÑOZ']);
    expect(r.cross.mrzVsFront.name).toBe(true);
    const other = buildIneMrz({ cic: '123456789', section: '0423', identificadorCiudadano: '123456789', dateOfBirth: '1990-01-02', gender: 'H', expiryYear: '2030', firstSurname: 'GARCIA', secondSurname: 'LOPEZ', names: 'PEDRO' });
    const c = buildIneResult(FRONT_G, backLines(other), '2026-06-01');
    expect(c.cross.mrzVsFront.name).toBe(false);
    expect(c.fields.firstSurname).toBe('GARCIA'); // the MRZ wins, as the MRZ writes it (no accent added)
  });

  it('repairs glued address words and a final comma read for the period', () => {
    const front = FRONT_G.map((l) =>
      l.text === 'C SAN MARTÍN 123' ? { ...l, text: 'CBENITO JUAREZ 1080' } : l.text === 'COL CENTRO 06000' ? { ...l, text: 'COLREFORMA 68050' } : l.text === 'CUAUHTEMOC, CDMX.' ? { ...l, text: 'OAXACA DE JUAREZ, OAX,' } : l,
    );
    const r = buildIneResult(front, null, '2026-06-01');
    expect(r.fields.address).toBe('C BENITO JUAREZ 1080 COL REFORMA 68050 OAXACA DE JUAREZ, OAX.');
    expect(r.fields.detailAddress).toEqual({ streetAndNumber: 'C BENITO JUAREZ 1080', colony: 'REFORMA', zipCode: '68050', city: 'OAXACA DE JUAREZ', state: 'OAX' });
  });

  it('a wrong CURP check digit is curp failed', () => {
    const front = FRONT_G.map((l) => (l.text.startsWith('CURP') ? { ...l, text: 'CURP PEMA900102HDFXXN06' } : l));
    expect(buildIneResult(front, null, '2026-06-01').validation.curp).toBe('failed');
  });

  it('rejects the back as front, the front as back, and a bill as an INE', () => {
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as OcrError).code;
      }
      return null;
    };
    expect(err(() => buildIneResult(backLines(MRZ), null, '2026-06-01'))).toBe('wrong_side');
    expect(err(() => buildIneResult(FRONT_G, FRONT_G, '2026-06-01'))).toBe('wrong_side');
    const bill = L([['TOTAL A PAGAR', 10, 10], ['$1,234.00', 200, 10], ['PERIODO FACTURADO', 10, 40], ['01 ENE 24 - 29 FEB 24', 250, 40], ['NO. DE CUENTA', 10, 70], ['123', 200, 70]]);
    expect(err(() => buildIneResult(bill, null, '2026-06-01'))).toBe('wrong_document_type');
    // A bill's holder block reads as name rows; without a CURP or clave it is still a bill.
    const billWithHolder = L([['NOMBRE DEL CLIENTE', 10, 10], ['MARÍA REYES AGUILAR', 10, 40], ['DOMICILIO', 10, 70], ['PRIV ALLENDE 12', 10, 100], ['TOTAL A PAGAR', 400, 10], ['$1,234.00', 600, 10], ['PERIODO FACTURADO', 400, 40], ['01 ENE 24 - 29 FEB 24', 650, 40]]);
    expect(err(() => buildIneResult(billWithHolder, null, '2026-06-01'))).toBe('wrong_document_type');
    // A Mexican passport's data page prints the CURP; its TD3 zone still makes it a passport, not a credential.
    const td3 = buildTd3({ documentCode: 'P', issuingState: 'MEX', primaryIdentifier: 'GARCIA LOPEZ', secondaryIdentifier: 'MARIA', documentNumber: 'G12345678', nationality: 'MEX', dateOfBirth: '850315', sex: 'F', dateOfExpiry: '310101' });
    const passport = L([['Apellidos / Surname', 400, 100], ['GARCÍA LÓPEZ', 400, 128], ['Nombres / Given names', 400, 170], ['MARÍA', 400, 198], ['CURP', 400, 240], ['GALM850315MDFRPR06', 400, 268], [td3[0], 20, 600], [td3[1], 20, 650]]);
    expect(err(() => buildIneResult(passport, null, '2026-06-01'))).toBe('wrong_document_type');
    // A foreign identity card with its TD2 zone on the front (PassportEye's 100_id-rou, as our recogniser read
    // it): it was answered 200 as a credential with a clave built from the zone and the expiry as birth date.
    const rou = L(['ROMANIA', 'CARTE DE IDENTITATE', 'SERIA HD NR198025', 'CNP1850509204994', 'Nume/Nom/Last name', 'SAVA', 'Prenume/Prenom/First name', 'SUPERMAN', 'Domicillu/Adresse/Addross', 'Str.Rotarilor nr.78', '17.10.03-09.05.2013', 'IDROUSAVA<<SUPERMAN<<<<<<<<<<<<<<<<<', 'HD198025<5MJZ8505095M130509012049941'].map((t, i) => [t, 20, 20 + 30 * i] as [string, number, number]));
    expect(err(() => buildIneResult(rou, null, '2026-06-01'))).toBe('wrong_document_type');
    expect(foreignMrzState(rou)).toBe('ROU');
    // the INE's own zone (IDMEX, the back) is not foreign: sent as front it stays wrong_side
    expect(foreignMrzState(backLines(MRZ))).toBeNull();
  });

  it('finds the TD1 rows among back lines with CJK look-alike glyphs', () => {
    const noisy = [MRZ[0], MRZ[1].replace('MEX', 'ME×'), MRZ[2]];
    expect(findTd1Lines(backLines(noisy))).toEqual(MRZ);
  });
});

describe('passport', () => {
  it('TD3 authoritative, visual-zone accents kept, every check reported', () => {
    const mrz = buildTd3({ documentCode: 'P', issuingState: 'MEX', primaryIdentifier: 'GARCIA LOPEZ', secondaryIdentifier: 'MARIA', documentNumber: 'G12345678', nationality: 'MEX', dateOfBirth: '850315', sex: 'F', dateOfExpiry: '310101' });
    const lines = L([['Apellidos / Surname', 400, 100], ['GARCÍA LÓPEZ', 400, 128], ['Nombres / Given names', 400, 170], ['MARÍA', 400, 198], ['CURP', 400, 240], ['GALM850315MDFRPR06', 400, 268], [mrz[0], 20, 600], [mrz[1], 20, 650]]);
    const r = buildPassportResult(lines, '2026-06-01');
    expect(r.fields).toMatchObject({ documentNumber: 'G12345678', firstSurname: 'GARCÍA', secondSurname: 'LÓPEZ', surname: 'GARCÍA LÓPEZ', name: 'MARÍA', dateOfBirth: '1985-03-15', dateOfExpiry: '2031-01-01', gender: 'M', nationality: 'MEX', issuingCountry: 'MEX', documentVersion: '', curp: 'GALM850315MDFRPR06' });
    expect(r.validation).toEqual({ mrz: 'ok', mrzFields: { documentNumberCheck: true, dateOfBirthCheck: true, dateOfExpiryCheck: true, compositeCheck: true }, curp: 'ok', expired: false });
  });
});

describe('bills', () => {
  it('normalises dates, periods and amounts', () => {
    expect(dateIn('16 ABR 2026')).toBe('2026-04-16');
    expect(dateIn('16-ABR-26')).toBe('2026-04-16');
    expect(dateIn('20OCT2025')).toBe('2025-10-20');
    expect(dateIn('16/04/2026')).toBe('2026-04-16');
    expect(periodIn('03 FEB 2026 - 05 ABR 2026')).toBe('2026-02-03 - 2026-04-05');
    expect(periodIn('17/10/2024-17/12/2024')).toBe('2024-10-17 - 2024-12-17');
    expect(money('$3,611.45')).toBe('3611.45');
    expect(money('$ 671.2O')).toBe('671.20');
  });
  it('takes the longest label (TELÉFONO DE SERVICIO is a service number, not the phone)', () => {
    expect(billLabelOf('TELÉFONO DE SERVICIO:')?.field).toBe('serviceNumber');
    expect(billLabelOf('TELÉFONO:')?.field).toBe('phone');
    expect(billLabelOf('Titular de la cuenta')?.field).toBe('name');
    expect(billLabelOf('Número de cuenta')?.field).toBe('accountNumber');
    expect(billLabelOf('Telefon7221184885')).toMatchObject({ field: 'phone', took: 7 });
  });
  it('parses a bill laid out in two columns, values right of or under their labels', () => {
    const lines = L([
      ['ENERGIA ELECTRICA NACIONAL', 40, 20],
      ['NOMBRE:', 40, 80],
      ['TOTAL A PAGAR:', 600, 80],
      ['NOEMI MUNOZ XOCHIPA', 40, 106],
      ['$3,611.45', 600, 106],
      ['AV REFORMA 2675 INT 13', 40, 132],
      ['COL CENTRO', 40, 158],
      ['FECHA LÍMITE DE PAGO:', 600, 160],
      ['C.P. 06000', 40, 184],
      ['16 ABR 2026', 600, 186],
      ['CUAUHTEMOC, CDMX', 40, 210],
      ['TELÉFONO: 55 9305 0386', 40, 236],
      ['NO. DE SERVICIO:', 40, 300],
      ['537561202494', 330, 300],
      ['CUENTA:', 40, 330],
      ['70DB10B949221630', 330, 330],
      ['NO. DE FACTURA:', 40, 360],
      ['F5597430', 330, 360],
      ['PERIODO FACTURADO:', 40, 390],
      ['03 FEB 2026 - 05 ABR 2026', 330, 390],
      ['Historial de consumo (kWh)', 40, 440],
      ['75612024942604160036114540', 40, 900],
    ]);
    expect(parseBill(lines, 'electricity_bill')).toEqual({
      name: 'NOEMI MUNOZ XOCHIPA', // as read (no accent or Ñ added)
      fullAddress: 'AV REFORMA 2675 INT 13, COL CENTRO, C.P. 06000, CUAUHTEMOC, CDMX',
      zipCode: '06000',
      phone: '5593050386',
      accountNumber: '70DB10B949221630',
      serviceNumber: '537561202494',
      billNumber: 'F5597430',
      billingPeriod: '2026-02-03 - 2026-04-05',
      totalPayment: '3611.45',
      paymentLimitDate: '2026-04-16',
      barCode: '75612024942604160036114540',
    });
    expect(() => parseBill(lines, 'cable_bill')).toThrow(/looks like a electricity bill/);
  });
});

describe('authenticity score', () => {
  it('weights applicable signals, flags tampering, counts indicators', () => {
    const all = scoreAuthenticity({ mrz_check_digits: true, mrz_matches_front: true, curp_consistent: true, expected_layout: true, face_in_photo_area: true, no_local_recompression: true, not_screen_capture: true, not_photocopy: true, image_quality: true }, 0.9, 'p@1');
    expect(all).toMatchObject({ is_authentic: true, confidence: 1, tampering_detected: false, quality_score: 0.9 });
    expect(all.details.validity_indicators).toBe(9);
    expect(all.method).toContain('p@1');
    const forged = scoreAuthenticity({ mrz_check_digits: true, mrz_matches_front: false, curp_consistent: true, expected_layout: true }, 0.9, 'p@1');
    expect(forged.tampering_detected).toBe(true);
    expect(forged.is_authentic).toBe(false);
    expect(forged.details.validity_indicators).toBe(3);
    const copy = scoreAuthenticity({ expected_layout: false, face_in_photo_area: false, not_photocopy: false, image_quality: true }, 0.5, 'p@1');
    expect(copy.tampering_detected).toBe(false);
    expect(copy.is_authentic).toBe(false);
    expect(copy.confidence).toBeLessThan(0.2);
    // A screen capture of a card whose data all check out: confident, not tampered, still not authentic.
    const screen = scoreAuthenticity({ mrz_check_digits: true, mrz_matches_front: true, curp_consistent: true, expected_layout: true, face_in_photo_area: true, no_local_recompression: true, not_screen_capture: false, not_photocopy: true, image_quality: true }, 0.9, 'p@1');
    expect(screen.confidence).toBeGreaterThan(0.9);
    expect(screen.tampering_detected).toBe(false);
    expect(screen.is_authentic).toBe(false);
  });
});
