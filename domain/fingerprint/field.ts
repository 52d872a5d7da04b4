/**
 * Coarse ridge-orientation field stored with our templates, and its fusion with the MCC score: a feature
 * beyond the minutiae for the genuine pairs whose minutiae barely agree (wet, smudged prints). Hybrid
 * minutiae + orientation-field matching after Ross, Jain, Reisman, "A hybrid fingerprint matcher" (Pattern
 * Recognition 36(7) 2003) and Tico, Kuosmanen (IEEE TPAMI 25(8) 2003): the field of A, mapped by the
 * geometric verification's alignment (mcc-verify.ts), is compared with B's over the foreground blocks they
 * share, and the raw score is multiplied by ((1 + S) / 2)^FIELD.power, S the coherence-weighted mean of
 * cos 2Δθ. Measured on FVC2002 B (docs/fingerprint.md, "Accuracy", orientation field): extended EER
 * DB1-DB3 average 2.29 → 1.81%.
 *
 * Encoding (`encodeField`, base64): width and height in blocks (1 byte each), then per block (row-major)
 * 2 bytes: the ridge orientation θ ∈ [0, π) quantised to 256 steps (byte = round(θ·256/π) mod 256, image
 * coordinates, y down) and the coherence 1-255 (0: background). About 0.7 KB for a 300 × 300 px print.
 * ISO templates have no field; the fusion is neutral then.
 */
import type { Alignment } from './mcc-verify.ts';
import { matchCylinders, MATCH_DEFAULTS, type CylinderSet } from './mcc.ts';

export const FIELD = {
  /** Block side in pixels at 500 ppi (2 × 2 of the extractor's 8 px blocks). */
  block: 16,
  /** A 16 px block is foreground when at least this many of its four 8 px blocks are. */
  minForeground: 2,
  /** Fewer shared foreground blocks than this: the fusion is neutral (about 2,500 px², under a tenth of a print). */
  minOverlap: 10,
  /** Exponent of the factor (1 + S) / 2 (tried 1-12 and thresholded forms, docs/fingerprint.md). */
  power: 4,
} as const;

/**
 * A decoded field: `bw` × `bh` blocks of FIELD.block px, row-major; per block `q` the doubled ridge angle 2θ
 * in 256 steps of 2π (θ in image coordinates, y down) and `w` the coherence 1-255 (0: background). Kept as
 * bytes (about 0.7 KB for a 300 × 300 px print) so a gallery of 100,000 templates holds them in 70 MB.
 */
export interface OrientationField {
  bw: number;
  bh: number;
  q: Uint8Array;
  w: Uint8Array;
}

/**
 * The coarse field from the extractor's 8 px block grid (ExtractionDebug: `bw`, mask, coherence, doubled-angle
 * vectors): coherence-weighted mean of the doubled-angle vectors of each 2 × 2 group's foreground blocks.
 * Returns the base64 encoding (see the module comment).
 */
export function encodeFieldFromBlocks(bw8: number, bh8: number, mask: Uint8Array, coh: Float32Array, vcos: Float32Array, vsin: Float32Array): string {
  const bw = Math.min(255, Math.ceil(bw8 / 2)), bh = Math.min(255, Math.ceil(bh8 / 2));
  const out = new Uint8Array(2 + 2 * bw * bh);
  out[0] = bw; out[1] = bh;
  for (let by = 0; by < bh; by++) for (let bx = 0; bx < bw; bx++) {
    let n = 0, sc = 0, ss = 0, sw = 0;
    for (let y = 2 * by; y < Math.min(bh8, 2 * by + 2); y++) for (let x = 2 * bx; x < Math.min(bw8, 2 * bx + 2); x++) {
      const b = y * bw8 + x;
      if (!mask[b]) continue;
      n++; sc += coh[b]! * vcos[b]!; ss += coh[b]! * vsin[b]!; sw += coh[b]!;
    }
    const k = 2 + 2 * (by * bw + bx);
    if (n < FIELD.minForeground) continue;
    const doubled = Math.atan2(ss, sc); // 2θ
    out[k] = Math.round(((doubled + 2 * Math.PI) % (2 * Math.PI)) / (2 * Math.PI) * 256) % 256;
    out[k + 1] = Math.max(1, Math.min(255, Math.round((sw > 0 ? Math.hypot(sc, ss) / sw : 0) * 255)));
  }
  return Buffer.from(out).toString('base64');
}

