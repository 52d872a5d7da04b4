/**
 * OCR job handlers for the inference workers (`apps/worker/handlers.ts`): `ocr.readPage`,
 * `ocr.extractId`, `ocr.extractDocument`, `ocr.authenticity`. Inputs carry image bytes as `Uint8Array`
 * and the request day (`today`, `YYYY-MM-DD`) so results do not depend on the worker's clock. Domain
 * failures are thrown as errors with a string `code` (see `domain/ocr/errors.ts`). The worker calls
 * {@link configure} once per thread, before the first job, with the validated configuration.
 */
import { parseBill, type BillFields, type BillType } from '../../domain/ocr/bills.ts';
import { OcrError } from '../../domain/ocr/errors.ts';
import { extractIne, type ReadPageJobInput, type ReadPageJobOutput, type RunReadPageJob } from '../../domain/ocr/extract-ine.ts';
import type { CrossChecks, IdentityValidation, IneFields, PassportFields } from '../../domain/ocr/identity.ts';
import { findTd1Lines } from '../../domain/ocr/ine.ts';
import { extendCutRow, mrzChars, td3FirstRow } from '../../domain/ocr/mrz-zone.ts';
import type { OcrLine } from '../../domain/ocr/text.ts';
import { buildPassportResult } from '../../domain/ocr/passport.ts';
import { parseMrz } from '../../domain/mrz/index.ts';
import { authenticity } from './authenticity.ts';
import type { PipelineLine } from './page.ts';
import { PADDLE_ENGINE } from './paddle.ts';
import { mrzAlternatives, mrzRowAlternatives, readBill, readIneFront, readPage, readPassport } from './pipeline.ts';
import { ocrSettings, setOcrSettings, settingsFromConfig, type OcrConfig } from './settings.ts';

export type { OcrConfig } from './settings.ts';

/**
 * Applies the OCR block of the validated configuration (`apps/api/config.ts`: `OCR_ONNX_THREADS`,
 * `OCR_DET_MAX_SIDE`, `OCR_SPANISH_REREAD`, `OCR_MRZ_DECODER`, `OCR_MRZ_ROW_SCALES`) to this thread's
 * pipeline. Call once per worker thread before its first job (the thread count is read when the models
 * load). Typed structurally: any object with these keys (the whole `Config`) will do.
 */
export function configure(config: OcrConfig): void {
  setOcrSettings(settingsFromConfig(config));
}

/** The second MRZ engine (see `mrzAlternatives`). */
const TESSERACT_MRZ_ENGINE = 'tesseract.js@7-lstm-eng-mrz-whitelist';
/** The Spanish re-read engine of name/address rows. */
const TESSERACT_SPA_ENGINE = 'tesseract.js@7-lstm-spa';

/** Input of `ocr.extractId`. */
export interface ExtractIdInput {
  front: Uint8Array;
  back?: Uint8Array | null;
  documentType: 'ine' | 'passport';
  today: string;
}

/** Output of `ocr.extractId` (the route adds `success`, `processing_time`, `authenticity`). */
export interface ExtractIdOutput {
  type: 'ine' | 'passport';
  fields: IneFields | PassportFields;
  validation: IdentityValidation;
  cross: CrossChecks;
  engines: string[];
  timings: Record<string, number>;
}

/** Rethrows as a plain coded Error (structured-clone keeps `message`; the pool reads `code`/`details`). */
function coded<T>(p: Promise<T>): Promise<T> {
  return p.catch((e: unknown) => {
    if (e instanceof OcrError) throw Object.assign(new Error(e.message), { code: e.code, details: e.details });
    throw e;
  });
}

