/**
 * The `ocr.authenticity` job: reads the document, derives every signal of the score
 * (`domain/ocr/authenticity.ts`) and its raw measurement. Data signals come from the parsers (MRZ
 * check digits, MRZ vs front, CURP vs printed data, layout); image signals from `forensics.ts` and
 * the portrait face detector (`portrait.ts`), measured on upright crops of the document region and the
 * portrait area located from the layout (never fixed pixel positions). Thresholds and their measured
 * rates: docs/ocr.md, "Authenticity".
 */
import { scoreAuthenticity, type AuthenticitySignal, type ValidityCheck } from '../../domain/ocr/authenticity.ts';
import { OcrError } from '../../domain/ocr/errors.ts';
import { buildIneResult, looksLikeIneFront } from '../../domain/ocr/identity.ts';
import { findTd1Lines, findTd3Lines, INE_LABELS } from '../../domain/ocr/ine.ts';
import { findLabel } from '../../domain/ocr/layout.ts';
import { buildPassportResult } from '../../domain/ocr/passport.ts';
import { parseMrz } from '../../domain/mrz/index.ts';
import { colourfulness, errorLevelAnalysis, facePresence, haslerColourfulness, jpegGhost, moireScore, screenMoire } from './forensics.ts';
import { BLUR_THRESHOLD } from './intake.ts';
import { PADDLE_ENGINE } from './paddle.ts';
import { readPage, rereadIneFrontRows, type ReadPage } from './pipeline.ts';
import { portraitFaceScore } from './portrait.ts';
import { warpQuad, type Point, type Quad, type RgbImage } from './raster.ts';

type Box = { x: number; y: number; w: number; h: number };

/**
 * Thresholds of the image cues (tuned on seed `authn-tune`, reported on seed `authn-eval`, see
 * docs/ocr.md): each cue passes on the genuine side of its threshold.
 */
export const CUE_THRESHOLDS = {
  /** `not_screen_capture`: normalised spectral peak ({@link screenMoire}) at most this. */
  spectralPeak: 250,
  /** `no_local_recompression`: share of textured blocks off the JPEG ghost ({@link jpegGhost}) at most this. */
  ghostOutliers: 0.02,
  /** `not_photocopy`: Hasler-Süsstrunk colour spread of the document at least this. */
  colourSpread: 4.5,
  /** `face_in_photo_area`: Tiny Face Detector score in the portrait crop at least this. */
  faceScore: 0.12,
} as const;

/**
 * Raw figures behind the image signals (for evaluation and explanations). `ela`, `moire`,
 * `saturation` and `face.skin/std` are the cues of scoring 1.0.0, kept for comparison.
 */
export interface CueMeasurements {
  ela: { ratio: number; p995: number; median: number; passed: boolean };
  ghost: { outliers: number; ghostQuality: number | null };
  spectrum: { peak: number; tiles: number; at: { u: number; v: number } };
  colour: { m: number; spread: number };
  face: { score: number; ms: number } | null;
  /**
   * The image cues scoring 1.0.0 decided on (autocorrelation moiré, HSV saturation, skin tone in the
   * portrait), measured only when asked (`compareScoring100`, the evaluation script): they no longer
   * decide anything, so the request path does not pay for them.
   */
  scoring100?: { moirePeak: number; saturation: number; skinPassed: boolean | null };
}

/** Input of `ocr.authenticity`. */
export interface AuthenticityInput {
  image: Uint8Array;
  back?: Uint8Array | null;
  documentType?: 'ine' | 'passport';
  today: string;
}

/** Image quality 0..1: sharpness relative to 10x the blur threshold, scaled by resolution (1 at >= 1000 px short side). */
function qualityScore(page: ReadPage): number {
  const sharp = Math.min(1, Math.log10(Math.max(1, page.intake.sharpness)) / Math.log10(BLUR_THRESHOLD * 10));
  const res = Math.min(1, Math.min(page.intake.original.width, page.intake.original.height) / 1000);
  return 0.7 * sharp + 0.3 * res;
}

/**
 * Upright crop of a box given in the page's deskewed line coordinates ({@link imageQuad}: corners
 * rotated back by the page's skew about the image centre, the inverse of `deskewLines`), sampled with
 * `warpQuad` at about one output pixel per image pixel (at most `maxSide` on the longer side).
 */
