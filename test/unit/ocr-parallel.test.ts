/**
 * The OCR work one job spreads over threads (issue 18, OCR time) gives the same text as one thread:
 * recognition shared with a helper thread (`rec-helper.ts`), the detector on two intra-op threads, and
 * Tesseract rows read at once on two tesseract.js workers; and the recogniser's greedy outputs
 * (`rec-model.ts`) read as the greedy decoding of its posteriors.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { intake } from '../../models/ocr/intake.ts';
import { PaddleOcr } from '../../models/ocr/paddle.ts';
import { warpQuad, type RgbImage } from '../../models/ocr/raster.ts';
import { RecHelper } from '../../models/ocr/rec-helper.ts';
import { TesseractLineReader } from '../../models/ocr/tesseract.ts';
import { generateDocument } from '../../test/generators/index.ts';

describe('OCR on several threads', () => {
  const readers: TesseractLineReader[] = [];
  afterAll(async () => {
    await Promise.all(readers.map((r) => r.close()));
  });

  it('PaddleOCR: a page read with a helper thread and a 2-thread detector equals the one-thread read, and the helper did part of it', async () => {
    const doc = await generateDocument({ type: 'electricity_bill', seed: 'parallel', index: 0, degrade: true });
    const img = (await intake(new Uint8Array(doc.images.front!.data), {})).image;
    const one = await PaddleOcr.load(1, 1, 1);
    const two = await PaddleOcr.load(1, 2, 2);
    let helperRuns = 0;
    const run = RecHelper.prototype.run;
    RecHelper.prototype.run = function (this: RecHelper, ...a: Parameters<RecHelper['run']>) {
      helperRuns++;
      return run.apply(this, a);
    };
    try {
      for (const batch of [1, 6]) {
        const a = await one.read(img, { batch });
        const b = await two.read(img, { batch });
        expect(a.length).toBeGreaterThan(10);
        expect(b.map((l) => [l.text, l.confidence, l.quad])).toEqual(a.map((l) => [l.text, l.confidence, l.quad]));
        // A read keeping the posteriors decodes them in JavaScript (`ctcDecode`); the others use the model's
        // added greedy outputs (`rec-model.ts`): the same text and confidence, on one thread and with the helper.
        for (const ocr of [one, two]) {
          const c = await ocr.read(img, { batch, keepMatrices: true });
          expect(c.every((l) => l.ctc !== undefined)).toBe(true);
          expect(c.map((l) => [l.text, l.confidence, l.quad])).toEqual(a.map((l) => [l.text, l.confidence, l.quad]));
        }
      }
    } finally {
      RecHelper.prototype.run = run;
    }
    expect(helperRuns).toBeGreaterThan(2);
  }, 120_000);

  it('Tesseract: rows read at once on two workers read as one worker reads them in turn', async () => {
    const doc = await generateDocument({ type: 'ine', seed: 'parallel', index: 0, degrade: false });
    const img = (await intake(new Uint8Array(doc.images.front!.data), {})).image;
    const paddle = await PaddleOcr.load(1, 1, 1);
    const lines = (await paddle.read(img)).filter((l) => l.text.length >= 6).slice(0, 6);
    const crops: RgbImage[] = lines.map((l) => warpQuad(img, l.quad, Math.round((56 * l.box.w) / l.box.h), 56));
    const single = await TesseractLineReader.load('spa', undefined, 1);
    const pair = await TesseractLineReader.load('spa', undefined, 2);
    readers.push(single, pair);
    const inTurn: string[] = [];
    for (const c of crops) inTurn.push((await single.readLine(c)).text);
    const atOnce = (await Promise.all(crops.map((c) => pair.readLine(c)))).map((r) => r.text);
    expect(inTurn.filter(Boolean).length).toBeGreaterThan(3);
    expect(atOnce).toEqual(inTurn);
  }, 120_000);
});