async function extractId(input: ExtractIdInput): Promise<ExtractIdOutput> {
  const t0 = performance.now();
  if (input.documentType === 'passport') {
    const page = await readPassport(input.front);
    const engines = [PADDLE_ENGINE];
    // The lines as read; when their MRZ is missing or fails its check digits, the whole-row re-reads of the
    // MRZ rows: the first set whose check digits pass.
    let r = firstPassportResult([page.lines], input.today, false);
    let rowSets: PipelineLine[][] = [];
    // Row 1 (the name, no check digit) read to little more than its code and state while row 2 passes: the
    // detector lost the rest of it, a given name too, not only fillers (`P<AUSCITIZEN` + `<<JANE<<<...` unseen
    // on an Australian specimen photographed on a table). Whole-row re-reads; a reading that passes every
    // check digit and extends the name is kept.
    const firstRow = td3FirstRow(page.lines);
    if (r?.validation.mrz === 'ok' && firstRow && firstRow.padded >= FIRST_ROW_REREAD_PADDING) {
      // The first two crop heights, in turn (the first that extends the name is kept).
      for (const scale of ocrSettings().mrzRowScales.slice(0, 2)) {
        const sets = await mrzRowAlternatives(page, 44, [scale]);
        rowSets = rowSets.length ? rowSets : sets;
        const longer = longerName(r, firstRow.read, sets, page.lines, input.today);
        if (longer !== r) {
          r = longer;
          break;
        }
      }
    }
    // One crop height at a time, stopping at the first that passes (each costs a recognition of the rows).
    for (const scale of ocrSettings().mrzRowScales) {
      if (r?.validation.mrz === 'ok') break;
      const sets = await mrzRowAlternatives(page, 44, [scale]);
      rowSets = rowSets.length ? rowSets : sets;
      r = firstPassportResult([page.lines, ...sets], input.today, false) ?? r;
    }
    if (!r) r = firstPassportResult([page.lines, ...rowSets], input.today); // throws wrong_document_type
    if (r.validation.mrz !== 'ok') {
      // Check-digit-guided engine choice: keep a Tesseract reading of the MRZ rows if its checks pass (read on
      // the whole rows when they were re-read).
      const alts = await mrzAlternatives(page, rowSets.at(-1) ?? page.lines);
      const alt = alts.length ? firstPassportResult(alts, input.today, false) : null;
      if (alt?.validation.mrz === 'ok') {
        r = alt;
        engines.push(TESSERACT_MRZ_ENGINE);
      }
    }
    return { type: 'passport', ...r, engines, timings: { ...page.timings, totalMs: performance.now() - t0 } };
  }
  // INE: the same orchestration as HTTP (`domain/ocr/extract-ine.ts`), its two page reads run here in turn.
  const r = await extractIne(inThisWorker, { front: input.front, back: input.back ?? null, today: input.today });
  return { ...r, timings: { ...r.timings, totalMs: performance.now() - t0 } };
}

/** Fillers put at the end of a TD3 row 1 from which it is read again whole (a 44-character row with 28 missing). */
const FIRST_ROW_REREAD_PADDING = 16;

/**
 * `r`, or the result of the first re-read line set (`sets`, from `mrzRowAlternatives`) whose whole-row reading
 * of row 1 extends the row as first read (`cut`, {@link extendCutRow}) with more name, its MRZ passing every
 * check digit.
 */
function longerName(r: ReturnType<typeof buildPassportResult>, cut: string, sets: readonly PipelineLine[][], read: readonly PipelineLine[], today: string): ReturnType<typeof buildPassportResult> {
  const name = (x: ReturnType<typeof buildPassportResult>) => (x.fields.mrz.split('\n')[0] ?? '').slice(5).replace(/<+$/, '');
  const before = new Set(read);
  for (const lines of sets) {
    const row = lines.find((l) => !before.has(l) && /^P[A-Z<]/.test(mrzChars(l.text)));
    const joined = row ? extendCutRow(cut, row.text) : null;
    if (!row || !joined) continue;
    const alt = firstPassportResult([lines.map((l) => (l === row ? { ...l, text: joined } : l))], today, false);
    if (alt?.validation.mrz === 'ok' && name(alt).length > name(r).length) return alt;
  }
  return r;
}

/** `ocr.readPage` run in this thread, one read at a time (as a pool worker runs its jobs). */
const inThisWorker: RunReadPageJob = serially((_type, input) => readPageJob(input));