export function uprightCrop(page: ReadPage, box: Box, maxSide = 1200): RgbImage {
  const s = Math.min(1, maxSide / Math.max(box.w, box.h));
  return warpQuad(page.intake.image, imageQuad(page, box), Math.max(8, Math.round(box.w * s)), Math.max(8, Math.round(box.h * s)));
}

/** Corners (TL, TR, BR, BL) in working-image pixels of a box given in the page's deskewed coordinates. */
export function imageQuad(page: ReadPage, box: Box): Quad {
  const { width, height } = page.intake.image;
  const a = (page.skewDeg * Math.PI) / 180;
  const cx = width / 2;
  const cy = height / 2;
  const back = ([x, y]: Point): Point => [cx + (x - cx) * Math.cos(a) - (y - cy) * Math.sin(a), cy + (x - cx) * Math.sin(a) + (y - cy) * Math.cos(a)];
  return [back([box.x, box.y]), back([box.x + box.w, box.y]), back([box.x + box.w, box.y + box.h]), back([box.x, box.y + box.h])];
}

/**
 * INE front portrait area from the layout: left of the NOMBRE/DOMICILIO column, from a little above
 * the NOMBRE label to below the CURP (or CLAVE DE ELECTOR) row; the width is taken from that height
 * (an ID portrait is about 4:5), so the crop does not depend on where the text of the card starts.
 * Null without a NOMBRE label.
 */
function inePortraitBox(page: ReadPage): Box | null {
  const lines = page.lines;
  const nameHit = findLabel(lines, INE_LABELS.name);
  if (!nameHit) return null;
  const curpHit = findLabel(lines, INE_LABELS.curp) ?? findLabel(lines, INE_LABELS.clave);
  const top = nameHit.line.box.y;
  const bottom = curpHit && curpHit.line.box.y > top ? curpHit.line.box.y + curpHit.line.box.h : top + 10 * nameHit.line.box.h;
  const span = bottom - top;
  const right = nameHit.line.box.x - 0.02 * span;
  const x = Math.max(0, right - 1.1 * span);
  const y = Math.max(0, top - 0.12 * span);
  return { x, y, w: right - x, h: Math.min(page.intake.image.height - y, 1.4 * span) };
}

/**
 * The portrait area of a passport data page: from the document's left edge to the visual-zone text column,
 * over the top 70% of the page (the MRZ below). The column's edge is the first quartile of the left edges of
 * the lines that are not MRZ rows (the leftmost line when fewer than four), 4 px of margin.
 */
function passportPortraitBox(page: ReadPage): Box {
  const xs = page.lines.filter((l) => !/<</.test(l.text)).map((l) => l.box.x).sort((a, b) => a - b);
  const left = xs.length >= 4 ? xs[Math.floor(xs.length / 4)]! : (xs[0] ?? page.docBox.x);
  return { x: page.docBox.x, y: page.docBox.y, w: Math.max(0, left - page.docBox.x - 4), h: page.docBox.h * 0.7 };
}

/**
 * Reads the image and measures every signal.
 * @throws OcrError `wrong_document_type` when neither an INE side nor a passport page is recognised
 */
