/**
 * The MCC matcher on synthetic templates: rotation/translation invariance, reversed bifurcation
 * directions (the turned cylinders of mcc.ts), scratch-buffer reuse across template sizes, empty sets.
 */
import { describe, expect, it } from 'vitest';
import { buildCylinders, matchCylinders, MATCH_DEFAULTS, type MatchOptions } from '../../../domain/fingerprint/mcc.ts';
import type { Minutia } from '../../../domain/fingerprint/template.ts';

/** Deterministic minutiae spread over a w × w print, every other one a bifurcation. */
function synthetic(n: number, seed: number, w = 300): Minutia[] {
  let s = seed >>> 0;
  const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
  return Array.from({ length: n }, (_, i) => ({
    x: 20 + rnd() * (w - 40),
    y: 20 + rnd() * (w - 40),
    angle: rnd() * 2 * Math.PI,
    type: i % 2 ? 'bifurcation' : 'ending',
    quality: 60,
  }));
}

function rigid(ms: Minutia[], a: number, tx: number, ty: number): Minutia[] {
  // y grows downwards and angles are counter-clockwise on screen: rotating by a on screen is
  // (x, −y) rotated by a in the y-up frame.
  const c = Math.cos(a), s = Math.sin(a);
  return ms.map((m) => ({ ...m, x: c * m.x + s * m.y + tx, y: -s * m.x + c * m.y + ty, angle: (m.angle + a) % (2 * Math.PI) }));
}

const paper: Readonly<MatchOptions> = { selection: 'lss', reversible: false, deltaTheta: Math.PI / 2 };

describe('MCC matcher', () => {
  const A = synthetic(40, 1);
  const B = synthetic(40, 2);

  it('scores a rotated, shifted copy like the template itself and far above another template', () => {
    const self = matchCylinders(buildCylinders({ minutiae: A }), buildCylinders({ minutiae: A }));
    const moved = matchCylinders(buildCylinders({ minutiae: A }), buildCylinders({ minutiae: rigid(A, 0.5, 40, -25) }));
    const other = matchCylinders(buildCylinders({ minutiae: A }), buildCylinders({ minutiae: B }));
    expect(self).toBeGreaterThan(0.2);
    expect(moved).toBeGreaterThan(0.85 * self);
    expect(other).toBeLessThan(0.25 * self);
  });

  it('with `reversible`, keeps matching when bifurcation directions are reversed (turned cylinders), unlike the paper\'s settings', () => {
    const reversed = A.map((m) => (m.type === 'bifurcation' ? { ...m, angle: (m.angle + Math.PI) % (2 * Math.PI) } : m));
    const rev = { ...MATCH_DEFAULTS, reversible: true }, half = { reversedNeighbourWeight: 0.5 };
    const ours = matchCylinders(buildCylinders({ minutiae: A }, half), buildCylinders({ minutiae: reversed }, half), rev);
    const self = matchCylinders(buildCylinders({ minutiae: A }, half), buildCylinders({ minutiae: A }, half), rev);
    const plain = { reversedNeighbourWeight: 0 };
    const paperScore = matchCylinders(buildCylinders({ minutiae: A }, plain), buildCylinders({ minutiae: reversed }, plain), paper);
    const paperSelf = matchCylinders(buildCylinders({ minutiae: A }, plain), buildCylinders({ minutiae: A }, plain), paper);
    expect(ours).toBeGreaterThan(0.5 * self);
    expect(paperScore).toBeLessThan(0.5 * paperSelf);
    expect(ours / self).toBeGreaterThan(paperScore / paperSelf + 0.2);
  });

  it('gives the same score before and after comparing much larger templates (scratch buffers)', () => {
    const a = buildCylinders({ minutiae: A }), b = buildCylinders({ minutiae: rigid(A, -0.3, 10, 10) });
    for (const opts of [MATCH_DEFAULTS, paper, { ...MATCH_DEFAULTS, reversible: true }]) {
      const before = matchCylinders(a, b, opts);
      const big1 = buildCylinders({ minutiae: synthetic(180, 3, 700) }), big2 = buildCylinders({ minutiae: synthetic(180, 4, 700) });
      expect(matchCylinders(big1, big2, opts)).toBeGreaterThanOrEqual(0);
      expect(matchCylinders(a, b, opts)).toBe(before);
    }
  });

  it('scores 0 when a template has no valid cylinder', () => {
    const none = buildCylinders({ minutiae: synthetic(1, 5) });
    expect(none.n).toBe(0);
    expect(matchCylinders(none, buildCylinders({ minutiae: A }))).toBe(0);
  });
});
