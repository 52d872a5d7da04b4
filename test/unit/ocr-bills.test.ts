/**
 * Bill reading from OCR lines: word segmentation of glued rows, address/name normalisation, the holder
 * block found from labels and layout (misread labels, tight rows), and the merge of PaddleOCR's and
 * Tesseract's readings of a row. Inputs are OcrLine-shaped, as the pipeline produces them.
 */
import { describe, expect, it } from 'vitest';
import { billAddress, billName } from '../../domain/ocr/bill-address.ts';
import { billLabelOf, billTextRegions, dateIn, looksLikeNameLabel, parseBill, periodIn } from '../../domain/ocr/bills.ts';
import { joinSplitWords, splitGluedWord, splitGluedWords } from '../../domain/ocr/segment.ts';
import type { OcrLine } from '../../domain/ocr/text.ts';
import { BARCODE_FIRST_READS, BARCODE_VARIANTS, mergeBillReading, normaliseTesseract, readingOutvotesPaddle, voteDigits } from '../../models/ocr/bill-reread.ts';

/** Lines at (x, y) with a box height `h` (default 24) and a width of 12 px per character. */
function L(rows: [string, number, number, number?][]): OcrLine[] {
  return rows.map(([text, x, y, h]) => ({ text, confidence: 0.95, box: { x, y, w: text.length * 12, h: h ?? 24 } }));
}

describe('word segmentation', () => {
  it('splits a glued run only when vocabulary words cover all of it', () => {
    expect(splitGluedWord('EMILIANOZAPATA')).toBe('EMILIANO ZAPATA');
    expect(splitGluedWord('JARDINESDELMORAL')).toBe('JARDINES DEL MORAL');
    expect(splitGluedWord('CEMILIANOZAPATA')).toBe('C EMILIANO ZAPATA');
    expect(splitGluedWord('FRANCISCOIMADERO')).toBe('FRANCISCO I MADERO');
    // A word, an unknown word, a partly known run: unchanged.
    expect(splitGluedWord('INSURGENTES')).toBe('INSURGENTES');
    expect(splitGluedWord('XOCHIPAS')).toBe('XOCHIPAS');
    expect(splitGluedWord('ZAPATAXQW')).toBe('ZAPATAXQW');
    // A one-letter piece never ends the split (`LEONEL` is not `LEON EL`, `PUEBLAY` not `PUEBLA Y`).
    expect(splitGluedWord('LEONEL')).toBe('LEONEL');
    expect(splitGluedWord('PUEBLAY')).toBe('PUEBLAY');
    // Accented letters are kept while splitting.
    expect(splitGluedWords('BENITOJUÁREZ 802')).toBe('BENITO JUÁREZ 802');
  });
  it('joins a word a misplaced space split, and re-splits it at the right place', () => {
    expect(joinSplitWords('AND LA ZARO CARDENAS')).toBe('AND LAZARO CARDENAS');
    expect(joinSplitWords('COL JA L ATLACO')).toBe('COL JALATLACO');
    expect(joinSplitWords('A VGUERRERO 2260')).toBe('AV GUERRERO 2260');
    expect(joinSplitWords('DE LA PEÑA')).toBe('DE LA PEÑA');
  });
});

describe('address and name normalisation', () => {
  it('writes the rows as printed: street, colony, C.P., CITY, STATE', () => {
    expect(billAddress(['AVINSURGENTES2913.', 'COR CUMBRES', 'C.P64610', 'MONTERREY NL.'])).toBe('AV INSURGENTES 2913, COL CUMBRES, C.P. 64610, MONTERREY, NL');
    expect(billAddress(['BLVO ALLENDE 409INT 40', 'COLLA PAZ', 'CP 72160', 'OAXACA DE JUAREZ, AX'])).toBe('BLVD ALLENDE 409 INT 40, COL LA PAZ, C.P. 72160, OAXACA DE JUAREZ, OAX');
    expect(billAddress(['CDE LA PENA 2056 INT 33', 'COL SAN JUAN DE DIOS:', 'C.P. 37004', 'LEON.GTO'])).toBe('C DE LA PENA 2056 INT 33, COL SAN JUAN DE DIOS, C.P. 37004, LEON, GTO');
    expect(billAddress(['BLVD ACUEDUCT 0 179', 'AV FRANCISCO 1 MADERO 2031', 'C.P. 66450'])).toBe('BLVD ACUEDUCTO 179, AV FRANCISCO I MADERO 2031, C.P. 66450');
    // A last row without a state is left as read (`LEON` is not `L, SON`).
    expect(billAddress(['CALLE HIDALGO 12', 'LEON'])).toBe('CALLE HIDALGO 12, LEON');
  });
  it('restores the spaces of the holder name; accents and Ñ only as read (issue 18)', () => {
    expect(billName('MIGUELANGELCHAVEZDELACRUZ')).toBe('MIGUEL ANGEL CHAVEZ DE LA CRUZ');
    expect(billName(': ADRIAN RUIZ HERNANDEZ.')).toBe('ADRIAN RUIZ HERNANDEZ');
    expect(billName('NATALIA SOLÍS ZÚNIGA')).toBe('NATALIA SOLÍS ZÚNIGA');
    // An accent read on the wrong vowel of a listed word is put where the word is written.
    expect(billName('RAUL GÁRCIA')).toBe('RAUL GARCÍA');
    expect(billName('ÁNGELA DELA ROSA')).toBe('ÁNGELA DE LA ROSA');
  });
});

