/**
 * Candidate index for 1:N search: locality-sensitive hashing of the bit cylinders, after R. Cappelli,
 * M. Ferrara, D. Maltoni, "Fingerprint Indexing Based on Minutia Cylinder-Code", IEEE TPAMI 33(5) 2011.
 * Their hash functions sample bits of the cylinder; our cylinders are sparse (≈4% of bits set), so we use
 * the LSH family for sparse sets instead, MinHash (A. Broder, "On the resemblance and containment of
 * documents", 1997): L = 24 bands of r = 3 min-hashes each. Two cylinders with Jaccard similarity J share
 * a band with probability 1 − (1 − J³)^24 (J = 0.4, a typical mated pair: 0.79; J = 0.03, unrelated: 6e-4).
 * A query's cylinders vote for the templates whose cylinders share a band; the best-voted templates are
 * then scored by the full matcher.
 */
import { CW, type CylinderSet } from './mcc.ts';

const L = 24;
const ROWS = 3;
const NBITS = CW * 32;

function permutations(): Uint16Array[] {
  // Deterministic xorshift32 so every process builds the same index.
  let s = 0x9e3779b9;
  const rnd = () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s;
  };
  const out: Uint16Array[] = [];
  for (let h = 0; h < L * ROWS; h++) {
    const p = new Uint16Array(NBITS);
    for (let i = 0; i < NBITS; i++) p[i] = i;
    for (let i = NBITS - 1; i > 0; i--) {
      const j = rnd() % (i + 1);
      const t = p[i]!;
      p[i] = p[j]!;
      p[j] = t;
    }
    out.push(p);
  }
  return out;
}
const PERMS = permutations();

/** The L band keys of cylinder `c` of a set (−1 for an empty cylinder). */
export function bandKeys(set: CylinderSet, c: number, out: Float64Array): boolean {
  const mins = new Uint16Array(L * ROWS).fill(65535);
  let any = false;
  const base = c * CW;
  for (let w = 0; w < CW; w++) {
    let v = set.bits[base + w]!;
    while (v) {
      const b = 31 - Math.clz32(v & -v);
      v &= v - 1;
      const bit = w * 32 + b;
      any = true;
      for (let h = 0; h < L * ROWS; h++) {
        const r = PERMS[h]![bit]!;
        if (r < mins[h]!) mins[h] = r;
      }
    }
  }
  if (!any) return false;
  for (let band = 0; band < L; band++) {
    let k = band;
    for (let r = 0; r < ROWS; r++) k = k * 2048 + mins[band * ROWS + r]!;
    out[band] = k;
  }
  return true;
}

export class CandidateIndex {
  private readonly buckets = new Map<number, number[]>();
  private readonly ids: string[] = [];
  private readonly slot = new Map<string, number>();
  private readonly removed = new Set<number>();

  get size(): number {
    return this.slot.size;
  }

  add(id: string, set: CylinderSet): void {
    if (this.slot.has(id)) return;
    const s = this.ids.length;
    this.ids.push(id);
    this.slot.set(id, s);
    const keys = new Float64Array(L);
    for (let c = 0; c < set.n; c++) {
      if (!bandKeys(set, c, keys)) continue;
      for (const k of keys) {
        const b = this.buckets.get(k);
        if (b) {
          if (b[b.length - 1] !== s) b.push(s);
        } else this.buckets.set(k, [s]);
      }
    }
  }

  remove(id: string): void {
    const s = this.slot.get(id);
    if (s === undefined) return;
    this.slot.delete(id);
    this.removed.add(s);
  }

  /** Ids of the `k` templates with the most band collisions with the query (ties by insertion order). */
  candidates(query: CylinderSet, k: number): string[] {
    const votes = new Map<number, number>();
    const keys = new Float64Array(L);
    for (let c = 0; c < query.n; c++) {
      if (!bandKeys(query, c, keys)) continue;
      for (const key of keys) {
        const b = this.buckets.get(key);
        if (!b) continue;
        for (const s of b) votes.set(s, (votes.get(s) ?? 0) + 1);
      }
    }
    const ranked = [...votes.entries()].filter(([s]) => !this.removed.has(s)).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    return ranked.slice(0, k).map(([s]) => this.ids[s]!);
  }
}
