/**
 * Passport pages laid out or captured as issuers' specimens are (issue 30, item 5): a page on its side, a
 * TD3 row 1 the detector read only to its surname. Pure geometry and text here; the end-to-end readings are
 * in `test/api/ocr/passport-specimens.test.ts` and `scripts/passport-eval.ts`.
 */
import { describe, expect, it } from 'vitest';
import { buildTd3, parseMrz } from '../../domain/mrz/index.ts';
import { extendCutRow, td3Candidates, td3FirstRow } from '../../domain/ocr/mrz-zone.ts';
import { buildPassportResult, fillerPersonalNumber } from '../../domain/ocr/passport.ts';
import type { OcrLine } from '../../domain/ocr/text.ts';
import { quarterTurn, rotate90 } from '../../models/ocr/angle.ts';
import type { Quad } from '../../models/ocr/raster.ts';

const line = (text: string, x: number, y: number, w: number, h = 30): OcrLine => ({ text, confidence: 0.95, box: { x, y, w, h } });

describe('pages on their side', () => {
  it('rotate90 turns a 3x2 image a quarter either way', () => {
    // Pixels numbered 0..5 row by row (value in the red channel).
    const img = { width: 3, height: 2, data: new Uint8Array([0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0, 5, 0, 0]) };
    const red = (i: { data: Uint8Array }) => [...i.data].filter((_, k) => k % 3 === 0);
    const cw = rotate90(img, 'cw');
    expect([cw.width, cw.height]).toEqual([2, 3]);
    expect(red(cw)).toEqual([3, 0, 4, 1, 5, 2]); // the bottom-left pixel comes to the top left
    const ccw = rotate90(img, 'ccw');
    expect(red(ccw)).toEqual([2, 5, 1, 4, 0, 3]);
    expect(red(rotate90(cw, 'ccw'))).toEqual(red(img));
  });

  it('quarterTurn: text running down or up the image turns the page back; an upright page or a slanted one is left', () => {
    const box = (x: number, y: number, dx: number, dy: number, h = 20): Quad => {
      const len = Math.hypot(dx, dy);
      const nx = (-dy / len) * h;
      const ny = (dx / len) * h;
      return [[x, y], [x + dx, y + dy], [x + dx + nx, y + dy + ny], [x + nx, y + ny]];
    };
    const down = [box(500, 10, 2, 400), box(460, 10, 1, 300), box(420, 10, -2, 350), box(50, 10, 200, 5)];
    expect(quarterTurn(down)).toBe('ccw');
    const up = [box(500, 410, 2, -400), box(460, 310, 1, -300), box(420, 360, 3, -350)];
    expect(quarterTurn(up)).toBe('cw');
    expect(quarterTurn([box(0, 0, 400, 10), box(0, 40, 300, -20), box(0, 80, 350, 60)])).toBeNull();
    // A page photographed at 30 degrees is a skew, for the deskew; a lone vertical stamp does not turn it.
    expect(quarterTurn([box(0, 0, 346, 200), box(0, 40, 346, 200), box(0, 80, 60, 300)])).toBeNull();
    expect(quarterTurn([box(0, 0, 2, 400), box(0, 0, 2, 400)])).toBeNull(); // fewer than 3 lines
  });
});

describe('a TD3 row 1 read only to its surname', () => {
  const [row1, row2] = buildTd3({
    documentCode: 'P', issuingState: 'AUS', primaryIdentifier: 'CITIZEN', secondaryIdentifier: 'JANE', documentNumber: 'PA0940409',
    nationality: 'AUS', dateOfBirth: '840607', sex: 'F', dateOfExpiry: '190321', personalNumber: '<17331334P',
  });

  it('is a TD3 zone when row 2 is whole: the name padded with fillers, and the padding reported', () => {
    const lines = [line('P<AUSCIT', 369, 662, 175), line('IZEN', 543, 662, 82), line(row2, 368, 702, 884)];
    const c = td3Candidates(lines);
    expect(c[0]).toEqual(['P<AUSCITIZEN' + '<'.repeat(32), row2]);
    expect(parseMrz(c[0]!).valid).toBe(true);
    expect(td3FirstRow(lines)).toEqual({ read: 'P<AUSCITIZEN', padded: 32 });
    // Row 2 read short too: not enough to call it a passport zone.
    expect(td3Candidates([line('P<AUSCITIZEN', 369, 662, 256), line(row2.slice(0, 36), 368, 702, 720)])).toEqual([]);
    // A row 1 that is not even its code, state and a letter is not one.
    expect(td3Candidates([line('P<AU', 369, 662, 60), line(row2, 368, 702, 884)])).toEqual([]);
  });

  it('extendCutRow puts the rest of a whole-row re-read after what the detector read', () => {
    expect(extendCutRow('P<AUSCITIZEN', 'P<AUS1TIZEN<<JANE<<<<<<<<<<<<<<<<<<<<<<<<<')).toBe(row1);
    expect(extendCutRow('P<AUSCITIZEN', 'P<AUSCITIZEN<<<<<<<<<<<<<<<<')).toBeNull(); // nothing more
    expect(extendCutRow('P<AUSCITIZEN', 'P<AUS1T1ZFN<<JANE<<<<<<')).toBeNull(); // the surname's end not found
  });
});

describe('an empty personal number read with filler look-alikes', () => {
  // PassportEye's 272-px UK specimen: the decoder read two pairs of its chevrons as `C`, and the personal
  // number and composite check digits happen to pass that way too.
  const printed = '1071828900GBR8501178F1601312<<<<<<<<<<<<<<06';
  const read = '1071828900GBR8501178F1601312<<<<<<<<<CC<CC06';

  it('both readings pass every check digit; the all-filler one is the row', () => {
    expect(parseMrz(['P<GBRUNITED<KINGDOM<TWENTY<SIX<<JODIE<PIPPA<', read], { correct: false }).valid).toBe(true);
    expect(fillerPersonalNumber(read)).toBe(printed);
    expect(fillerPersonalNumber(printed)).toBeNull(); // nothing to change
    // A personal number starts at the left of its field: letters there are one, not look-alikes.
    expect(fillerPersonalNumber('L898902C36UTO7408122F1204159ZE184226B<<<<<10')).toBeNull();
    expect(fillerPersonalNumber('1071828900GBR8501178F1601312<<<<<<<<<AB<CC06')).toBeNull();
  });

  it('buildPassportResult returns the printed row', () => {
    const r = buildPassportResult([line('P<GBRUNITED<KINGDOM<TWENTY<SIX<<JODIE<PIPPA<', 46, 431, 708, 26), line(read, 49, 472, 702, 25)], '2026-06-01');
    expect(r.fields.mrz.split('\n')[1]).toBe(printed);
    expect(r.validation.mrz).toBe('ok');
    expect(r.fields).toMatchObject({ documentNumber: '107182890', dateOfBirth: '1985-01-17', dateOfExpiry: '2016-01-31', gender: 'M', nationality: 'GBR' });
  });
});
