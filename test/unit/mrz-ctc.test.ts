import { describe, expect, it } from 'vitest';
import {
  buildTd3, chooseRowLength, columnPrior, correctWithCosts, decodeFixedLength, decodeGreedy, decodeMrzRow, decodeMrzRows,
  estimateRowLength, LAYOUTS, MRZ_CHARACTERS, MRZ_CLASSES, parseMrz, substitutionCosts, type MrzPosteriors,
} from '../../domain/mrz/index.ts';

const W = MRZ_CLASSES + 1;

interface Frame {
  /** Character (or `-` for blank) and its probability; the rest is spread evenly. */
  top: string;
  p?: number;
  /** A runner-up and its probability. */
  second?: string;
  q?: number;
}

function posteriors(frames: Frame[]): MrzPosteriors {
  const logp = new Float64Array(frames.length * W);
  frames.forEach((f, t) => {
    const p = f.p ?? 0.9;
    const q = f.second ? (f.q ?? 0.05) : 0;
    const rest = (1 - p - q) / (W - 1 - (f.second ? 1 : 0));
    for (let k = 0; k < W; k++) logp[t * W + k] = Math.log(rest);
    const idx = (ch: string) => (ch === '-' ? 0 : MRZ_CHARACTERS.indexOf(ch) + 1);
    logp[t * W + idx(f.top)] = Math.log(p);
    if (f.second) logp[t * W + idx(f.second)] = Math.log(q);
  });
  return { steps: frames.length, logp };
}

/**
 * Frames of a rendered row as a CTC recogniser tends to emit them: each character for `perChar`
 * steps, a blank between characters, except that inside filler runs the step between two fillers is
 * more `<` than blank (which greedy decoding collapses into one `<`). `confuse` maps a column to [read as, probability of the truth].
 */
function rowFrames(text: string, options: { perChar?: number; dropFillerBlanks?: boolean; confuse?: Record<number, [string, number]> } = {}): Frame[] {
  const per = options.perChar ?? 2;
  const frames: Frame[] = [];
  [...text].forEach((ch, i) => {
    const fillerRun = ch === '<' && text[i - 1] === '<';
    // Inside a filler run the step between two fillers leans to `<` (0.6) over the blank (0.35).
    if (i > 0) frames.push(options.dropFillerBlanks && fillerRun ? { top: '<', p: 0.6, second: '-', q: 0.35 } : { top: '-' });
    const c = options.confuse?.[i];
    for (let k = 0; k < per; k++) frames.push(c ? { top: c[0], p: 0.9 - c[1], second: ch, q: c[1] } : { top: ch });
  });
  return frames;
}

describe('constrained CTC decoding of MRZ rows', () => {
  it('recovers the fillers greedy decoding collapses when the row length is known', () => {
    const post = posteriors(rowFrames('AB<<<<C12', { dropFillerBlanks: true }));
    expect(decodeGreedy(post).text).toBe('AB<C12');
    expect(decodeFixedLength(post, 9)?.text).toBe('AB<<<<C12');
  });

  it('gives no path when there are fewer time steps than characters', () => {
    expect(decodeFixedLength(posteriors(rowFrames('ABC', { perChar: 1 })), 9)).toBeNull();
  });

  it('estimates the row length from the character pitch when characters were dropped', () => {
    const text = 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<';
    const post = posteriors(rowFrames(text, { dropFillerBlanks: true }));
    expect(decodeGreedy(post).text.length).toBeLessThan(44);
    expect(estimateRowLength(post)).toBe(44);
    expect(chooseRowLength(post)).toBe(44);
  });

  it('column classes turn a letter the recogniser prefers into the digit a date column requires', () => {
    // TD3 line 2, column 13 (first digit of the date of birth) read as `O` (0.6) over `0` (0.3).
    const [, line2] = buildTd3({ documentCode: 'P', issuingState: 'UTO', primaryIdentifier: 'ERIKSSON', secondaryIdentifier: 'ANNA', documentNumber: 'L898902C3', nationality: 'UTO', dateOfBirth: '040812', sex: 'F', dateOfExpiry: '120415' });
    const post = posteriors(rowFrames(line2, { confuse: { 13: ['O', 0.3] } }));
    expect(decodeFixedLength(post, 44)?.text.charAt(13)).toBe('O');
    expect(decodeFixedLength(post, 44, columnPrior(LAYOUTS.TD3, 1))?.text).toBe(line2);
  });

  it('a single row is decoded with the most probable line kind of its length', () => {
    const [, line2] = buildTd3({ documentCode: 'P', issuingState: 'UTO', primaryIdentifier: 'ERIKSSON', secondaryIdentifier: 'ANNA', documentNumber: 'L898902C3', nationality: 'UTO', dateOfBirth: '740812', sex: 'F', dateOfExpiry: '120415' });
    const r = decodeMrzRow(posteriors(rowFrames(line2, { dropFillerBlanks: true, confuse: { 10: ['0', 0.3] } })));
    expect(r?.kind).toBe('TD3_2');
    expect(r?.text).toBe(line2); // nationality column is alphabetic: `0` cannot stand there
  });
});

describe('check-digit correction from substitution costs', () => {
  const [line1, line2] = buildTd3({ documentCode: 'P', issuingState: 'MEX', primaryIdentifier: 'PEREZ', secondaryIdentifier: 'JUAN', documentNumber: 'G12345678', nationality: 'MEX', dateOfBirth: '900517', sex: 'M', dateOfExpiry: '300101', emptyPersonalNumberCheck: '0' });

  function misread(col: number, as: string, truthProb: number) {
    const post = posteriors(rowFrames(line2, { confuse: { [col]: [as, truthProb] } }));
    const prior = columnPrior(LAYOUTS.TD3, 1);
    const row = decodeFixedLength(post, 44, prior)!;
    return { row, costs: substitutionCosts(post, row, prior) };
  }

  it('fixes a digit the recogniser nearly read right, and the MRZ then parses valid', () => {
    const { row, costs } = misread(3, '8', 0.35); // document number 4th digit: `3` read as `8`
    expect(row.text).not.toBe(line2);
    const fixed = correctWithCosts([line1, row.text], LAYOUTS.TD3, [undefined, costs]);
    expect(fixed.lines[1]).toBe(line2);
    expect(fixed.corrections).toEqual([expect.objectContaining({ line: 1, column: 3, from: '8', to: '3', reason: 'check-digit' })]);
    expect(parseMrz(fixed.lines, { correct: false }).valid).toBe(true);
  });

  it('leaves the row alone when no cheap change makes the check pass', () => {
    const { row, costs } = misread(3, '8', 0.0001);
    const fixed = correctWithCosts([line1, row.text], LAYOUTS.TD3, [undefined, costs], { maxCost: 3 });
    expect(fixed.lines[1]).toBe(row.text);
    expect(fixed.corrections).toEqual([]);
  });

  it('decodes a whole TD3 from two rows with collapsed fillers and one confused digit', () => {
    const post1 = posteriors(rowFrames(line1, { dropFillerBlanks: true }));
    const post2 = posteriors(rowFrames(line2, { dropFillerBlanks: true, confuse: { 14: ['6', 0.3] } }));
    const d = decodeMrzRows([post1, post2]);
    expect(d?.layout.format).toBe('TD3');
    expect(d?.lines).toEqual([line1, line2]);
    expect(decodeMrzRows([post1])).toBeNull();
  });
});
