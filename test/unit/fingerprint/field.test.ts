/**
 * The orientation field of field.ts: encoding round trip, the similarity of a rigidly moved field under its
 * true alignment against an unrelated field, neutrality when a field is absent, and on FVC2002 DB1_B the
 * fused score of a genuine pair against an impostor pair (skips with a printed reason when ../shared/data
 * is absent).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeField, encodeFieldFromBlocks, fieldSimilarity, fuseOrientation, matchTemplates, FIELD } from '../../../domain/fingerprint/field.ts';
import type { Alignment } from '../../../domain/fingerprint/mcc-verify.ts';
import { buildCylinders, matchCylinders } from '../../../domain/fingerprint/mcc.ts';
import { extractMinutiae, type ExtractionDebug } from '../../../domain/fingerprint/extract.ts';
import { decodeFingerprint } from '../../../models/fingerprint/image.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const fvc = path.resolve(repoRoot, '../shared/data/fingerprint/fvc2002/DB1_B');
const haveData = existsSync(fvc);
if (!haveData) console.warn(`orientation-field FVC test skipped: ${fvc} is absent`);

/**
 * An 8 px block grid of `bw8` × `bh8` with ridge orientation θ(x, y) (image coordinates, y down) at each
 * block centre, foreground inside a disc, coherence 0.8.
 */
function grid(bw8: number, bh8: number, theta: (x: number, y: number) => number): string {
  const n = bw8 * bh8;
  const mask = new Uint8Array(n), coh = new Float32Array(n), c = new Float32Array(n), s = new Float32Array(n);
  for (let by = 0; by < bh8; by++) for (let bx = 0; bx < bw8; bx++) {
    const b = by * bw8 + bx, x = bx * 8 + 4, y = by * 8 + 4;
    mask[b] = Math.hypot(x - bw8 * 4, y - bh8 * 4) < 0.45 * Math.min(bw8, bh8) * 8 ? 1 : 0;
    coh[b] = 0.8;
    const t = theta(x, y);
    c[b] = Math.cos(2 * t); s[b] = Math.sin(2 * t);
  }
  return encodeFieldFromBlocks(bw8, bh8, mask, coh, c, s);
}

/** A loop-like pattern: ridges circle a core at (150, 140) and bend with y. */
const loop = (x: number, y: number) => Math.atan2(y - 140, x - 150) + Math.PI / 2 + 0.002 * y;

describe('orientation field', () => {
  const A = decodeField(grid(38, 38, loop));

  it('decodes what it encodes and refuses a truncated field', () => {
    const b64 = grid(38, 38, loop);
    const raw = Buffer.from(b64, 'base64');
    expect(raw[0]).toBe(19);
    expect(raw[1]).toBe(19);
    expect(raw.length).toBe(2 + 2 * 19 * 19);
    expect(A.w.filter((w) => w > 0).length).toBeGreaterThan(150);
    expect(() => decodeField(raw.subarray(0, raw.length - 2).toString('base64'))).toThrow(/bytes/);
  });

  it('finds a rigidly moved field alike under its true alignment, an unrelated one not', () => {
    // B = A turned by φ (y-up frame) and shifted: B's block at image (X, Y) shows A's ridge at the
    // inverse-mapped point, turned by −φ in image coordinates.
    const phi = 0.5, co = Math.cos(phi), si = Math.sin(phi), tx = 60, ty = -90;
    const al: Alignment = { cos: co, sin: si, tx, ty, paired: 10 };
    const moved = decodeField(grid(40, 40, (X, Y) => {
      const u = X - tx, v = -Y - ty;
      const x = co * u + si * v, y = -si * u + co * v; // y-up
      return loop(x, -y) - phi;
    }));
    const other = decodeField(grid(40, 40, (x, y) => 0.3 + 0.004 * x - 0.003 * y));
    const same = fieldSimilarity(A, moved, al)!;
    expect(same).toBeGreaterThan(0.95);
    expect(fieldSimilarity(A, moved, { ...al, cos: 1, sin: 0 }) ?? 0).toBeLessThan(0.8);
    expect(fieldSimilarity(A, other, al)!).toBeLessThan(0.5);
    expect(fuseOrientation(0.1, A, moved, al)).toBeGreaterThan(0.095);
    expect(fuseOrientation(0.1, A, other, al)).toBeLessThan(0.1 * ((1 + 0.5) / 2) ** FIELD.power);
  });

  it('is neutral when a field is absent, nothing was paired, or the overlap is too small', () => {
    const al: Alignment = { cos: 1, sin: 0, tx: 0, ty: 0, paired: 5 };
    const other = decodeField(grid(38, 38, () => 0));
    expect(fuseOrientation(0.07, A, undefined, al)).toBe(0.07);
    expect(fuseOrientation(0.07, undefined, other, al)).toBe(0.07);
    expect(fuseOrientation(0.07, A, other, { ...al, paired: 0 })).toBe(0.07);
    expect(fuseOrientation(0.07, A, other, { ...al, tx: 5000 })).toBe(0.07);
    expect(fuseOrientation(0.07, A, other, al)).toBeLessThan(0.07);
  });

  it.skipIf(!haveData)('lowers an FVC2002 impostor pair\'s score more than a genuine pair\'s, and equals matchCylinders without fields', async () => {
    const load = async (name: string) => {
      const img = await decodeFingerprint(new Uint8Array(readFileSync(path.join(fvc, name))), 500);
      const d: ExtractionDebug = {};
      const { template } = extractMinutiae(img, d);
      return { c: buildCylinders(template), f: decodeField(encodeFieldFromBlocks(d.bw!, Math.ceil(img.height / 8), d.mask!, d.coh!, d.vcos!, d.vsin!)) };
    };
    const [a, b, x] = await Promise.all(['101_1.tif', '101_2.tif', '102_1.tif'].map(load));
    const genuine = matchCylinders(a!.c, b!.c), impostor = matchCylinders(a!.c, x!.c);
    expect(matchTemplates(a!.c, b!.c)).toBe(genuine);
    expect(matchTemplates(a!.c, x!.c)).toBe(impostor);
    const g = matchTemplates(a!.c, b!.c, a!.f, b!.f) / genuine;
    const i = matchTemplates(a!.c, x!.c, a!.f, x!.f) / impostor;
    expect(g).toBeGreaterThan(0.85);
    expect(i).toBeLessThan(g);
  });
});
