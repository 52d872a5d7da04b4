import { describe, expect, it } from 'vitest';
import { sniffImageFormat } from '../../../domain/face/image-format.ts';
import { laplacianVariance, lumaCrop, measureQuality, QUALITY_GRID, QUALITY_LIMITS } from '../../../domain/face/quality.ts';
import { compareDescriptors, cosineDistance, decisionConfidence, euclidean, fusedDistance, VERIFY_RULE } from '../../../domain/face/verify.ts';
import { livenessDecision, spectrumFeatures, screenArtefactScore, fft } from '../../../domain/face/liveness.ts';
import { clampPoint, landmarksFrom5, landmarksFrom68 } from '../../../domain/face/landmarks.ts';
import { FACE_ERRORS, faceError, isFaceErrorCode } from '../../../domain/face/errors.ts';
import { fitSimilarity, alignFace, ARCFACE_TEMPLATE_112 } from '../../../models/face/align.ts';

let seed = 7;
const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);

describe('image format sniffing', () => {
  it('recognises JPEG, PNG, WebP and GIF from the magic bytes only', () => {
    expect(sniffImageFormat(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))).toBe('jpeg');
    expect(sniffImageFormat(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('png');
    expect(sniffImageFormat(new TextEncoder().encode('RIFF\u0000\u0000\u0000\u0000WEBPVP8 '))).toBe('webp');
    expect(sniffImageFormat(new TextEncoder().encode('GIF89a...'))).toBe('gif');
    expect(sniffImageFormat(new TextEncoder().encode('RIFF\u0000\u0000\u0000\u0000WAVE'))).toBeNull();
    expect(sniffImageFormat(new Uint8Array(0))).toBeNull();
    expect(sniffImageFormat(Uint8Array.from([0xff, 0xd8]))).toBeNull();
  });
});

describe('errors', () => {
  it('maps every spec code to its status and carries details', () => {
    expect(FACE_ERRORS.image_too_large).toBe(413);
    expect(FACE_ERRORS.no_face_detected).toBe(400);
    expect(isFaceErrorCode('multiple_faces_detected')).toBe(true);
    expect(isFaceErrorCode('toString')).toBe(false);
    const e = faceError('no_face_detected', 'x', { image: 'image1' });
    expect(e.code).toBe('no_face_detected');
    expect(e.details).toEqual({ image: 'image1' });
  });
});

function texture(size: number, blurPasses: number, base = 128, amp = 60): Float32Array {
  let g = new Float32Array(size * size);
  for (let i = 0; i < g.length; i++) g[i] = base + (rnd() - 0.5) * 2 * amp;
  for (let p = 0; p < blurPasses; p++) {
    const o = new Float32Array(g.length);
    for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) {
      let s = 0, n = 0;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
        const xx = x + dx, yy = y + dy;
        if (xx >= 0 && yy >= 0 && xx < size && yy < size) { s += g[yy * size + xx]!; n++; }
      }
      o[y * size + x] = s / n;
    }
    g = o;
  }
  return g;
}

