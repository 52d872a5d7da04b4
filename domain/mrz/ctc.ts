/**
 * Grammar- and length-constrained CTC decoding of one MRZ row.
 *
 * A CTC recogniser (Graves et al., "Connectionist Temporal Classification", ICML 2006) emits, per
 * time step, a distribution over a blank and the characters. Greedy decoding (best class per step,
 * repeats merged, blanks removed) drops characters in the long filler runs of an MRZ (`<<<<` needs
 * a blank between every two fillers) and reads digits where letters must stand. An MRZ row has a
 * known length (ICAO Doc 9303 Part 4: 30 TD1, 36 TD2, 44 TD3) and every column a known character
 * class (Parts 5-6, 4.2), so the row is decoded instead as the best single alignment path (Viterbi)
 * that emits exactly `length` characters, the i-th drawn from column i's allowed set. Each
 * character's alignment span also yields the cost of reading it as another character, which
 * check-digit-guided correction uses (`./ctc-correct.ts`).
 */
import type { FieldKind, LayoutDef } from './formats.ts';

/** The MRZ characters in class order (Doc 9303 Part 3, 4.3): class k >= 1 of a posterior row is `MRZ_CHARACTERS[k - 1]`. */
export const MRZ_CHARACTERS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<';

/** Number of MRZ characters. Class 0 of a posterior row is the CTC blank. */
export const MRZ_CLASSES = MRZ_CHARACTERS.length;

/**
 * CTC log-posteriors of one row restricted to the MRZ alphabet: `logp[t * (MRZ_CLASSES + 1) + k]`,
 * k = 0 the blank, k >= 1 the character `MRZ_CHARACTERS[k - 1]`; each row renormalised over those classes.
 */
export interface MrzPosteriors {
  readonly steps: number;
  readonly logp: Float64Array;
}

/** One decoded row. */
export interface DecodedRow {
  readonly text: string;
  /** Log-probability of the best path (natural log). */
  readonly score: number;
  /** Per character: the time steps `[first, last]` of its alignment. */
  readonly spans: ReadonlyArray<readonly [number, number]>;
}

/** Column priors: `prior[i * MRZ_CLASSES + c]` is added to character c's log-probability in column i (0, or -Infinity to forbid). */
export type ColumnPrior = Float64Array;

const W = MRZ_CLASSES + 1;
const NEG = -Infinity;

/**
 * Best CTC path emitting exactly `length` characters (Viterbi over the states "after i characters,
 * in blank" and "on character i, class c"; a repeated character needs a blank between its copies).
 * Cost O(steps * length * MRZ_CLASSES).
 * @param prior optional per-column prior (see {@link columnPrior}); forbidden classes are never emitted
 * @returns the decoded row, or `null` when no path of that length exists (too few time steps)
 */
