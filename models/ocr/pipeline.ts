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
import { editDistance, type OcrLine } from '../../domain/ocr/text.ts';
import { isUpsideDown, rotate180 } from './angle.ts';
import { intake, type IntakeImage } from './intake.ts';
import { MRZ_ROW_HEIGHT_SCALES, rereadWholeMrzRows } from './mrz-row-reread.ts';
import { rereadMrzRows } from './mrz-rows.ts';
import { PaddleOcr, type TextLine } from './paddle.ts';
import { dist, warpQuad, type Quad } from './raster.ts';
import { TesseractLineReader } from './tesseract.ts';
import { rereadBarcodeRow, rereadBillRows } from './bill-reread.ts';

let paddle: Promise<PaddleOcr> | null = null;
let tess: Promise<TesseractLineReader> | null = null;
let tessMrz: Promise<TesseractLineReader> | null = null;

/** The MRZ alphabet (ICAO 9303 part 3): Tesseract's English model restricted to it for MRZ rows. */
export const MRZ_WHITELIST = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<';

/** The worker's Tesseract English MRZ-alphabet line reader (loaded on first use). */
export function getTesseractMrz(): Promise<TesseractLineReader> {
  tessMrz ??= TesseractLineReader.load('eng', MRZ_WHITELIST);
  return tessMrz;
}

/**
 * The worker's PaddleOCR instance (loaded on first use). ONNX Runtime intra-op threads:
 * `OCR_ONNX_THREADS` (default 1: measured faster than 2 on the 2-core target, where the pool's two
 * workers already read an INE's two sides in parallel; see docs/ocr.md).
 */
export function getPaddle(): Promise<PaddleOcr> {
  paddle ??= PaddleOcr.load(Number(process.env.OCR_ONNX_THREADS ?? 1));
  return paddle;
}

/** The worker's Tesseract Spanish line reader (loaded on first use). */
export function getTesseract(): Promise<TesseractLineReader> {
  tess ??= TesseractLineReader.load('spa');
  return tess;
}

/** A recognised line with its quad, in working-image pixels, plus the deskewed box the parsers use. */
export interface PipelineLine extends OcrLine {
  quad: Quad;
  /** Which engine produced `text`. */
  engine: 'paddle' | 'tesseract';
}

/** Result of reading one image. */
export interface ReadPage {
  intake: IntakeImage;
  lines: PipelineLine[];
  /** Dominant text angle in degrees (positive = clockwise), corrected in the line geometry. */
  skewDeg: number;
  /** Bounds of the text (the document region) in deskewed coordinates. */
  docBox: { x: number; y: number; w: number; h: number };
  timings: Record<string, number>;
}

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
  const detMaxSide = Number(process.env.OCR_DET_MAX_SIDE ?? 960);
  let raw: TextLine[] = [];
  if (options.mrzFirst) {
    // MRZ rows are the longest boxes of a back/data page (aspect >= 12, >= 60% of the widest box):
    // recognise those first and fall back to every box only when they do not hold MRZ text.
    raw = await ocr.read(img.image, { detMaxSide, filter: (q, all) => isMrzShaped(q, all) });
    if (raw.filter((l) => l.text.includes('<')).length < 2) raw = await ocr.read(img.image, { detMaxSide });
  } else {
    raw = await ocr.read(img.image, { detMaxSide });
  }
  const usable = (ls: TextLine[]) => ls.filter((l) => l.confidence >= 0.5 && /[A-Za-z0-9]/.test(l.text));
  // MRZ rows are left out of the vote: the classifier often calls OCR-B `<<<` rows 180, and a row that
  // reads with `<` is upright anyway.
  const flip = await isUpsideDown(img.image, raw.filter((l) => !l.text.includes('<')).map((l) => l.quad), Number(process.env.OCR_ONNX_THREADS ?? 1));
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
  // OCR_MRZ_DECODER=greedy keeps PaddleOCR's greedy reading of MRZ rows (per-decoder comparison in evals).
  if (process.env.OCR_MRZ_DECODER !== 'greedy') await rereadMrzRows(ocr, img.image, raw);
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
 * Re-reads the given lines with Tesseract (Spanish), stacking their crops into one image so that a single
 * recognition call serves all of them. Keeps Tesseract's text for a line only when it agrees with Paddle's
 * on the letters Paddle can read (accents/Ñ/spaces folded), so a Tesseract misread never replaces a
 * correct Paddle read; otherwise repairs Paddle's text with Tesseract's spacing where possible.
 */
