/**
 * Check-digit-guided correction with the recogniser's own evidence.
 *
 * `correct.ts` swaps a fixed list of confusable glyph pairs; here every character of a failing
 * check's data may take any character its column admits, at the cost the recogniser gives that
 * reading (`substitutionCosts` of `./ctc.ts`: how much less likely the other character was over the
 * span the decoded one was aligned to). The cheapest set of at most `maxChanges` substitutions that
 * makes the check pass, without failing another check that passed, is applied when its total cost
 * is within `maxCost` and clearly cheaper (by `margin`) than the next such set; otherwise the row
 * is left as read and the check reported as failed. Check digits (ICAO Doc 9303 Part 3, 4.9) are
 * modulo 10, so one in ten random edits passes by chance: the cost bound and the margin, not the
 * check alone, keep wrong fixes out.
 */
import { passes, type MrzCorrection } from './correct.ts';
import { MRZ_CHARACTERS, MRZ_CLASSES } from './ctc.ts';
import type { LayoutDef } from './formats.ts';

/** Options of {@link correctWithCosts}. */
export interface CostCorrectionOptions {
  /** Largest total cost (nats) of an accepted fix. Default 8. */
  maxCost?: number;
  /** Smallest gap (nats) between the best and the second-best fix. Default 1.5. */
  margin?: number;
  /** Most characters changed per check. Default 2. */
  maxChanges?: number;
  /** Alternatives tried per character (cheapest first). Default 4. */
  perPosition?: number;
}

interface Alt {
  line: number;
  col: number;
  ch: string;
  cost: number;
}

/**
 * Corrects `lines` (already of the layout's lengths) check by check.
 * @param costs per line, `cost[col * MRZ_CLASSES + c]` of reading column `col` as `MRZ_CHARACTERS[c]`
 *   (Infinity when the column forbids it); a missing entry means the line cannot be corrected
 * @returns corrected lines and the changes made (reason `check-digit`)
 */
export function correctWithCosts(lines: readonly string[], layout: LayoutDef, costs: ReadonlyArray<Float64Array | undefined>, options: CostCorrectionOptions = {}): { lines: string[]; corrections: MrzCorrection[] } {
  const maxCost = options.maxCost ?? 8;
  const margin = options.margin ?? 1.5;
  const maxChanges = options.maxChanges ?? 2;
  const perPosition = options.perPosition ?? 4;
  const out = [...lines];
  const corrections: MrzCorrection[] = [];
  const fieldName = (line: number, col: number) => layout.fields.find((f) => f.line === line && col >= f.start && col < f.end)?.name ?? 'unknown';
  for (const check of layout.checks) {
    const loc = check.locate(out);
    if (passes(out, loc)) continue;
    const passedBefore = layout.checks.filter((c) => c !== check && passes(out, c.locate(out)));
    const positions: Array<[number, number]> = [];
    for (const [line, s, e] of loc.ranges) for (let col = s; col < e; col++) positions.push([line, col]);
    positions.push([loc.digitAt[0], loc.digitAt[1]]);
    const alts: Alt[][] = positions.map(([line, col]) => {
      const cost = costs[line];
      if (!cost) return [];
      const own = out[line]!.charAt(col);
      const list: Alt[] = [];
      for (let c = 0; c < MRZ_CLASSES; c++) {
        const ch = MRZ_CHARACTERS[c]!;
        const v = cost[col * MRZ_CLASSES + c]!;
        if (ch !== own && Number.isFinite(v) && v <= maxCost) list.push({ line, col, ch, cost: v });
      }
      return list.sort((a, b) => a.cost - b.cost).slice(0, perPosition);
    });
    const flat = alts.flat().sort((a, b) => a.cost - b.cost);
    const found: Array<{ set: Alt[]; cost: number }> = [];
    const tryFix = (set: Alt[]) => {
      const trial = [...out];
      for (const a of set) trial[a.line] = trial[a.line]!.slice(0, a.col) + a.ch + trial[a.line]!.slice(a.col + 1);
      if (!passes(trial, check.locate(trial))) return;
      if (passedBefore.some((c) => !passes(trial, c.locate(trial)))) return;
      found.push({ set, cost: set.reduce((s, a) => s + a.cost, 0) });
    };
    for (const a of flat) tryFix([a]);
    if (maxChanges >= 2) {
      for (let i = 0; i < flat.length; i++) {
        for (let j = i + 1; j < flat.length; j++) {
          const a = flat[i]!;
          const b = flat[j]!;
          if (a.cost + b.cost > maxCost) break;
          if (a.line === b.line && a.col === b.col) continue;
          tryFix([a, b]);
        }
      }
    }
    found.sort((a, b) => a.cost - b.cost);
    const best = found[0];
    if (!best || best.cost > maxCost) continue;
    if (found[1] && found[1].cost - best.cost < margin) continue;
    for (const a of best.set) {
      const from = out[a.line]!.charAt(a.col);
      out[a.line] = out[a.line]!.slice(0, a.col) + a.ch + out[a.line]!.slice(a.col + 1);
      corrections.push({ line: a.line, column: a.col, from, to: a.ch, field: fieldName(a.line, a.col), reason: 'check-digit' });
    }
  }
  return { lines: out, corrections };
}