describe('quality measure', () => {
  it('passes a sharp, well exposed face and names the failures of bad ones', () => {
    const sharp = measureQuality(texture(QUALITY_GRID, 1), 200);
    expect(sharp.failures).toEqual([]);
    expect(sharp.score).toBeGreaterThan(0);
    const blurred = measureQuality(texture(QUALITY_GRID, 12), 200);
    expect(blurred.sharpness).toBeLessThan(sharp.sharpness);
    expect(blurred.failures).toContain('blurred');
    expect(blurred.score).toBe(0);
    expect(measureQuality(texture(QUALITY_GRID, 1), 60).failures).toContain('face_too_small');
    expect(measureQuality(texture(QUALITY_GRID, 1, 15, 10), 200).failures).toContain('underexposed');
    expect(measureQuality(texture(QUALITY_GRID, 1, 245, 10), 200).failures).toContain('overexposed');
    expect(QUALITY_LIMITS.minFaceSide).toBe(80);
  });

  it('crops luma bit for bit as a direct bilinear resampling of BT.601 luma', () => {
    let seed = 5;
    const W = 37, H = 29;
    const rgb = Uint8Array.from({ length: W * H * 3 }, () => { seed = (seed * 1103515245 + 12345) >>> 0; return seed >>> 24; });
    const box = { x: 3, y: 4, w: 30, h: 23 }, size = 16;
    const L = (x: number, y: number) => 0.299 * rgb[(y * W + x) * 3]! + 0.587 * rgb[(y * W + x) * 3 + 1]! + 0.114 * rgb[(y * W + x) * 3 + 2]!;
    const want = new Float32Array(size * size);
    for (let j = 0; j < size; j++) {
      for (let i = 0; i < size; i++) {
        const fx = Math.min(W - 1, Math.max(0, box.x + (i + 0.5) * (box.w / size) - 0.5));
        const fy = Math.min(H - 1, Math.max(0, box.y + (j + 0.5) * (box.h / size) - 0.5));
        const x0 = Math.floor(fx), y0 = Math.floor(fy), x1 = Math.min(W - 1, x0 + 1), y1 = Math.min(H - 1, y0 + 1);
        const dx = fx - x0, dy = fy - y0;
        want[j * size + i] = (1 - dy) * ((1 - dx) * L(x0, y0) + dx * L(x1, y0)) + dy * ((1 - dx) * L(x0, y1) + dx * L(x1, y1));
      }
    }
    expect(lumaCrop(rgb, W, H, box, size)).toEqual(want);
  });

  it('measures the Laplacian variance of a flat grid as zero and crops luma from RGB', () => {
    expect(laplacianVariance(new Float32Array(16 * 16).fill(90), 16)).toBe(0);
    const rgb = new Uint8Array(10 * 10 * 3).fill(200);
    const l = lumaCrop(rgb, 10, 10, { x: 2, y: 2, w: 5, h: 5 }, 8);
    expect(l.length).toBe(64);
    for (const v of l) expect(v).toBeCloseTo(200, 3);
  });
});

describe('verification rule', () => {
  it('computes distances and decides at the calibrated threshold', () => {
    expect(euclidean([0, 0], [3, 4])).toBe(5);
    expect(cosineDistance([1, 0], [0, 1])).toBeCloseTo(1, 10);
    expect(cosineDistance([1, 1], [2, 2])).toBeCloseTo(0, 10);
    expect(() => euclidean([1], [1, 2])).toThrow(RangeError);
    expect(fusedDistance(VERIFY_RULE.scale128, VERIFY_RULE.scale1024)).toBeCloseTo(1, 10);
    expect(decisionConfidence(VERIFY_RULE.threshold, VERIFY_RULE.threshold)).toBe(0.5);
    expect(decisionConfidence(0.2, VERIFY_RULE.threshold)).toBeGreaterThan(0.99);
    const v = Array.from({ length: 128 }, () => rnd());
    const w = Array.from({ length: 1024 }, () => rnd() - 0.5);
    const same = compareDescriptors({ descriptor128: v, descriptor1024: w }, { descriptor128: v, descriptor1024: w });
    expect(same.verified).toBe(true);
    expect(same.distance).toBe(0);
    const other = compareDescriptors(
      { descriptor128: v, descriptor1024: w },
      { descriptor128: v.map((x) => x + 0.2), descriptor1024: w.map((x) => -x) },
    );
    expect(other.verified).toBe(false);
    expect(other.distance).toBeGreaterThan(VERIFY_RULE.threshold);
    expect(other.confidence).toBeGreaterThan(0.9);
  });
});

describe('liveness', () => {
  it('combines the checks, clamps them, and decides at the threshold', () => {
    const live = livenessDecision({ antispoof: 0.9, liveness: 0.95, screen: 0.05 }, 0.5);
    expect(live.is_live).toBe(true);
    expect(live.checks.motion_analysis).toBeCloseTo(0.95, 4);
    const spoof = livenessDecision({ antispoof: 0.1, liveness: 0.3, screen: 0.95 }, 0.5);
    expect(spoof.is_live).toBe(false);
    expect(spoof.confidence).toBeGreaterThan(0.5);
    const weird = livenessDecision({ antispoof: Number.NaN, liveness: 7, screen: -3 }, 0.5);
    expect(weird.checks.texture_analysis).toBe(0);
    expect(weird.checks.depth_analysis).toBe(1);
    expect(weird.checks.motion_analysis).toBe(1);
    expect(livenessDecision({ antispoof: 0.6, liveness: 0.6, screen: 0.4 }, 1).is_live).toBe(false);
  });

  it('FFT matches a direct DFT', () => {
    const n = 16, re = new Float64Array(n), im = new Float64Array(n);
    for (let i = 0; i < n; i++) re[i] = Math.sin(i) + rnd();
    const x = Float64Array.from(re);
    fft(re, im);
    for (let k = 0; k < n; k++) {
      let sr = 0, si = 0;
      for (let t = 0; t < n; t++) { sr += x[t]! * Math.cos((-2 * Math.PI * k * t) / n); si += x[t]! * Math.sin((-2 * Math.PI * k * t) / n); }
      expect(re[k]).toBeCloseTo(sr, 8);
      expect(im[k]).toBeCloseTo(si, 8);
    }
  });

  it('finds the periodic peak of a screen-like pixel grid and not in smooth natural texture', () => {
    const n = 128;
    const natural = Float64Array.from(texture(n, 3));
    const grid = Float64Array.from(texture(n, 3), (v, i) => v + 25 * Math.sin((2 * Math.PI * (i % n)) / 3.1) * Math.sin((2 * Math.PI * Math.floor(i / n)) / 3.3));
    const fn = spectrumFeatures(natural, n), fg = spectrumFeatures(grid, n);
    expect(fg.peak).toBeGreaterThan(fn.peak + 0.5);
    const toRgb = (g: Float64Array) => { const o = new Uint8Array(n * n * 3); g.forEach((v, i) => o.fill(Math.max(0, Math.min(255, Math.round(v))), i * 3, i * 3 + 3)); return o; };
    const box = { x: 0, y: 0, w: n, h: n };
    expect(screenArtefactScore(toRgb(grid), n, n, box)).toBeGreaterThan(screenArtefactScore(toRgb(natural), n, n, box));
  });
});