export async function rereadSpanish(page: ReadPage, targets: PipelineLine[]): Promise<void> {
  if (!targets.length) return;
  const reader = await getTesseract();
  for (const line of targets) {
    const q = line.quad;
    const h = dist(q[0], q[3]);
    const w = dist(q[0], q[1]);
    const outH = 56;
    const crop = warpQuad(page.intake.image, q, Math.max(16, Math.round((outH * w) / Math.max(1, h))), outH);
    const r = await reader.readLine(crop);
    const t = r.text.toUpperCase().replace(/[^A-ZÑÁÉÍÓÚÜ0-9 .,#'/-]/g, '').replace(/\s+/g, ' ').trim();
    if (!t) continue;
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
  }
}

/**
 * Inserts spaces into Paddle's text (PP-OCRv4 often drops word spaces on Latin text) where Tesseract's
 * reading of the same line has them, aligning the two by edit distance (accents folded), so a few
 * differing characters do not prevent it. Paddle's characters are kept, except that an aligned letter
 * Tesseract reads with an accent or as `Ñ` (absent from the PP-OCRv4 dictionary) takes that form.
 */
export function respace(paddleText: string, tessText: string): string {
  if (/\s/.test(paddleText.trim())) return paddleText;
  const fold = (ch: string) => ch.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toUpperCase();
  const p = [...paddleText.replace(/\s+/g, '')];
  const tWords = tessText.trim().split(/\s+/);
  const t: string[] = [];
  const tRaw: string[] = [];
  const spaceAfter = new Set<number>(); // index in t after which a space follows
  for (const w of tWords) {
    for (const ch of w) {
      t.push(fold(ch));
      tRaw.push(ch.toUpperCase());
    }
    spaceAfter.add(t.length - 1);
  }
  spaceAfter.delete(t.length - 1);
  const n = p.length;
  const m = t.length;
  const dp: number[][] = Array.from({ length: n + 1 }, (_, i) => Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      dp[i]![j] = Math.min(dp[i - 1]![j]! + 1, dp[i]![j - 1]! + 1, dp[i - 1]![j - 1]! + (fold(p[i - 1]!) === t[j - 1] ? 0 : 1));
    }
  }
  if (dp[n]![m]! > Math.max(2, Math.floor(n / 5))) return paddleText;
  // Backtrack: map each tesseract index to the paddle index it aligned with.
  const breaks = new Set<number>();
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    const diag = dp[i - 1]![j - 1]! + (fold(p[i - 1]!) === t[j - 1] ? 0 : 1);
    if (dp[i]![j] === diag) {
      if (spaceAfter.has(j - 1)) breaks.add(i - 1);
      if (fold(p[i - 1]!) === t[j - 1] && /[ÁÉÍÓÚÜÑ]/.test(tRaw[j - 1]!)) p[i - 1] = tRaw[j - 1]!;
      i--;
      j--;
    } else if (dp[i]![j] === dp[i - 1]![j]! + 1) i--;
    else {
      if (spaceAfter.has(j - 1) && i > 0) breaks.add(i - 1);
      j--;
    }
  }
  let out = '';
  p.forEach((ch, k) => {
    out += ch;
    if (breaks.has(k) && k < n - 1) out += ' ';
  });
  return out;
}


/** Reads an INE front: page read plus Spanish re-read of the name and address rows. */
export async function readIneFront(bytes: Uint8Array): Promise<ReadPage> {
  return rereadIneFrontRows(await readPage(bytes));
}

/**
 * The Spanish re-read of an INE front's name and address rows (`rereadSpanish`), in place, on a page
 * already read; `OCR_SPANISH_REREAD=0` skips it.
 */
export async function rereadIneFrontRows(page: ReadPage): Promise<ReadPage> {
  const t = performance.now();
  if (process.env.OCR_SPANISH_REREAD !== '0') {
    const { name, address } = ineTextRegions(page.lines);
    await rereadSpanish(page, [...name, ...address] as PipelineLine[]);
  }
  page.timings.tesseractMs = performance.now() - t;
  return page;
}

/** Reads a bill: page read, bar-code digit row re-read, Spanish re-read of the holder's name and address rows (`bill-reread.ts`). */
export async function readBill(bytes: Uint8Array): Promise<ReadPage> {
  const page = await readPage(bytes);
  let t = performance.now();
  await rereadBarcodeRow(page, await getPaddle());
  page.timings.barcodeMs = performance.now() - t;
  t = performance.now();
  if (process.env.OCR_SPANISH_REREAD !== '0') {
    const r = billTextRegions(page.lines);
    await rereadBillRows(page, [...(r.name ? [r.name] : []), ...r.address] as PipelineLine[]);
  }
  page.timings.tesseractMs = performance.now() - t;
  return page;
}

/** Reads a passport data page: page read plus Spanish re-read of the visual-zone name lines. */
export async function readPassport(bytes: Uint8Array): Promise<ReadPage> {
  const page = await readPage(bytes);
  const t = performance.now();
  if (process.env.OCR_SPANISH_REREAD !== '0') await rereadSpanish(page, passportTextRegions(page.lines) as PipelineLine[]);
  page.timings.tesseractMs = performance.now() - t;
  return page;
}

/**
 * Other line sets for the MRZ of a page whose rows, as read, fail the check digits: every MRZ row read again as
 * one whole-row crop at each height factor of `scales` (default `MRZ_ROW_HEIGHT_SCALES`; `mrz-row-reread.ts`: rows the detector split
 * or cut are rejoined, rows that dropped characters often read whole with another margin), put in place of
 * its fragments. Per factor, one set per non-empty combination of re-read rows (at most 7), the set with every
 * row re-read last; for the caller to keep the first set whose check digits pass. `rowLength`: characters
 * per row (44 for TD3).
 */
export async function mrzRowAlternatives(page: ReadPage, rowLength: number, scales: readonly number[] = MRZ_ROW_HEIGHT_SCALES): Promise<PipelineLine[][]> {
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