export function decodeFixedLength(post: MrzPosteriors, length: number, prior?: ColumnPrior): DecodedRow | null {
  const T = post.steps;
  const N = length;
  const K = MRZ_CLASSES;
  if (N <= 0 || T < N) return null;
  const S = N + 1 + N * K; // blank states 0..N, then character states
  // State index of "on character i, class c" is `N + 1 + (i - 1) * K + c`; the loops below compute it by
  // offsets, and the emission `lp[t * W + c + 1] + prior[(i - 1) * K + c]` inline (same arithmetic, same order).
  const ci = (i: number, c: number) => N + 1 + (i - 1) * K + c;
  let cur = new Float64Array(S).fill(NEG);
  let nxt = new Float64Array(S);
  const back = new Int32Array(T * S).fill(-1);
  const lp = post.logp;
  cur[0] = lp[0]!;
  for (let c = 0; c < K; c++) cur[ci(1, c)] = lp[c + 1]! + (prior ? prior[c]! : 0);
  const best1 = new Float64Array(N + 1);
  const arg1 = new Int32Array(N + 1);
  const best2 = new Float64Array(N + 1);
  const arg2 = new Int32Array(N + 1);
  for (let t = 1; t < T; t++) {
    nxt.fill(NEG);
    best1.fill(NEG);
    best2.fill(NEG);
    for (let i = 1; i <= N; i++) {
      const off = N + 1 + (i - 1) * K;
      let b1 = best1[i]!;
      let a1 = arg1[i]!;
      let b2 = best2[i]!;
      let a2 = arg2[i]!;
      for (let c = 0; c < K; c++) {
        const v = cur[off + c]!;
        if (v > b1) {
          b2 = b1;
          a2 = a1;
          b1 = v;
          a1 = c;
        } else if (v > b2) {
          b2 = v;
          a2 = c;
        }
      }
      best1[i] = b1;
      arg1[i] = a1;
      best2[i] = b2;
      arg2[i] = a2;
    }
    const row = t * W + 1;
    const bt = t * S;
    const blank = lp[t * W]!;
    for (let i = 0; i <= N; i++) {
      // Blank after i characters: stay, or leave character i.
      let v = cur[i]!;
      let from = i;
      if (i >= 1 && best1[i]! > v) {
        v = best1[i]!;
        from = ci(i, arg1[i]!);
      }
      if (v > NEG) {
        nxt[i] = v + blank;
        back[bt + i] = from;
      }
      if (i === 0) continue;
      const off = N + 1 + (i - 1) * K;
      const prevOff = off - K;
      const pOff = (i - 1) * K;
      const prevBlank = cur[i - 1]!;
      const pb1 = best1[i - 1]!;
      const pa1 = arg1[i - 1]!;
      const pb2 = best2[i - 1]!;
      const pa2 = arg2[i - 1]!;
      for (let c = 0; c < K; c++) {
        const s = off + c;
        let bv = cur[s]!;
        let bf = s;
        if (prevBlank > bv) {
          bv = prevBlank;
          bf = i - 1;
        }
        if (i >= 2) {
          // Straight from a different character i-1 (no blank needed between different characters).
          const same = pa1 === c;
          const ov = same ? pb2 : pb1;
          if (ov > bv) {
            bv = ov;
            bf = prevOff + (same ? pa2 : pa1);
          }
        }
        if (bv > NEG) {
          nxt[s] = bv + (lp[row + c]! + (prior ? prior[pOff + c]! : 0));
          back[bt + s] = bf;
        }
      }
    }
    [cur, nxt] = [nxt, cur];
  }
  let end = N;
  let score = cur[N]!;
  for (let c = 0; c < K; c++) {
    if (cur[ci(N, c)]! > score) {
      score = cur[ci(N, c)]!;
      end = ci(N, c);
    }
  }
  if (score === NEG) return null;
  const chars: string[] = new Array(N);
  const spans: Array<[number, number]> = Array.from({ length: N }, () => [Infinity, -Infinity]);
  let s = end;
  for (let t = T - 1; t >= 0; t--) {
    if (s > N) {
      const i = Math.floor((s - N - 1) / K);
      chars[i] = MRZ_CHARACTERS[(s - N - 1) % K]!;
      const span = spans[i]!;
      span[0] = Math.min(span[0], t);
      span[1] = Math.max(span[1], t);
    }
    if (t > 0) s = back[t * S + s]!;
  }
  return { text: chars.join(''), score, spans };
}

/**
 * Greedy CTC decoding over the MRZ classes, with the time step of each emitted character.
 * @returns text and, per character, the first step it was emitted at
 */
export function decodeGreedy(post: MrzPosteriors): { text: string; steps: number[] } {
  let text = '';
  const steps: number[] = [];
  let prev = -1;
  for (let t = 0; t < post.steps; t++) {
    let best = 0;
    for (let k = 1; k < W; k++) if (post.logp[t * W + k]! > post.logp[t * W + best]!) best = k;
    if (best !== 0 && best !== prev) {
      text += MRZ_CHARACTERS[best - 1];
      steps.push(t);
    }
    prev = best;
  }
  return { text, steps };
}

/**
 * Estimates how many characters a row holds from the greedy reading's character positions: MRZ
 * characters are monospaced (OCR-B at a fixed pitch, Doc 9303 Part 3, 4.2.1), so the gaps between
 * consecutive emitted characters are integer multiples of the pitch, a multiple above 1 marking
 * dropped characters. The pitch starts at the median gap and is refined by least squares over those
 * multiples; a trailing run (emitted once) counts by its extent in pitches.
 * @param greedy the row's {@link decodeGreedy} reading, when the caller already has it
 * @returns the estimated number of characters (the greedy length when fewer than 3 were read)
 */