describe('holder block from labels and layout', () => {
  it('takes a long label that lost two characters as the label, not as the name', () => {
    expect(billLabelOf('NOMBRE DECLENTE')).toMatchObject({ field: 'name', took: 14 });
    expect(looksLikeNameLabel('mbre del cliente')).toBe(true);
    expect(looksLikeNameLabel('Thular')).toBe(true);
    expect(looksLikeNameLabel('ROCIO BELTRAN YANEZ')).toBe(false);
    expect(looksLikeNameLabel('CLIENTE 12345')).toBe(false);
  });
  it('skips a misread holder label on top of the block', () => {
    const lines = L([
      ['mbre del cliente', 668, 474],
      ['JOSEFINA GARCIA ACUNA', 642, 485, 36],
      ['C DE LA PENA 2056 INT 33', 640, 507, 34],
      ['COL SAN JUAN DE DIOS', 638, 525, 34],
      ['C.P. 37004', 639, 543, 33],
      ['LEON, GTO', 637, 562, 32],
    ]);
    const r = billTextRegions(lines);
    expect(r.name?.text).toBe('JOSEFINA GARCIA ACUNA');
    expect(r.address.map((l) => l.text)).toEqual(['C DE LA PENA 2056 INT 33', 'COL SAN JUAN DE DIOS', 'C.P. 37004', 'LEON, GTO']);
  });
  it('takes the name printed close under its label (tight rows) and ends the address at the city row', () => {
    const lines = L([
      ['CLIENTE:', 315, 426, 29],
      ['SALVADOR IBANEZ ZUNIGA', 310, 437, 35],
      ['CALLE INSURGENTES 1182 INT 7', 308, 459, 33],
      ['COL CONDESA', 306, 478, 31],
      ['C.P. 06140', 306, 495, 29],
      ['CUAUHTEMOC, CDMX', 300, 506, 37],
      ['Rer', 304, 528, 19],
    ]);
    const r = billTextRegions(lines);
    expect(r.name?.text).toBe('SALVADOR IBANEZ ZUNIGA');
    expect(r.address.map((l) => l.text)).toEqual(['CALLE INSURGENTES 1182 INT 7', 'COL CONDESA', 'C.P. 06140', 'CUAUHTEMOC, CDMX']);
  });
  it('reads a phone printed with full-width parentheses', () => {
    const lines = L([
      ['Telefonia Nacional', 40, 20],
      ['Nombre del cliente', 600, 80],
      ['IVAN TREVINO DE LA ROSA', 600, 106],
      ['AV AZUCENAS 541 INT 23', 600, 132],
      ['C.P. 44200', 600, 158],
      ['GUADALAJARA, JAL', 600, 184],
      ['Telefono', 600, 216],
      ['（722）3127190', 700, 216],
      ['Total', 40, 80],
      ['$3,094.84', 40, 106],
      ['Periodo', 40, 300],
      ['09/09/2026-09/10/2026', 400, 300],
      ['Cuenta', 40, 330],
      ['182831104015', 400, 330],
    ]);
    const f = parseBill(lines, 'phone_bill');
    expect(f.phone).toBe('7223127190');
    expect(f.name).toBe('IVAN TREVINO DE LA ROSA');
    expect(f.fullAddress).toBe('AV AZUCENAS 541 INT 23, C.P. 44200, GUADALAJARA, JAL');
  });
});

