import { describe, expect, it } from 'vitest';
import { groupMrzRows, joinSplitRows, mayBeMrzRow } from '../../models/ocr/mrz-rows.ts';
import type { TextLine } from '../../models/ocr/paddle.ts';

function line(text: string, x: number, y: number, w: number, h = 20): TextLine {
  return { text, confidence: 0.9, quad: [[x, y], [x + w, y], [x + w, y + h], [x, y + h]], box: { x, y, w, h } };
}

describe('MRZ rows among recognised lines', () => {
  it('groups the stacked rows of one MRZ, including a row without fillers, and leaves other text out', () => {
    const lines = [
      line('PASAPORTE MEXICANO', 40, 10, 300),
      line('SAMPLESAMPLESAMPLESAMPLE', 30, 150, 440),
      line('P<MEXPEREZ<LOPEZ<<JUAN<<<<<<<<<<<<<<<<<<<<<', 30, 200, 660),
      line('G123456784MEX9005171M3001015ABC1234567890102', 30, 230, 655),
    ];
    const groups = groupMrzRows(lines);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.map((l) => l.text.slice(0, 3))).toEqual(['SAM', 'P<M', 'G12']);
    expect(mayBeMrzRow('Domicilio conocido sin numero')).toBe(false);
  });

  it('trims filler-less rows off a stack taller than an MRZ', () => {
    const lines = [
      line('SAMPLESAMPLESAMPLESAMPLE', 30, 170, 440),
      line('IDMEX1234567890<<1234567890123', 30, 200, 450),
      line('9005171H3012315MEX<02<<12345<7', 30, 225, 450),
      line('PEREZ<LOPEZ<<JUAN<<<<<<<<<<<<<', 30, 250, 450),
      line('SAMPLESAMPLESAMPLESAMPLE', 30, 275, 440),
    ];
    const [g] = groupMrzRows(lines);
    expect(g!.map((l) => l.text.slice(0, 5))).toEqual(['IDMEX', '90051', 'PEREZ']);
  });

  it('joins the pieces of a row the detector split, and only on the same row', () => {
    const lines = [line('PA09404097AUS8406077F1903212', 100, 300, 560, 40), line('17331334P<<<<08', 680, 304, 300, 34), line('17331334P<<<<08', 680, 400, 300, 34)];
    joinSplitRows(lines);
    expect(lines).toHaveLength(2);
    expect(lines[0]!.text).toBe('PA09404097AUS8406077F190321217331334P<<<<08');
    expect(lines[0]!.box).toEqual({ x: 100, y: 300, w: 880, h: 40 });
    expect(lines[1]!.box.y).toBe(400);
  });
});
