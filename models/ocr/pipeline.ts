/**
 * The OCR pipeline run inside an inference worker: intake (format, EXIF, PDF, quality gate) -> PaddleOCR
 * detection + recognition (a page read upside down is turned and read again, `angle.ts`) -> deskew of
 * the line geometry -> document check -> Spanish re-read of name/address rows with Tesseract -> domain
 * parsers. Engines are loaded once per worker and reused.
 */
import { OcrError } from '../../domain/ocr/errors.ts';
import { billTextRegions } from '../../domain/ocr/bills.ts';
import { ineTextRegions } from '../../domain/ocr/ine.ts';
import { mrzChars } from '../../domain/ocr/mrz-zone.ts';
import { passportTextRegions } from '../../domain/ocr/passport.ts';
import { editDistance } from '../../domain/ocr/text.ts';
import { isUpsideDown, quarterTurn, rotate180, rotate90 } from './angle.ts';
import { rereadBarcodeRow, rereadBillRows } from './bill-reread.ts';
import { getPaddle, getTesseract, getTesseractMrz } from './engines.ts';
import { intake } from './intake.ts';
import { rereadWholeMrzRows } from './mrz-row-reread.ts';
import { rereadMrzRows } from './mrz-rows.ts';
import type { PipelineLine, ReadPage } from './page.ts';
import type { TextLine } from './paddle.ts';
import { dist, warpQuad, type Quad } from './raster.ts';
import { respace } from './respace.ts';
import { ocrSettings } from './settings.ts';

// Re-exported for callers that read pages (tests, benches, scripts) and predate the split.
export { getPaddle, getTesseract, getTesseractMrz, MRZ_WHITELIST } from './engines.ts';
export type { PipelineLine, ReadPage } from './page.ts';
export { respace } from './respace.ts';

/** Length-weighted median text angle of the lines (radians; positive = clockwise). */
export function medianTextAngle(lines: readonly TextLine[]): number {
  const angles: { a: number; w: number }[] = lines.map((l) => {
    const [tl, tr] = l.quad;
    return { a: Math.atan2(tr[1] - tl[1], tr[0] - tl[0]), w: dist(tl, tr) };
  });
  angles.sort((p, q) => p.a - q.a);
  const total = angles.reduce((s, x) => s + x.w, 0);
  let acc = 0;
  for (const x of angles) {
    acc += x.w;
    if (acc >= total / 2) return x.a;
  }
  return 0;
}

/** A line's axis-aligned box after rotating its quad by `-angle` about the centre of a `width` x `height` image. */
export function uprightLine(l: TextLine, angle: number, width: number, height: number): PipelineLine {
  const cx = width / 2;
  const cy = height / 2;
  const cos = Math.cos(-angle);
  const sin = Math.sin(-angle);
  const pts = l.quad.map(([x, y]) => [cx + (x - cx) * cos - (y - cy) * sin, cy + (x - cx) * sin + (y - cy) * cos] as const);
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { text: l.text, confidence: l.confidence, quad: l.quad, engine: 'paddle', box: { x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y } };
}

const byReadingOrder = (a: PipelineLine, b: PipelineLine) => a.box.y + a.box.h / 2 - (b.box.y + b.box.h / 2) || a.box.x - b.box.x;

/**
 * Deskews line geometry: rotates every quad about the image centre by minus the median text angle
 * (weighted by line length), then takes axis-aligned boxes. Parsers then reason in upright coordinates.
 */
export function deskewLines(lines: TextLine[], width: number, height: number): { lines: PipelineLine[]; skewDeg: number } {
  const median = medianTextAngle(lines);
  const out = lines.map((l) => uprightLine(l, median, width, height));
  out.sort(byReadingOrder);
  return { lines: out, skewDeg: (median * 180) / Math.PI };
}

function isMrzShaped(q: Quad, all: readonly Quad[]): boolean {
  const w = dist(q[0], q[1]);
  const h = Math.max(1, dist(q[0], q[3]));
  const widest = Math.max(...all.map((x) => dist(x[0], x[1])));
  return w / h >= 12 && w >= 0.6 * widest;
}

