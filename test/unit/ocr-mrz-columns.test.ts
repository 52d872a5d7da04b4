/**
 * The recogniser's MRZ-column output (`rec-model.ts` `REC_MRZ_OUTPUT`, a `Gather` over the class axis): an INE
 * back's MRZ rows projected onto the MRZ alphabet from those ~70 columns equal the projection of the full
 * 6,625-class posteriors, bit for bit, on one thread and with the helper thread; so the constrained MRZ
 * decoding is the same (issue 18, OCR time, fourth pass).
 */
import { describe, expect, it } from 'vitest';
import { decodeMrzRows } from '../../domain/mrz/index.ts';
import { intake } from '../../models/ocr/intake.ts';
import { mrzClassMap, mrzColumnMap, mrzColumns, toMrzPosteriors } from '../../models/ocr/mrz-posteriors.ts';
import { PaddleOcr } from '../../models/ocr/paddle.ts';
import { generateDocument } from '../../test/generators/index.ts';

describe('MRZ columns of the recogniser', () => {
  it('columns: blank first, every class of the map once, and the rewritten map points at the same classes', () => {
    const map = [[5, 9], [3], [9, 12]];
    const cols = mrzColumns(map);
    expect(cols).toEqual([0, 3, 5, 9, 12]);
    const at = mrzColumnMap(map, cols);
    expect(at.map((js) => js.map((j) => cols[j]))).toEqual(map);
    expect(() => mrzColumnMap([[7]], cols)).toThrow();
  });

  it('an INE back: MRZ posteriors from the MRZ columns equal those of the full posteriors; a read keeps them with the greedy text', async () => {
    const doc = await generateDocument({ type: 'ine', seed: 'mrzcols', index: 0, degrade: true });
    const img = (await intake(new Uint8Array(doc.images.back!.data), {})).image;
    for (const ocr of [await PaddleOcr.load(1, 1, 1), await PaddleOcr.load(1, 2, 1)]) {
      const full = mrzClassMap(ocr.dictionary);
      expect(ocr.mrzColumns.length).toBeGreaterThan(40);
      expect(ocr.mrzColumns.length).toBeLessThan(120);
      const plain = await ocr.read(img, { batch: 1 });
      const kept = await ocr.read(img, { keepMatrices: true, batch: 1 });
      expect(kept.map((l) => [l.text, l.confidence])).toEqual(plain.map((l) => [l.text, l.confidence]));
      const rows = kept.filter((l) => l.text.includes('<<')).slice(0, 3);
      expect(rows).toHaveLength(3);
      const quads = rows.map((l) => l.quad);
      const all = await ocr.recognizeMatrices(img, quads, { batch: 1, all: true });
      const cols = await ocr.recognizeMatrices(img, quads, { batch: 1 });
      expect(all[0]!.classes).toBe(ocr.dictionary.length + 1);
      expect(cols[0]!.classes).toBe(ocr.mrzColumns.length);
      const fromAll = all.map((m) => toMrzPosteriors(m, full));
      expect(cols.map((m) => toMrzPosteriors(m, ocr.mrzMap))).toEqual(fromAll);
      expect(rows.map((l) => toMrzPosteriors(l.ctc!, ocr.mrzMap))).toEqual(fromAll);
      const decoded = decodeMrzRows(fromAll);
      expect(decoded?.lines).toHaveLength(3);
      expect(decodeMrzRows(cols.map((m) => toMrzPosteriors(m, ocr.mrzMap)))).toEqual(decoded);
    }
  }, 120_000);
});
