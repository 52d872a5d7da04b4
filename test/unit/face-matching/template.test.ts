import { describe, expect, it } from 'vitest';
import {
  BALANCED_THRESHOLD,
  CALIBRATION,
  InvalidDescriptorError,
  TEMPLATE_DIMENSION,
  buildTemplate,
  cosine,
  cosineForThreshold,
  projectionMatrix,
  similarityFromCosine,
} from '../../../domain/face-matching/template.ts';
import { randomUnit, rng } from '../../contract/vector-index.contract.ts';

function descriptors(rand: () => number) {
  // face-api descriptors are not unit length; scale to check the fusion normalises them.
  return { descriptor128: Array.from(randomUnit(128, rand), (x) => x * 0.9), descriptor1024: Array.from(randomUnit(1024, rand)) };
}

describe('fuse-v1 template', () => {
  it('is a 512-d unit vector, identical for identical descriptors', () => {
    const d = descriptors(rng(1));
    const t = buildTemplate(d);
    expect(t).toHaveLength(TEMPLATE_DIMENSION);
    expect(Math.hypot(...t)).toBeCloseTo(1, 5);
    expect(cosine(t, buildTemplate(d))).toBeCloseTo(1, 6);
  });

  it('has orthonormal projection rows', () => {
    const p = projectionMatrix();
    const row = (r: number) => p.subarray(r * 1024, (r + 1) * 1024);
    for (const [a, b] of [[0, 1], [5, 383], [100, 200], [382, 383]] as const) expect(cosine(row(a), row(b))).toBeCloseTo(0, 8);
    for (const r of [0, 191, 383]) expect(Math.hypot(...row(r))).toBeCloseTo(1, 8);
  });

  it("scores the weighted sum of the two descriptors' cosines", () => {
    const rand = rng(2);
    const a = descriptors(rand);
    const b = descriptors(rand);
    for (const w of [0, 0.3, 0.5, 1]) {
      const ta = buildTemplate(a, w);
      const tb = buildTemplate(b, w);
      const c128 = cosine(a.descriptor128, b.descriptor128);
      const c1024p = cosine(ta.subarray(128), tb.subarray(128));
      expect(cosine(ta, tb)).toBeCloseTo(w * c128 + (1 - w) * (w === 1 ? 0 : c1024p), 5);
    }
    // The 384-d random subspace keeps the 1024-d cosine within JL noise (~3/sqrt(384)).
    const near = { descriptor128: a.descriptor128, descriptor1024: a.descriptor1024.map((x, i) => x + 0.6 * (b.descriptor1024[i] as number)) };
    const full = cosine(a.descriptor1024, near.descriptor1024);
    const projected = cosine(buildTemplate(a, 0), buildTemplate(near, 0));
    expect(Math.abs(full - projected)).toBeLessThan(0.15);
  });

  it('rejects wrong lengths, non-finite and zero descriptors', () => {
    const d = descriptors(rng(3));
    expect(() => buildTemplate({ ...d, descriptor128: d.descriptor128.slice(1) })).toThrow(InvalidDescriptorError);
    expect(() => buildTemplate({ ...d, descriptor1024: [...d.descriptor1024.slice(1), Number.NaN] })).toThrow(InvalidDescriptorError);
    expect(() => buildTemplate({ ...d, descriptor128: new Array(128).fill(0) })).toThrow(InvalidDescriptorError);
    expect(() => buildTemplate(d, 1.5)).toThrow(InvalidDescriptorError);
  });
});

describe('similarity calibration', () => {
  it('puts the equal-error cosine at 0.6 and is increasing in 0-1', () => {
    expect(similarityFromCosine(CALIBRATION.C_EER)).toBeCloseTo(BALANCED_THRESHOLD, 4);
    let prev = -1;
    for (let c = -1; c <= 1.0001; c += 0.05) {
      const s = similarityFromCosine(c);
      expect(s).toBeGreaterThanOrEqual(prev);
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
      prev = s;
    }
    expect(similarityFromCosine(1)).toBeGreaterThan(similarityFromCosine(0));
  });

  it('inverts: the cosine for a threshold maps back to that threshold', () => {
    for (const t of [0.4, 0.5, 0.6, 0.7, 0.8]) expect(similarityFromCosine(cosineForThreshold(t))).toBeCloseTo(t, 3);
    expect(cosineForThreshold(0)).toBe(-Infinity);
    expect(cosineForThreshold(1)).toBe(Infinity);
    expect(cosineForThreshold(0.7)).toBeGreaterThan(cosineForThreshold(0.5));
  });
});

describe('template encoding in events', () => {
  it('round-trips float32 exactly and is compact', async () => {
    const { encodeTemplate, decodeTemplate } = await import('../../../domain/face-matching/events.ts');
    const t = buildTemplate(descriptors(rng(9)));
    const b64 = encodeTemplate(t);
    expect(b64.length).toBe(2732);
    expect(Array.from(decodeTemplate(b64))).toEqual(Array.from(t));
    expect(() => decodeTemplate('AAA')).toThrow();
  });
});