/**
 * The document check of {@link readPage} on the lines read with confidence >= 0.5: at least 3 lines, or exactly
 * 2 MRZ rows (>= 25 MRZ characters holding `<<`), which is all an MRZ-first read of a TD3 zone recognises.
 */
export function enoughDocumentText(lines: readonly { text: string }[]): boolean {
  if (lines.length >= 3) return true;
  return lines.length === 2 && lines.every((l) => mrzChars(l.text).length >= 25 && mrzChars(l.text).includes('<<'));
}

/** Options of {@link readPage}. */
export interface ReadPageOptions {
  /** Apply the blur gate (default true). */
  checkBlur?: boolean;
  /** Recognise the MRZ-shaped boxes first (INE back); every box only when they hold no MRZ. */
  mrzFirst?: boolean;
}

/**
 * Reads one uploaded image.
 * @throws OcrError from intake, or `no_document_detected` when fewer than 3 text lines are found (2 suffice
 *   when they are MRZ rows: a TD3 zone read MRZ-first has exactly two)
 */
export async function readPage(bytes: Uint8Array, options: ReadPageOptions = {}): Promise<ReadPage> {
  const timings: Record<string, number> = {};
  let t = performance.now();
  const img = await intake(bytes, options);
  timings.intakeMs = performance.now() - t;
  t = performance.now();
  const ocr = await getPaddle();
  const settings = ocrSettings();
  const detMaxSide = settings.detMaxSide;
  const readImage = async (image: typeof img.image): Promise<TextLine[]> => {
    if (options.mrzFirst) {
      // MRZ rows are the longest boxes of a back/data page (aspect >= 12, >= 60% of the widest box):
      // recognise those first and fall back to every box only when they do not hold MRZ text.
      // The MRZ rows are the largest print of the page: this pass detects at `mrzDetMaxSide` (640: the same
      // MRZ as at 960 on 30 of 30 backs, a third less CPU); the fallback detects at the full `detMaxSide`.
      const mrz = await ocr.read(image, { detMaxSide: Math.min(detMaxSide, settings.mrzDetMaxSide), filter: (q, all) => isMrzShaped(q, all), keepMatrices: true, batch: settings.recBatch });
      if (mrz.filter((l) => l.text.includes('<')).length >= 2) return mrz;
    }
    return ocr.read(image, { detMaxSide, batch: settings.recBatch });
  };
  let raw = await readImage(img.image);
  // A page on its side (a passport photographed in portrait, a data page scanned turned: issue 30): most of
  // its text runs vertically, and the recogniser reads each such line along its box in either direction,
  // half of them backwards. The page is turned a quarter and read again; the 180-degree check below then
  // picks the upright one of the two ways.
  const quarter = quarterTurn(raw.map((l) => l.quad));
  if (quarter) {
    const turned = rotate90(img.image, quarter);
    img.image = turned;
    raw = await readImage(turned);
    timings.rotated90 = 1;
  }
  const usable = (ls: TextLine[]) => ls.filter((l) => l.confidence >= 0.5 && /[A-Za-z0-9]/.test(l.text));
  // MRZ rows are left out of the vote: the classifier often calls OCR-B `<<<` rows 180, and a row that
  // reads with `<` is upright anyway.
  const flip = await isUpsideDown(img.image, raw.filter((l) => !l.text.includes('<')).map((l) => l.quad), settings.onnxThreads);
  if (flip || usable(raw).length < 3) {
    // Most of the widest lines read as 180 degrees (PaddleOCR's direction classifier), or too little was
    // read to tell (an upside-down MRZ reads as nothing): read the turned page, keep it if it reads better.
    const turned = rotate180(img.image);
    const again = await ocr.read(turned, { detMaxSide });
    if (flip || usable(again).length > usable(raw).length) {
      img.image = turned;
      raw = again;
      timings.rotated180 = 1;
    }
  }
  // The greedy decoder keeps PaddleOCR's greedy reading of MRZ rows (per-decoder comparison in evals).
  if (settings.mrzDecoder !== 'greedy') await rereadMrzRows(ocr, img.image, raw);
  timings.paddleMs = performance.now() - t;
  const good = usable(raw);
  if (!enoughDocumentText(good)) {
    throw new OcrError('no_document_detected', 'No document was found in the image (no readable text). Photograph the whole document, flat and well lit.', { textLines: good.length });
  }
  const { lines, skewDeg } = deskewLines(good, img.image.width, img.image.height);
  const x0 = Math.min(...lines.map((l) => l.box.x));
  const y0 = Math.min(...lines.map((l) => l.box.y));
  const x1 = Math.max(...lines.map((l) => l.box.x + l.box.w));
  const y1 = Math.max(...lines.map((l) => l.box.y + l.box.h));
  return { intake: img, lines, skewDeg, docBox: { x: x0, y: y0, w: x1 - x0, h: y1 - y0 }, timings };
}