export async function measureAuthenticity(input: AuthenticityInput, options: { compareScoring100?: boolean } = {}): Promise<{ signals: Partial<Record<AuthenticitySignal, boolean | null>>; cues: CueMeasurements; quality: number }> {
  const page = await readPage(input.image, { checkBlur: false });
  const lines = page.lines;
  const signals: Partial<Record<AuthenticitySignal, boolean | null>> = {};
  let photo: Box | null = null;

  const isPassport =
    input.documentType === 'passport' ||
    (input.documentType !== 'ine' && (findTd3Lines(lines).length > 0 || lines.some((l) => /PASAPORTE|PASSPORT/.test(l.text.toUpperCase().replace(/\s/g, '')))));
  if (isPassport) {
    const r = buildPassportResult(lines, input.today);
    signals.mrz_check_digits = r.validation.mrz === 'ok';
    signals.mrz_matches_front = r.validation.mrz === 'ok' ? r.cross.mrzVsFront.name : null;
    signals.curp_consistent = r.validation.curp === 'not_present' ? null : r.validation.curp === 'ok' && [r.cross.curpVsData.initials, r.cross.curpVsData.dateOfBirth, r.cross.curpVsData.sex].every((v) => v !== false);
    signals.expected_layout = r.cross.layoutScore >= 0.5;
    // Passport data page: the portrait is left of the visual-zone text column, above the MRZ (ICAO Doc 9303
    // part 4, zone V). The column's left edge is where most of the page's lines start (their first quartile):
    // the leftmost line alone is often the `PASSPORT` header printed above the portrait, which left a crop a
    // few pixels wide and failed the signal on every genuine specimen page.
    photo = passportPortraitBox(page);
  } else if (looksLikeIneFront(lines)) {
    // The same Spanish re-read of the name rows as extraction: without it a misread name gives CURP
    // initials that disagree, and a genuine card fails `curp_consistent`, a tampering signal.
    await rereadIneFrontRows(page);
    const back = input.back ? await readPage(input.back, { checkBlur: false, mrzFirst: true }) : null;
    const r = buildIneResult(lines, back?.lines ?? null, input.today);
    const mv = r.cross.mrzVsFront;
    const cv = r.cross.curpVsData;
    signals.mrz_check_digits = r.validation.mrz === 'not_present' ? null : r.validation.mrz === 'ok';
    signals.mrz_matches_front = r.validation.mrz === 'ok' ? [mv.name, mv.dateOfBirth, mv.sex, mv.section].every((v) => v !== false) : null;
    signals.curp_consistent = r.validation.curp === 'not_present' ? null : r.validation.curp === 'ok' && [cv.initials, cv.dateOfBirth, cv.sex].every((v) => v !== false);
    signals.expected_layout = r.cross.layoutScore >= 0.7;
    photo = inePortraitBox(page);
  } else {
    const td1 = findTd1Lines(lines);
    if (!td1.length) throw new OcrError('wrong_document_type', 'No identity document (voter credential or passport) was recognised in the image.');
    const m = parseMrz(td1, { referenceYear: Number(input.today.slice(0, 4)) });
    signals.mrz_check_digits = m.valid;
    signals.expected_layout = m.ine;
  }

  const doc = uprightCrop(page, page.docBox);
  const whole = { x: 0, y: 0, w: doc.width, h: doc.height };
  const ela = await errorLevelAnalysis(page.intake.image);
  const ghost = await jpegGhost(page.intake.image);
  const spectrum = screenMoire(page.intake.image, imageQuad(page, page.docBox));
  const colour = haslerColourfulness(doc, whole);
  let face: CueMeasurements['face'] = null;
  let skinPassed: boolean | null = null;
  if (photo && photo.w >= 16 && photo.h >= 16) {
    const crop = uprightCrop(page, photo, 480);
    face = await portraitFaceScore(crop);
    if (options.compareScoring100) skinPassed = facePresence(crop, { x: 0, y: 0, w: crop.width, h: crop.height }).passed;
  }
  const scoring100 = options.compareScoring100
    ? { moirePeak: moireScore(doc, whole).peak, saturation: colourfulness(doc, whole).saturation, skinPassed }
    : undefined;
  signals.face_in_photo_area = photo ? (face ? face.score >= CUE_THRESHOLDS.faceScore : false) : null;
  signals.no_local_recompression = ela.passed && ghost.outliers <= CUE_THRESHOLDS.ghostOutliers;
  signals.not_screen_capture = spectrum.peak <= CUE_THRESHOLDS.spectralPeak;
  signals.not_photocopy = colour.spread >= CUE_THRESHOLDS.colourSpread;
  signals.image_quality = page.intake.sharpness >= BLUR_THRESHOLD;
  return {
    signals,
    cues: { ela, ghost, spectrum, colour, face, scoring100 },
    quality: qualityScore(page),
  };
}

/**
 * `ocr.authenticity`: the score of an identity document image (INE front, INE back, or passport page),
 * optionally with the INE back.
 */
export async function authenticity(input: AuthenticityInput): Promise<ValidityCheck> {
  const m = await measureAuthenticity(input);
  return scoreAuthenticity(m.signals, m.quality, PADDLE_ENGINE);
}
