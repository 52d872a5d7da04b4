/**
 * Projection of PaddleOCR's CTC posteriors (6,624 classes of `ppocr_keys_v1.txt` plus blank) onto the
 * MRZ alphabet, for the constrained decoder of `domain/mrz/ctc.ts`.
 *
 * The recogniser was trained on general text, so the probability mass of an MRZ glyph is sometimes
 * spread over look-alikes: lower-case letters (`o` for `O`) and the CJK angle brackets `《`, `〈`
 * and the full-width `＜` for the filler `<`. Each MRZ class takes the mass of its look-alikes; the
 * row is then renormalised over blank + the 37 MRZ characters (the rest of the dictionary is
 * ignored: an MRZ holds nothing else).
 */
import { MRZ_CHARACTERS, MRZ_CLASSES, type MrzPosteriors } from '../../domain/mrz/index.ts';
import type { CtcMatrix } from './ctc-matrix.ts';

/** Dictionary characters whose probability counts for each MRZ character. */
const LOOKALIKES: Readonly<Record<string, readonly string[]>> = { '<': ['《', '〈', '＜'] };

/**
 * Builds the column map once per dictionary: for each MRZ character, the matrix classes (k >= 1,
 * `dictionary[k - 1]`) whose mass it takes.
 */
export function mrzClassMap(dictionary: readonly string[]): number[][] {
  const index = new Map<string, number>();
  dictionary.forEach((ch, i) => {
    if (!index.has(ch)) index.set(ch, i + 1);
  });
  return [...MRZ_CHARACTERS].map((ch) => {
    const sources = [ch, ...(/[A-Z]/.test(ch) ? [ch.toLowerCase()] : []), ...(LOOKALIKES[ch] ?? [])];
    return sources.map((s) => index.get(s)).filter((k): k is number => k !== undefined);
  });
}

/**
 * Projects a recogniser matrix onto the MRZ classes (log-probabilities, floor 1e-12). Column 0 of the matrix
 * is the blank.
 * @param map from {@link mrzClassMap} for the recogniser's dictionary (a matrix of every class), or from
 *   {@link mrzColumnMap} (a matrix of the {@link mrzColumns} only)
 */
export function toMrzPosteriors(m: CtcMatrix, map: number[][]): MrzPosteriors {
  const W = MRZ_CLASSES + 1;
  const logp = new Float64Array(m.steps * W);
  const row = new Float64Array(W);
  for (let t = 0; t < m.steps; t++) {
    const o = t * m.classes;
    row[0] = m.probs[o]!;
    let sum = row[0];
    for (let c = 0; c < MRZ_CLASSES; c++) {
      let v = 0;
      for (const k of map[c]!) v += m.probs[o + k]!;
      row[c + 1] = v;
      sum += v;
    }
    for (let k = 0; k < W; k++) logp[t * W + k] = Math.log(Math.max(row[k]! / (sum || 1), 1e-12));
  }
  return { steps: m.steps, logp };
}

/**
 * The recogniser classes the MRZ projection reads, for a model output that holds only them (`rec-model.ts`
 * `REC_MRZ_OUTPUT`): the blank (0) first, then every class of `map` ({@link mrzClassMap}), ascending, once each.
 */
export function mrzColumns(map: readonly (readonly number[])[]): number[] {
  return [0, ...[...new Set(map.flat())].filter((k) => k !== 0).sort((a, b) => a - b)];
}

/**
 * `map` ({@link mrzClassMap}, classes of the full posteriors) rewritten as positions in `columns` ({@link mrzColumns}),
 * for {@link toMrzPosteriors} on a matrix of those columns only: the same sums in the same order, so the same
 * posteriors as from the full matrix.
 * @throws Error when a class of `map` is not in `columns`
 */
export function mrzColumnMap(map: readonly (readonly number[])[], columns: readonly number[]): number[][] {
  const at = new Map(columns.map((k, j) => [k, j]));
  return map.map((ks) =>
    ks.map((k) => {
      const j = at.get(k);
      if (j === undefined) throw new Error(`MRZ class ${k} is not among the recogniser's MRZ columns`);
      return j;
    }),
  );
}