/**
 * Re-reads the given lines with Tesseract (Spanish), one crop per line (56 px high), the lines in parallel
 * on the reader's threads. Keeps Tesseract's text for a line only when it agrees with Paddle's
 * on the letters Paddle can read (accents/Ñ/spaces folded), so a Tesseract misread never replaces a
 * correct Paddle read; otherwise repairs Paddle's text with Tesseract's spacing where possible.
 */
export async function rereadSpanish(page: ReadPage, targets: PipelineLine[]): Promise<void> {
  if (!targets.length) return;
  const reader = await getTesseract();
  // The rows are read at once, spread over the reader's threads; each row's merge depends on its own reading only.
  await Promise.all(targets.map(async (line) => {
    const q = line.quad;
    const h = dist(q[0], q[3]);
    const w = dist(q[0], q[1]);
    const outH = 56;
    const crop = warpQuad(page.intake.image, q, Math.max(16, Math.round((outH * w) / Math.max(1, h))), outH);
    const r = await reader.readLine(crop);
    const t = r.text.toUpperCase().replace(/[^A-ZÑÁÉÍÓÚÜ0-9 .,#'/-]/g, '').replace(/\s+/g, ' ').trim();
    if (!t) return;
    const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toUpperCase().replace(/[^A-Z0-9]/g, '');
    const paddleFold = fold(line.text);
    const tessFold = fold(t);
    if (tessFold === paddleFold) {
      line.text = t;
      line.engine = 'tesseract';
    } else if (r.confidence >= 0.7 && editDistance(tessFold, paddleFold) <= Math.max(1, Math.floor(paddleFold.length / 10))) {
      line.text = t;
      line.engine = 'tesseract';
    } else {
      line.text = respace(line.text, t);
    }
  }));
}


/** Reads an INE front: page read plus Spanish re-read of the name and address rows. */
export async function readIneFront(bytes: Uint8Array): Promise<ReadPage> {
  return rereadIneFrontRows(await readPage(bytes));
}

/**
 * The Spanish re-read of an INE front's name and address rows (`rereadSpanish`), in place, on a page
 * already read; skipped when `OcrSettings.spanishReread` is off.
 */
export async function rereadIneFrontRows(page: ReadPage): Promise<ReadPage> {
  const t = performance.now();
  if (ocrSettings().spanishReread) {
    const { name, address } = ineTextRegions(page.lines);
    await rereadSpanish(page, [...name, ...address] as PipelineLine[]);
  }
  page.timings.tesseractMs = performance.now() - t;
  return page;
}

/**
 * Reads a bill: page read, bar-code digit row re-read, Spanish re-read of the holder's name and address rows
 * (`bill-reread.ts`). The two re-reads run at once (Tesseract in its own thread, the bar-code crops on the
 * PaddleOCR threads): the holder rows are found before the bar-code row is merged, which changes only the
 * lines of that row; should the row hold a holder line, the holder rows are found again afterwards and the
 * new ones re-read.
 */
export async function readBill(bytes: Uint8Array): Promise<ReadPage> {
  const page = await readPage(bytes);
  const t = performance.now();
  const spanish = ocrSettings().spanishReread;
  const holderRows = (lines: readonly PipelineLine[]) => {
    const r = billTextRegions(lines);
    return [...(r.name ? [r.name] : []), ...r.address] as PipelineLine[];
  };
  const targets = spanish ? holderRows(page.lines) : [];
  const [replaced] = await Promise.all([
    (async () => {
      const ocr = await getPaddle();
      const t0 = performance.now();
      const r = await rereadBarcodeRow(page, ocr);
      page.timings.barcodeMs = performance.now() - t0;
      return r;
    })(),
    rereadBillRows(page, targets),
  ]);
  if (spanish && replaced.some((l) => targets.includes(l))) await rereadBillRows(page, holderRows(page.lines).filter((l) => !targets.includes(l)));
  page.timings.tesseractMs = performance.now() - t;
  return page;
}

/** Reads a passport data page: page read plus Spanish re-read of the visual-zone name lines. */
export async function readPassport(bytes: Uint8Array): Promise<ReadPage> {
  const page = await readPage(bytes);
  const t = performance.now();
  if (ocrSettings().spanishReread) await rereadSpanish(page, passportTextRegions(page.lines) as PipelineLine[]);
  page.timings.tesseractMs = performance.now() - t;
  return page;
}

/**
 * Other line sets for the MRZ of a page whose rows, as read, fail the check digits: every MRZ row read again as
 * one whole-row crop at each height factor of `scales` (default `OcrSettings.mrzRowScales`; `mrz-row-reread.ts`: rows the detector split
 * or cut are rejoined, rows that dropped characters often read whole with another margin), put in place of
 * its fragments. Per factor, one set per non-empty combination of re-read rows (at most 7), the set with every
 * row re-read last; for the caller to keep the first set whose check digits pass. `rowLength`: characters
 * per row (44 for TD3).
 */
export async function mrzRowAlternatives(page: ReadPage, rowLength: number, scales: readonly number[] = ocrSettings().mrzRowScales): Promise<PipelineLine[][]> {
  const t = performance.now();
  const ocr = await getPaddle();
  const angle = (page.skewDeg * Math.PI) / 180;
  const out: PipelineLine[][] = [];
  for (const scale of scales) {
    const rereads = await rereadWholeMrzRows(ocr, page.intake.image, page.lines, rowLength, scale);
    for (let mask = 1; mask < 1 << rereads.length && mask < 8; mask++) {
      const chosen = rereads.filter((_, k) => mask & (1 << k));
      const drop = new Set(chosen.flatMap((r) => r.members));
      const alt = page.lines.filter((l) => !drop.has(l)).concat(chosen.map((r) => uprightLine(r.line, angle, page.intake.image.width, page.intake.image.height)));
      out.push(alt.sort(byReadingOrder));
    }
  }
  page.timings.mrzRereadMs = (page.timings.mrzRereadMs ?? 0) + performance.now() - t;
  return out;
}

/**
 * Second reading of the MRZ rows with Tesseract (English LSTM, MRZ alphabet only), for when PaddleOCR's
 * reading fails the check digits: returns alternative line sets, each with some MRZ rows replaced by
 * Tesseract's reading (every combination of rows, at most 8), for the caller to keep the one whose
 * check digits pass. Rows are found by shape: >= 25 MRZ characters including `<`, among `lines` (the page's
 * lines by default; a passport passes its set with the split MRZ rows read whole).
 */
export async function mrzAlternatives(page: ReadPage, lines: PipelineLine[] = page.lines): Promise<PipelineLine[][]> {
  const rows = lines.filter((l) => {
    const t = l.text.toUpperCase().replace(/\s+/g, '');
    return t.length >= 25 && /<|«|《|く/.test(t);
  });
  if (!rows.length || rows.length > 3) return [];
  const reader = await getTesseractMrz();
  const alt = new Map<PipelineLine, string>();
  for (const row of rows) {
    const q = row.quad;
    const h = dist(q[0], q[3]);
    const outH = 64;
    const crop = warpQuad(page.intake.image, q, Math.max(16, Math.round((outH * dist(q[0], q[1])) / Math.max(1, h))), outH);
    const r = await reader.readLine(crop);
    const t = r.text.replace(/\s+/g, '');
    if (t.length >= 20) alt.set(row, t);
  }
  const keys = [...alt.keys()];
  const out: PipelineLine[][] = [];
  for (let mask = 1; mask < 1 << keys.length && out.length < 8; mask++) {
    out.push(lines.map((l) => {
      const k = keys.indexOf(l);
      return k >= 0 && mask & (1 << k) ? { ...l, text: alt.get(l)!, engine: 'tesseract' as const } : l;
    }));
  }
  return out;
}