/** Inverse of the encoding. @throws Error when the length does not match the header. */
export function decodeField(b64: string): OrientationField {
  const b = Buffer.from(b64, 'base64');
  const bw = b[0] ?? 0, bh = b[1] ?? 0;
  if (b.length !== 2 + 2 * bw * bh) throw new Error(`orientation field of ${b.length} bytes for ${bw} × ${bh} blocks`);
  const n = bw * bh;
  const f: OrientationField = { bw, bh, q: new Uint8Array(n), w: new Uint8Array(n) };
  for (let i = 0; i < n; i++) { f.q[i] = b[2 + 2 * i]!; f.w[i] = b[3 + 2 * i]!; }
  return f;
}

const COS = Float32Array.from({ length: 256 }, (_, i) => Math.cos((i / 256) * 2 * Math.PI));
const SIN = Float32Array.from({ length: 256 }, (_, i) => Math.sin((i / 256) * 2 * Math.PI));

/**
 * Orientation similarity of A and B under an alignment of A onto B (y-up frame, mcc-verify.ts): the mean of
 * cos 2Δθ over A's foreground blocks whose centre falls on a foreground block of B, weighted by the product
 * of the two coherences; −1 to 1. Null when fewer than FIELD.minOverlap blocks are shared.
 */
export function fieldSimilarity(A: OrientationField, B: OrientationField, al: Alignment): number | null {
  const co = al.cos, si = al.sin, bs = FIELD.block;
  // A's doubled angle turns by −2φ in image coordinates (y down) when the y-up frame turns by φ.
  const c2 = co * co - si * si, s2 = 2 * co * si;
  const Aq = A.q, Aw = A.w, Bq = B.q, Bw = B.w, bwB = B.bw, bhB = B.bh;
  // In B's block units: A's block (bx, by) centre lands at (u0 + bx·cos, v0 − bx·sin) of row by.
  const tu = al.tx / bs, tv = -al.ty / bs;
  let n = 0, sw = 0, sd = 0;
  for (let by = 0; by < A.bh; by++) {
    const yy = by + 0.5;
    const u0 = 0.5 * co + si * yy + tu, v0 = -(0.5 * si) + co * yy + tv;
    const row = by * A.bw;
    for (let bx = 0; bx < A.bw; bx++) {
      const wa = Aw[row + bx]!;
      if (wa === 0) continue;
      const u = u0 + bx * co, v = v0 - bx * si;
      if (u < 0 || v < 0 || u >= bwB || v >= bhB) continue;
      const b = (v | 0) * bwB + (u | 0);
      const wb = Bw[b]!;
      if (wb === 0) continue;
      const ka = Aq[row + bx]!, kb = Bq[b]!;
      const ca = COS[ka]! * c2 + SIN[ka]! * s2, sa = SIN[ka]! * c2 - COS[ka]! * s2;
      const w = wa * wb;
      n++; sw += w; sd += w * (ca * COS[kb]! + sa * SIN[kb]!);
    }
  }
  return n < FIELD.minOverlap || sw <= 0 ? null : sd / sw;
}

/**
 * The raw MCC score fused with the orientation similarity: raw × ((1 + S) / 2)^FIELD.power. Neutral (raw)
 * when either field is absent (ISO templates), when the verification paired nothing, or when the overlap is
 * under FIELD.minOverlap blocks.
 */
export function fuseOrientation(raw: number, A: OrientationField | undefined, B: OrientationField | undefined, al: Alignment): number {
  if (!(raw > 0) || !A || !B || al.paired === 0) return raw;
  const S = fieldSimilarity(A, B, al);
  return S === null ? raw : raw * ((1 + S) / 2) ** FIELD.power;
}

const scratch: Alignment = { cos: 1, sin: 0, tx: 0, ty: 0, paired: 0 };

/**
 * The matcher's raw similarity (0-1) of two templates: `matchCylinders` with its defaults, fused with the
 * orientation fields when both are given (`fuseOrientation`). What score.ts calibrates. Not re-entrant.
 */
export function matchTemplates(A: CylinderSet, B: CylinderSet, fA?: OrientationField, fB?: OrientationField): number {
  scratch.paired = 0;
  const raw = matchCylinders(A, B, MATCH_DEFAULTS, scratch);
  return fuseOrientation(raw, fA, fB, scratch);
}