describe('landmarks', () => {
  const p68 = Array.from({ length: 68 }, (_, i) => ({ x: 100 + i, y: 50 + i }));
  it('names the subject-side points of the iBUG 68 set and clamps them to the image', () => {
    const l = landmarksFrom68(p68, 150, 110);
    expect(l.nose_tip).toEqual({ x: 130, y: 80 });
    expect(l.chin).toEqual({ x: 108, y: 58 });
    expect(l.mouth_left).toEqual({ x: 149, y: 104 }); // point 54 = (154,104), clamped x to 149
    expect(l.left_eyebrow).toHaveLength(5);
    expect(l.left_eye).toEqual({ x: 145, y: 95 }); // mean of 42-47 = (144.5, 94.5)
    expect(clampPoint({ x: -4.2, y: 1e9 }, 10, 10)).toEqual({ x: 0, y: 9 });
    expect(() => landmarksFrom68(p68.slice(0, 10), 100, 100)).toThrow(RangeError);
  });
  it('builds the 5-point variant', () => {
    const five = [{ x: 10, y: 10 }, { x: 30, y: 10 }, { x: 20, y: 20 }, { x: 12, y: 30 }, { x: 28, y: 30 }];
    const l = landmarksFrom5(five, p68, 200, 200);
    expect(l.left_eye).toEqual({ x: 30, y: 10 });
    expect(l.right_eye).toEqual({ x: 10, y: 10 });
    expect(l.mouth_left).toEqual({ x: 28, y: 30 });
    expect(l.left_eyebrow).toHaveLength(2);
  });
});

describe('5-point alignment', () => {
  it('recovers a known similarity transform and warps the points onto the template', () => {
    const a = 1.7 * Math.cos(0.3), b = 1.7 * Math.sin(0.3);
    const src = ARCFACE_TEMPLATE_112.map((p) => ({ x: p.x * 2, y: p.y * 2 }));
    const dst = src.map((p) => ({ x: a * p.x - b * p.y + 40, y: b * p.x + a * p.y - 12 }));
    const m = fitSimilarity(src, dst);
    expect(m.a).toBeCloseTo(a, 8); expect(m.b).toBeCloseTo(b, 8);
    expect(m.tx).toBeCloseTo(40, 6); expect(m.ty).toBeCloseTo(-12, 6);
    // an image whose only bright pixel is at the "nose" lands at the template nose after alignment
    const W = 600, H = 600, data = new Uint8Array(W * H * 3);
    const nose = dst[2]!;
    for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) data.fill(255, ((Math.round(nose.y) + dy) * W + Math.round(nose.x) + dx) * 3, ((Math.round(nose.y) + dy) * W + Math.round(nose.x) + dx) * 3 + 3);
    const out = alignFace({ data, width: W, height: H, format: 'png' }, dst, 224);
    let best = 0, bi = 0;
    for (let i = 0; i < 224 * 224; i++) if (out[i * 3]! > best) { best = out[i * 3]!; bi = i; }
    expect(Math.abs((bi % 224) - src[2]!.x)).toBeLessThanOrEqual(2);
    expect(Math.abs(Math.floor(bi / 224) - src[2]!.y)).toBeLessThanOrEqual(2);
  });
});
