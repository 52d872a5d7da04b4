/**
 * The one INE front+back orchestration (`domain/ocr/extract-ine.ts`), run with the worker's real
 * handlers in this thread (as `scripts/ocr-eval.ts` does), on a generated INE with ground truth; and the
 * worker's `ocr.extractId` job, which runs the same orchestration, agrees with it.
 */
import { describe, expect, it, vi } from 'vitest';
import { extractIne, type RunReadPageJob } from '../../domain/ocr/extract-ine.ts';
import { handlers, serially } from '../../models/ocr/jobs.ts';
import { generateDocument } from '../generators/index.ts';

vi.setConfig({ testTimeout: 120_000 });

const runJob: RunReadPageJob = serially((type, input) => handlers[type](input));
const today = '2026-06-01';

describe('extractIne', () => {
  it('reads both sides through ocr.readPage and combines them; ocr.extractId gives the same result', async () => {
    const doc = await generateDocument({ type: 'ine', seed: 'api-test', index: 3, model: 'G' });
    const front = new Uint8Array(doc.images.front!.data);
    const back = new Uint8Array(doc.images.back!.data);
    const jobs: string[] = [];
    const r = await extractIne((type, input) => (jobs.push(input.kind), runJob(type, input)), { front, back, today });
    expect(jobs).toEqual(['ineFront', 'back']);
    expect(r.type).toBe('ine');
    expect(r.fields).toEqual(doc.truth.fields);
    expect(r.validation.mrz).toBe('ok');
    expect(r.engines).toContain('paddleocr-ppocrv4-onnx@1.4.2');
    expect(r.timings.front).toBeGreaterThan(0);
    expect(r.timings.back).toBeGreaterThan(0);

    const viaJob = await handlers['ocr.extractId']!({ front, back, documentType: 'ine', today });
    expect({ fields: viaJob.fields, validation: viaJob.validation, cross: viaJob.cross }).toEqual({ fields: r.fields, validation: r.validation, cross: r.cross });
  });

  it('front only: no back job, mrz not_present; the back sent as front is wrong_side', async () => {
    const doc = await generateDocument({ type: 'ine', seed: 'api-test', index: 3, model: 'G' });
    const jobs: string[] = [];
    const r = await extractIne((type, input) => (jobs.push(input.kind), runJob(type, input)), { front: new Uint8Array(doc.images.front!.data), back: null, today });
    expect(jobs).toEqual(['ineFront']);
    expect(r.validation.mrz).toBe('not_present');
    expect(r.fields.curp).toBe((doc.truth.fields as { curp: string }).curp);
    await expect(extractIne(runJob, { front: new Uint8Array(doc.images.back!.data), back: null, today })).rejects.toMatchObject({ code: 'wrong_side' });
  });
});
