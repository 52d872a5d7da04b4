/**
 * Use case: extract an INE (voter credential) from its front and, optionally, its back. The one
 * orchestration of the two sides, run by the HTTP route (`POST /v1/ocr/extract/id`, with the job queue),
 * by the worker's own `ocr.extractId` job and by the evaluation scripts (with direct handler calls), so
 * the published OCR figures are those of the HTTP path.
 *
 * Each side is one `ocr.readPage` job (OCR lines of one image; the front with the Spanish re-read of its
 * name/address rows, the back with its MRZ rows read first and the MRZ engine chosen where the image
 * is). With a back the two jobs run in parallel (two workers), then {@link buildIneResult} combines the
 * lines (pure, well under a millisecond). No IO here: jobs are run through the `runJob` given.
 */
import { buildIneResult, type IdentityResult, type IneFields } from './identity.ts';
import type { OcrLine } from './text.ts';

/** Which side an `ocr.readPage` job reads: `ineFront` adds the Spanish re-read; `back` reads MRZ rows first. */
export type ReadPageKind = 'ineFront' | 'back';

/** Input of the `ocr.readPage` job: the image bytes as uploaded (JPEG, PNG or PDF). */
export interface ReadPageJobInput {
  image: Uint8Array;
  kind: ReadPageKind;
}

/** Output of the `ocr.readPage` job. */
export interface ReadPageJobOutput {
  /** Recognised lines, deskewed boxes, in reading order. */
  lines: OcrLine[];
  /** Stage times in ms (`intakeMs`, `paddleMs`, `tesseractMs`, ...). */
  timings: Record<string, number>;
  /** Engines whose text is in `lines` (absent from outputs of workers older than this field). */
  engines?: string[];
}

/**
 * Runs one OCR job and resolves with its output; rejects with the job's error (a coded error for domain
 * failures such as `image_too_blurry`, a timeout or queue error otherwise). The route passes its job
 * queue, a script its in-process handlers.
 */
export type RunReadPageJob = (jobType: 'ocr.readPage', input: ReadPageJobInput) => Promise<ReadPageJobOutput>;

export interface ExtractIneInput {
  front: Uint8Array;
  /** The back (MRZ side), or null. */
  back: Uint8Array | null;
  /** Request day `YYYY-MM-DD` (for `validation.expired`, MRZ century). */
  today: string;
}

/** The INE result with the engines that read it and the time of each side (ms). */
export interface IneExtraction extends IdentityResult<IneFields> {
  type: 'ine';
  engines: string[];
  /** `front`, `back`: recognition time (PaddleOCR, ms) of each side (0 for a side not sent). */
  timings: Record<string, number>;
}

/**
 * Reads the front (and the back, in parallel) and combines them.
 * @throws the `ocr.readPage` job's error (intake and document checks of either side, e.g.
 *   `image_too_blurry`, `no_document_detected`), or OcrError `wrong_side` / `wrong_document_type` from
 *   {@link buildIneResult}. With a back, the first of the two jobs to fail gives the error.
 */
export async function extractIne(runJob: RunReadPageJob, input: ExtractIneInput): Promise<IneExtraction> {
  const frontJob = runJob('ocr.readPage', { image: input.front, kind: 'ineFront' });
  const backJob = input.back ? runJob('ocr.readPage', { image: input.back, kind: 'back' }) : null;
  const [front, back] = await Promise.all([frontJob, backJob]);
  const result = buildIneResult(front.lines, back?.lines ?? null, input.today);
  const engines = [...new Set([...(front.engines ?? []), ...(back?.engines ?? [])])];
  const timings: Record<string, number> = { front: front.timings.paddleMs ?? 0, back: back?.timings.paddleMs ?? 0 };
  return { type: 'ine', ...result, engines, timings };
}