/** Wraps a job runner so that its calls run one after another, in call order. */
export function serially<A extends unknown[], O>(run: (...args: A) => Promise<O>): (...args: A) => Promise<O> {
  let tail: Promise<unknown> = Promise.resolve();
  return (...args: A) => {
    const next = tail.then(() => run(...args));
    tail = next.catch(() => undefined);
    return next;
  };
}

/**
 * The passport result of the first line set whose MRZ passes every check digit, else of the first set that
 * holds a TD3 zone.
 * @throws OcrError `wrong_document_type` (from the first set) when no set holds a TD3 zone
 */
function firstPassportResult(sets: readonly OcrLine[][], today: string): ReturnType<typeof buildPassportResult>;
/** As above, or null (never throws `wrong_document_type`) with `mustFind` false. */
function firstPassportResult(sets: readonly OcrLine[][], today: string, mustFind: false): ReturnType<typeof buildPassportResult> | null;
function firstPassportResult(sets: readonly OcrLine[][], today: string, mustFind = true): ReturnType<typeof buildPassportResult> | null {
  let first: ReturnType<typeof buildPassportResult> | null = null;
  let error: unknown = null;
  for (const lines of sets) {
    try {
      const r = buildPassportResult(lines, today);
      if (r.validation.mrz === 'ok') return r;
      first ??= r;
    } catch (e) {
      if (!(e instanceof OcrError) || e.code !== 'wrong_document_type') throw e;
      error ??= e;
    }
  }
  if (first || !mustFind) return first;
  throw error;
}

async function extractDocument(input: { image: Uint8Array; documentType: BillType; today: string }): Promise<{ type: BillType; fields: BillFields; timings: Record<string, number> }> {
  const t0 = performance.now();
  const page = await readBill(input.image);
  const fields = parseBill(page.lines, input.documentType);
  return { type: input.documentType, fields, timings: { ...page.timings, totalMs: performance.now() - t0 } };
}

/**
 * `ocr.readPage`: OCR lines of one image, for the INE orchestration (`domain/ocr/extract-ine.ts`), which
 * reads an INE's two sides on two workers in parallel and combines them (`kind`: `ineFront` adds the
 * Spanish re-read of the name/address rows; `back` recognises the MRZ-shaped rows first).
 */
async function readPageJob(input: ReadPageJobInput): Promise<ReadPageJobOutput> {
  const page = input.kind === 'ineFront' ? await readIneFront(input.image) : await readPage(input.image, { mrzFirst: true });
  const engines = [PADDLE_ENGINE];
  if (input.kind === 'back') {
    // Resolve the MRZ engine choice here, where the image is: keep Tesseract's rows when Paddle's fail.
    const rows = findTd1Lines(page.lines);
    const ok = rows.length === 3 && parseMrz(rows).valid;
    if (!ok) {
      for (const lines of await mrzAlternatives(page)) {
        const alt = findTd1Lines(lines);
        if (alt.length === 3 && parseMrz(alt).valid) {
          page.lines = lines;
          engines.push(TESSERACT_MRZ_ENGINE);
          break;
        }
      }
    }
  } else if (page.lines.some((l) => l.engine === 'tesseract')) engines.push(TESSERACT_SPA_ENGINE);
  return { lines: page.lines.map((l) => ({ text: l.text, confidence: l.confidence, box: l.box })), timings: page.timings, engines };
}

/** Job type -> handler; the OCR manifest (`apps/capabilities/ocr`) derives the typed job definitions from it. */
export const handlers = {
  'ocr.extractId': (input: ExtractIdInput) => coded(extractId(input)),
  'ocr.extractDocument': (input: Parameters<typeof extractDocument>[0]) => coded(extractDocument(input)),
  'ocr.authenticity': (input: Parameters<typeof authenticity>[0]) => coded(authenticity(input)),
  'ocr.readPage': (input: Parameters<typeof readPageJob>[0]) => coded(readPageJob(input)),
} satisfies Record<string, (input: never) => Promise<unknown>>;
