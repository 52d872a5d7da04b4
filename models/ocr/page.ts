/**
 * What the page reader (`pipeline.ts`) produces and the re-readers (`bill-reread.ts`, `mrz-*.ts`) refine:
 * recognised lines with their quadrilaterals and the image they were read on.
 */
import type { OcrLine } from '../../domain/ocr/text.ts';
import type { IntakeImage } from './intake.ts';
import type { Quad } from './raster.ts';

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