describe('merging PaddleOCR and Tesseract readings of a row', () => {
  it('normalises Tesseract confusions of the spa model', () => {
    expect(normaliseTesseract('€ PEÑÓN 2549 INT 24')).toBe('C PEÑÓN 2549 INT 24');
    expect(normaliseTesseract('PRIV FRANCISCO | MADERO 188')).toBe('PRIV FRANCISCO I MADERO 188');
  });
  it('takes a reading with the same letters, rejoining digit groups Paddle read as one', () => {
    expect(mergeBillReading('AVALLENDE1113', ['AV ALLENDE 11 13'])).toBe('AV ALLENDE 1113');
    expect(mergeBillReading('COLEVOLUCION', ['coL E vOLUC ! ÓN'.toUpperCase(), 'COL EVOLUCIÓN'])).toBe('COL EVOLUCIÓN');
  });
  it('lets a dictionary reading outvote a Paddle misread, never a dropped letter or other digits', () => {
    expect(readingOutvotesPaddle('GUADALAIARA.JAL', 'GUADALAJARA, JAL')).toBe(true);
    expect(readingOutvotesPaddle('AXACADEJUAREZ,AX', 'OAXACA DE JUÁREZ, OAX')).toBe(true);
    expect(readingOutvotesPaddle('CPENON2549INT24', 'PEÑÓN 2549 INT 24')).toBe(false);
    expect(readingOutvotesPaddle('C.P.72160', 'C.P. 72180')).toBe(false);
    expect(readingOutvotesPaddle('CALLEBENITOJUAREZ2292', 'CALLE E BENITO O JUAREZ 2292')).toBe(false);
    // Not outvoted: Paddle's letters kept, Tesseract's spaces aligned onto them.
    expect(mergeBillReading('CPENON2549INT24', ['PEÑÓN 2549 INT 24'])).toBe('CPEÑÓN 2549 INT 24');
  });
});

describe('dates and values from labels', () => {
  it('reads month abbreviations with digit look-alikes', () => {
    expect(dateIn('22-0CT-24')).toBe('2024-10-22');
    expect(dateIn('01-AG0-26')).toBe('2026-08-01');
    expect(periodIn('23SEP2024-220CT2024')).toBe('2024-09-23 - 2024-10-22');
    expect(periodIn('14-AG0-24-14-0CT-24')).toBe('2024-08-14 - 2024-10-14');
    expect(dateIn('10-0CT-2024')).toBe('2024-10-10');
    expect(dateIn('SEP 0CT')).toBe('');
  });
  it('takes a value printed close under its label, and the period from the row with two dates when its label is misread', () => {
    const lines = L([
      ['Telefonia Nacional', 300, 20],
      ['Total', 40, 80, 32],
      ['$3,094.84', 40, 100, 42],
      ['Fechalimitede pago', 311, 463, 34],
      ['28/10/2026', 312, 480, 29],
      ['Penodo', 40, 540, 28],
      ['09/09/2026-09/10/2026', 400, 542, 32],
      ['No.de factura', 40, 567, 29],
      ['B10925014', 400, 569, 30],
      ['Cuenta', 40, 594, 30],
      ['182831104015', 400, 595, 29],
    ]);
    const f = parseBill(lines, 'phone_bill');
    expect(f.paymentLimitDate).toBe('2026-10-28');
    expect(f.billingPeriod).toBe('2026-09-09 - 2026-10-09');
    expect(f.totalPayment).toBe('3094.84');
    expect(f.billNumber).toBe('B10925014');
  });
});

describe('bar-code digits vote', () => {
  it('keeps the most frequent length (the longer on a tie) and votes each digit', () => {
    // Two readings dropped a zero of a run; two misread a 0 as 6 or 8 at different places.
    expect(voteDigits(['0000014612411010019184321', '00000014612411010019184321', '00000014612411016019184321', '00000014612411010019184321', '0000001461241101001918432'])).toBe('00000014612411010019184321');
    expect(voteDigits(['1234', '12345'])).toBe('12345');
    expect(voteDigits(['', ''])).toBe('');
  });

  it('three equal readings of five decide the vote whatever the other two read (the bar-code re-read stops after its first crops)', () => {
    const agreed = '96647201642512140030506140';
    const others = ['', '9664720164251214003050614', '966472016425121400305061400', '86647201642512140030506149', '00000000000000000000000000', '1'];
    for (const a of others) for (const b of others) {
      expect(voteDigits([agreed, agreed, agreed, a, b])).toBe(agreed);
      expect(voteDigits([agreed, agreed, agreed])).toBe(agreed);
    }
    // The detector's reading plus the first crops are a majority of the five readings.
    expect(2 * (BARCODE_FIRST_READS + 1)).toBeGreaterThan(BARCODE_VARIANTS.length + 1);
  });
});