export function estimateRowLength(post: MrzPosteriors, greedy: { text: string; steps: number[] } = decodeGreedy(post)): number {
  const { text, steps } = greedy;
  if (steps.length < 3) return text.length;
  const gaps = steps.slice(1).map((s, i) => s - steps[i]!);
  let pitch = [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)]!;
  for (let k = 0; k < 3 && pitch > 0; k++) {
    let num = 0;
    let den = 0;
    for (const g of gaps) {
      const m = Math.max(1, Math.round(g / pitch));
      num += g * m;
      den += m * m;
    }
    pitch = num / den;
  }
  if (!(pitch > 0)) return text.length;
  // A trailing run of one repeated character (the fillers that end most rows) is emitted once:
  // its extent, up to the last non-blank step, counts in pitches too.
  let lastInk = steps[steps.length - 1]!;
  for (let t = post.steps - 1; t > lastInk; t--) {
    let best = 0;
    for (let k = 1; k < W; k++) if (post.logp[t * W + k]! > post.logp[t * W + best]!) best = k;
    if (best !== 0) {
      lastInk = t;
      break;
    }
  }
  const trailing = Math.round((lastInk - steps[steps.length - 1]!) / pitch);
  return 1 + trailing + gaps.reduce((n, g) => n + Math.max(1, Math.round(g / pitch)), 0);
}

/** The MRZ row lengths of Doc 9303 (TD1, TD2, TD3). */
export const MRZ_ROW_LENGTHS = [30, 36, 44] as const;

/**
 * The row length to decode: the greedy length when it is an MRZ length the pitch estimate agrees
 * with (within 2), else the pitch estimate, snapped to an MRZ length within 2 characters.
 */
export function chooseRowLength(post: MrzPosteriors): number {
  const read = decodeGreedy(post);
  const greedy = read.text.length;
  const est = estimateRowLength(post, read);
  if ((MRZ_ROW_LENGTHS as readonly number[]).includes(greedy) && Math.abs(est - greedy) <= 2) return greedy;
  const snap = MRZ_ROW_LENGTHS.find((n) => Math.abs(n - est) <= 2);
  return snap ?? est;
}

const DIGITS = '0123456789';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Characters a field kind admits (filler `<` everywhere but in dates: Doc 9303 Part 3, 4.2.2). */
export function allowedCharacters(kind: FieldKind, ine: boolean): string {
  switch (kind) {
    case 'alpha':
    case 'name':
      return `${LETTERS}<`;
    case 'numeric':
    case 'digit':
      return `${DIGITS}<`;
    case 'date':
      return `${DIGITS}<`;
    case 'sex':
      return ine ? 'FHMX<' : 'FMX<'; // INE: ICAO M/F, with the front's H tolerated
    case 'alnum':
      return MRZ_CHARACTERS;
  }
}

/**
 * Column prior of row `row` of `layout`: 0 for the characters the column's field admits, `penalty`
 * (a log-probability, e.g. -Infinity to forbid) for the others. Columns no field covers admit all.
 */
export function columnPrior(layout: LayoutDef, row: number, penalty = NEG): ColumnPrior {
  const n = layout.lineLengths[row]!;
  const prior = new Float64Array(n * MRZ_CLASSES);
  for (const f of layout.fields) {
    if (f.line !== row) continue;
    const ok = allowedCharacters(f.kind, layout.ine);
    for (let col = f.start; col < f.end && col < n; col++) {
      for (let c = 0; c < MRZ_CLASSES; c++) if (!ok.includes(MRZ_CHARACTERS[c]!)) prior[col * MRZ_CLASSES + c] = penalty;
    }
  }
  return prior;
}

/**
 * Per character of a decoded row, the cost (in nats, >= 0) of reading it as each other MRZ
 * character: the best log-probability of the decoded character over its alignment span minus that
 * of the other. Forbidden characters (prior -Infinity) cost Infinity.
 * @returns `cost[i * MRZ_CLASSES + c]`
 */
export function substitutionCosts(post: MrzPosteriors, row: DecodedRow, prior?: ColumnPrior): Float64Array {
  const n = row.text.length;
  const out = new Float64Array(n * MRZ_CLASSES);
  for (let i = 0; i < n; i++) {
    const [a, b] = row.spans[i]!;
    const best = new Float64Array(MRZ_CLASSES).fill(NEG);
    for (let t = a; t <= b; t++) {
      for (let c = 0; c < MRZ_CLASSES; c++) best[c] = Math.max(best[c]!, post.logp[t * W + c + 1]!);
    }
    const own = best[MRZ_CHARACTERS.indexOf(row.text[i]!)]!;
    for (let c = 0; c < MRZ_CLASSES; c++) {
      const p = prior ? prior[i * MRZ_CLASSES + c]! : 0;
      out[i * MRZ_CLASSES + c] = p === NEG ? Infinity : Math.max(0, own - best[c]! - p);
    }
  }
  return out;
}
