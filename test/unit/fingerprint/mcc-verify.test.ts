/**
 * The geometric verification of mcc-verify.ts on synthetic templates: agreement of a rigidly moved copy
 * under its true alignment, of a partial copy (normalised by the overlap, not by the whole print), of an
 * unrelated template, and its effect on matchCylinders' score.
 */
import { describe, expect, it } from 'vitest';
import { buildCylinders, matchCylinders, MATCH_DEFAULTS } from '../../../domain/fingerprint/mcc.ts';
import { alignmentAgreement } from '../../../domain/fingerprint/mcc-verify.ts';
import type { Minutia } from '../../../domain/fingerprint/template.ts';

function synthetic(n: number, seed: number, w = 300): Minutia[] {
  let s = seed >>> 0;
  const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
  return Array.from({ length: n }, () => ({ x: 20 + rnd() * (w - 40), y: 20 + rnd() * (w - 40), angle: rnd() * 2 * Math.PI, type: 'ending' as const, quality: 60 }));
}

/** Rotation by a on screen (y down, angles counter-clockwise on screen) and a shift. */
function rigid(ms: Minutia[], a: number, tx: number, ty: number): Minutia[] {
  const c = Math.cos(a), s = Math.sin(a);
  return ms.map((m) => ({ ...m, x: c * m.x + s * m.y + tx, y: -s * m.x + c * m.y + ty, angle: (m.angle + a) % (2 * Math.PI) }));
}

/** Agreement under the alignment of cylinder i of A with cylinder j of B. */
function agreementAt(A: ReturnType<typeof buildCylinders>, B: ReturnType<typeof buildCylinders>, i: number, j: number): number {
  return alignmentAgreement(A, B, Int32Array.of(i), Int32Array.of(j), Float64Array.of(A.angle[i]!), 1);
}

describe('geometric verification', () => {
  const ms = synthetic(40, 7);
  const A = buildCylinders({ minutiae: ms });

  it('finds every minutia of a rigidly moved copy under the true alignment, few under a wrong one', () => {
    const moved = rigid(ms, 0.6, 30, -20);
    const B = buildCylinders({ minutiae: moved });
    expect(B.n).toBe(A.n);
    expect(agreementAt(A, B, 0, 0)).toBeGreaterThan(0.95);
    expect(agreementAt(A, B, 0, 5)).toBeLessThan(0.3);
  });

  it('judges a partial print on the overlap: half the minutiae of a print agree about fully', () => {
    const half = ms.filter((m) => m.x < 150);
    const H = buildCylinders({ minutiae: half });
    // A minutia with a cylinder in both sets (the sets keep only the minutiae whose cylinders are valid).
    const i = Array.from(A.x).findIndex((x, k) => H.x.some((hx, q) => hx === x && H.y[q] === A.y[k]));
    const j = Array.from(H.x).findIndex((hx, q) => hx === A.x[i] && H.y[q] === A.y[i]);
    expect(i).toBeGreaterThanOrEqual(0);
    const g = agreementAt(A, H, i, j);
    expect(H.n).toBeLessThan(0.7 * A.n);
    expect(g).toBeGreaterThan(0.85);
  });

  it('scores an unrelated template low under its best local pairs, and keeps a moved copy high in matchCylinders', () => {
    const other = buildCylinders({ minutiae: synthetic(40, 8) });
    const moved = buildCylinders({ minutiae: rigid(ms, -0.4, 12, 25) });
    const off = { ...MATCH_DEFAULTS, verify: false };
    expect(matchCylinders(A, moved)).toBeGreaterThan(0.9 * matchCylinders(A, moved, off));
    expect(matchCylinders(A, other)).toBeLessThan(0.6 * matchCylinders(A, other, off));
  });
});
