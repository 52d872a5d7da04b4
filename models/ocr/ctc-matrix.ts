/**
 * The recogniser output shared by the PaddleOCR wrapper (`paddle.ts`, which produces it) and the MRZ
 * projection (`mrz-posteriors.ts`, which consumes it), kept apart so neither imports the other.
 */

/** A recogniser's CTC posterior matrix for one crop: `steps` x `classes`, row-major, class 0 = blank. */
export interface CtcMatrix {
  steps: number;
  classes: number;
  probs: Float32Array;
}
