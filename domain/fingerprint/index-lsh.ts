/**
 * Candidate index for 1:N search: locality-sensitive hashing of the MCC bit cylinders, after R. Cappelli,
 * M. Ferrara, D. Maltoni, "Fingerprint Indexing Based on Minutia Cylinder-Code", IEEE TPAMI 33(5) 2011
 * (every cylinder of every template is hashed into L tables; a query's cylinders vote for the templates
 * whose cylinders share a bucket; the best-voted templates go to the full matcher).
 *
 * Their hash functions sample bits of the cylinder. Ours are sparse (about 6% of the 1,536 bits set), so a
 * sample of bits is nearly always all zeros; we use the LSH family for sparse sets instead, MinHash
 * (A. Broder, "On the resemblance and containment of documents", 1997): band b's key is the r minima
 * of r random permutations of the set bits. Two cylinders with Jaccard similarity J share a band with
 * probability J^r, and at least one of L bands with 1 − (1 − J^r)^L.
 *
 * Storage (for 100,000 templates in one tenant): per band a hash table of 2^k buckets (k grows with the
 * postings so buckets hold at most {@link INDEX}.targetLoad postings on average; the tables grow fourfold
 * and are rebuilt from the kept cylinder sets), each bucket a chain of 8-word chunks in one Uint32Array
 * pool (7 postings + link), so a posting, (template slot × 128 + cylinder), costs about 4.6 bytes.
 * Deletion removes a template's postings (the keys are recomputed from its cylinders) and frees its slot.
 * Buckets holding more than {@link INDEX}.capShare of the gallery (keys common to many prints) are
 * skipped at query time: they cost the most and discriminate the least.
 */
import { CW, MCC, type CylinderSet } from './mcc.ts';

/**
 * Index parameters. bands × rows chosen on the synthetic 10,000-template gallery of
 * bench/fingerprint.bench.ts (hit rate against penetration, docs/fingerprint.md, 1:N).
 */
export interface IndexParams {
  bands: number;
  rows: number;
  minBits: number;
  targetLoad: number;
  minTableBits: number;
  capShare: number;
  capMin: number;
  /**
   * Cylinders with fewer valid cells than this share of the cells within R (near the print's border) are
   * neither indexed nor used to query (0: all): their bits depend on how much of the finger each
   * impression shows. 0.9 raised the hit rate at 0.1-1% penetration by 2-4 points and cut postings by 25%.
   */
  minValid: number;
  /** Vote of a template for one query cylinder: c^exponent, c the most bands shared with one of its cylinders. */
  exponent: number;
}

export const INDEX: IndexParams = {
  /** L: hash tables (bands). */
  bands: 16,
  /** r: min-hashes per band key. */
  rows: 3,
  /** Cylinders with fewer set bits are neither indexed nor used to query (few neighbours: weak keys). */
  minBits: 16,
  /** Mean postings per bucket the table grows to keep. */
  targetLoad: 8,
  /** Smallest table: 2^minTableBits buckets per band. */
  minTableBits: 10,
  /** A bucket with more postings than this share of the gallery (and at least capMin) is skipped. */
  capShare: 0.02,
  capMin: 64,
  minValid: 0.9,
  exponent: 2,
};

const NBITS = CW * 32;
/** Cells of the 16 × 16 grid whose centre is within R (MCC §3). */
const CELLS_IN_R = (() => {
  let n = 0;
  for (let i = 0; i < MCC.NS; i++) for (let j = 0; j < MCC.NS; j++) if (Math.hypot(i + 0.5 - MCC.NS / 2, j + 0.5 - MCC.NS / 2) <= MCC.NS / 2) n++;
  return n;
})();
/** Min-hash functions available (bands × rows may not exceed it). */
const H = 128;
const CHUNK = 8;
/** Cylinders indexed per template at most (a posting is slot × MAX_CYL + cylinder). */
const CYL_BITS = 7;
const MAX_CYL = 1 << CYL_BITS;
const PER_CHUNK = CHUNK - 1;

/** PERM[bit × H + h]: rank of `bit` in random permutation h (deterministic xorshift32: every process builds the same index). */
const PERM = (() => {
  let s = 0x9e3779b9;
  const rnd = () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s;
  };
  const out = new Uint16Array(NBITS * H);
  const p = new Uint16Array(NBITS);
  for (let h = 0; h < H; h++) {
    for (let i = 0; i < NBITS; i++) p[i] = i;
    for (let i = NBITS - 1; i > 0; i--) {
      const j = rnd() % (i + 1);
      const t = p[i]!;
      p[i] = p[j]!;
      p[j] = t;
    }
    for (let i = 0; i < NBITS; i++) out[i * H + h] = p[i]!;
  }
  return out;
})();

const mins = new Uint16Array(H);


/** True when cylinder `c` of a set is indexed under `p` (enough set bits and valid cells). */
export function indexable(set: CylinderSet, c: number, p: IndexParams = INDEX): boolean {
  // `pop` and `cells` are the set bits and the valid cells of one layer, counted once by mcc.ts's withGeometry.
  return set.pop[c]! >= p.minBits && (p.minValid <= 0 || set.cells[c]! >= p.minValid * CELLS_IN_R);
}

/**
 * Parameters a whole set is hashed with: `p`, or `p` without the valid-cell rule when fewer than
 * {@link MIN_INDEXED} of its cylinders would pass it (a small or partial print is still indexed).
 */
export function paramsFor(set: CylinderSet, p: IndexParams = INDEX): IndexParams {
  if (p.minValid <= 0) return p;
  let n = 0;
  for (let c = 0; c < set.n && n < MIN_INDEXED; c++) if (indexable(set, c, p)) n++;
  return n >= MIN_INDEXED ? p : { ...p, minValid: 0 };
}

/** Indexed cylinders a template needs before the valid-cell rule applies to it. */
export const MIN_INDEXED = 6;

/**
 * The 32-bit band hashes of cylinder `c` of a set into `out[0..bands)`; false when the cylinder is not
 * {@link indexable} under `p`.
 */
export function bandHashes(set: CylinderSet, c: number, out: Uint32Array, p: IndexParams = INDEX): boolean {
  const nh = p.bands * p.rows;
  const base = c * CW;
  if (!indexable(set, c, p)) return false;
  mins.fill(65535);
  for (let w = 0; w < CW; w++) {
    let v = set.bits[base + w]!;
    while (v) {
      const b = 31 - Math.clz32(v & -v);
      v &= v - 1;
      const o = (w * 32 + b) * H;
      for (let h = 0; h < nh; h++) {
        const r = PERM[o + h]!;
        if (r < mins[h]!) mins[h] = r;
      }
    }
  }
  for (let band = 0; band < p.bands; band++) {
    // FNV-1a style mixing of (band, r minima), then a murmur3 finaliser.
    let k = Math.imul(0x811c9dc5 ^ band, 0x01000193);
    for (let r = 0; r < p.rows; r++) k = Math.imul(k ^ mins[band * p.rows + r]!, 0x01000193);
    k ^= k >>> 16; k = Math.imul(k, 0x85ebca6b); k ^= k >>> 13; k = Math.imul(k, 0xc2b2ae35); k ^= k >>> 16;
    out[band] = k >>> 0;
  }
  return true;
}

/** Memory held by an index, in bytes (typed arrays; the id strings and maps are counted apart). */
export interface IndexStats {
  templates: number;
  postings: number;
  tableBits: number;
  tableBytes: number;
  /** Allocated postings pool (grows by doubling). */
  poolBytes: number;
  /** The part of the pool in use (chunks handed out). */
  poolUsedBytes: number;
  /** Search scratch (per-pair collision counters, votes), allocated on the first search: about 270 B per slot. */
  scratchBytes: number;
}

/**
 * The per-tenant candidate index. `add`/`remove` by template id with its cylinders (the same object is
 * kept to rehash when the table grows); `candidates` returns the ids of the best-voted templates.
 */
export class CandidateIndex {
  /** Per (band, bucket): 1 + chunk number of the head chunk (0: empty). */
  private heads: Uint32Array;
  /** Per (band, bucket): postings in the chain. */
  private lens: Uint32Array;
  private pool = new Uint32Array(CHUNK * 1024);
  private chunks = 0;
  private freeChunks: number[] = [];
  private postings = 0;
  private readonly ids: Array<string | undefined> = [];
  private readonly sets: Array<CylinderSet | undefined> = [];
  private readonly slot = new Map<string, number>();
  private readonly freeSlots: number[] = [];
  private votes = new Uint32Array(0);
  private pairCount = new Uint8Array(0);
  private best = new Uint8Array(0);
  private readonly hashes: Uint32Array;
  private tableBits: number;
  private readonly p: IndexParams;

  /** @throws Error when bands × rows exceeds the 128 min-hash functions. */
  constructor(params: Partial<IndexParams> = {}) {
    this.p = { ...INDEX, ...params };
    if (this.p.bands * this.p.rows > H) throw new Error(`index: bands × rows must be at most ${H}`);
    this.tableBits = this.p.minTableBits;
    this.hashes = new Uint32Array(this.p.bands);
    this.heads = new Uint32Array(this.p.bands << this.tableBits);
    this.lens = new Uint32Array(this.p.bands << this.tableBits);
  }

  get size(): number {
    return this.slot.size;
  }

  stats(): IndexStats {
    return { templates: this.size, postings: this.postings, tableBits: this.tableBits, tableBytes: this.heads.byteLength + this.lens.byteLength, poolBytes: this.pool.byteLength, poolUsedBytes: (this.chunks - this.freeChunks.length) * CHUNK * 4, scratchBytes: this.pairCount.byteLength + this.votes.byteLength + this.best.byteLength };
  }

  /** Indexes a template; a second add of the same id is ignored. */
  add(id: string, set: CylinderSet): void {
    if (this.slot.has(id)) return;
    const s = this.freeSlots.pop() ?? this.ids.length;
    this.ids[s] = id;
    this.sets[s] = set;
    this.slot.set(id, s);
    this.insert(s, set);
    if (this.postings > this.p.targetLoad * (this.p.bands << this.tableBits)) this.grow();
  }

  /** Removes a template and its postings (no-op for an unknown id). */
  remove(id: string): void {
    const s = this.slot.get(id);
    if (s === undefined) return;
    const set = this.sets[s]!;
    const mask = (1 << this.tableBits) - 1;
    const p = paramsFor(set, this.p);
    for (let c = 0; c < Math.min(set.n, MAX_CYL); c++) {
      if (!bandHashes(set, c, this.hashes, p)) continue;
      for (let band = 0; band < this.p.bands; band++) this.unlink((band << this.tableBits) | (this.hashes[band]! & mask), s * MAX_CYL + c);
    }
    this.slot.delete(id);
    this.ids[s] = undefined;
    this.sets[s] = undefined;
    this.freeSlots.push(s);
  }

  /** Postings of template `id` (for tests): how many buckets list it. */
  postingsOf(id: string): number {
    const s = this.slot.get(id);
    let n = 0;
    if (s === undefined) return 0;
    for (let b = 0; b < this.lens.length; b++) this.forEach(b, (t) => { if (t >>> CYL_BITS === s) n++; });
    return n;
  }

  /**
   * Ids of the `k` best-voted templates (ties: lower slot first); templates with no vote are not returned.
   * Voting as in Cappelli et al. 2011: for each query cylinder and each template, the largest number of
   * bands the query cylinder shares with any one cylinder of the template (c of L) is turned into a vote
   * c^e ({@link IndexParams}.exponent), and a template's score is the sum of its votes over the query's
   * cylinders. A single strongly colliding partner thus outweighs many chance collisions.
   */
  candidates(query: CylinderSet, k: number): string[] {
    const mask = (1 << this.tableBits) - 1;
    const cap = Math.max(this.p.capMin, Math.ceil(this.p.capShare * this.size));
    const slots = this.ids.length;
    if (this.pairCount.length < slots * MAX_CYL) this.pairCount = new Uint8Array(slots * MAX_CYL * 2);
    if (this.best.length < slots) this.best = new Uint8Array(slots * 2);
    if (this.votes.length < slots) this.votes = new Uint32Array(slots * 2);
    const { pairCount, best, votes, pool } = this;
    const weight = new Uint32Array(this.p.bands + 1);
    for (let c = 1; c <= this.p.bands; c++) weight[c] = Math.round(c ** this.p.exponent);
    const touched: number[] = [];
    const pairs: number[] = [];
    const bestSlots: number[] = [];
    let maxVote = 0;
    const qp = paramsFor(query, this.p);
    for (let c = 0; c < query.n; c++) {
      if (!bandHashes(query, c, this.hashes, qp)) continue;
      pairs.length = 0;
      for (let band = 0; band < this.p.bands; band++) {
        const b = (band << this.tableBits) | (this.hashes[band]! & mask);
        let len = this.lens[b]!;
        if (len === 0 || len > cap) continue;
        let chunk = this.heads[b]! - 1;
        let inHead = ((len - 1) % PER_CHUNK) + 1;
        while (len > 0) {
          const o = chunk * CHUNK + 1;
          for (let i = 0; i < inHead; i++) {
            const t = pool[o + i]!;
            const n = pairCount[t]!;
            if (n === 0) pairs.push(t);
            pairCount[t] = n + 1;
          }
          len -= inHead;
          inHead = PER_CHUNK;
          chunk = pool[chunk * CHUNK]! - 1;
        }
      }
      bestSlots.length = 0;
      for (const t of pairs) {
        const s = t >>> CYL_BITS, n = pairCount[t]!;
        pairCount[t] = 0;
        if (best[s] === 0) bestSlots.push(s);
        if (n > best[s]!) best[s] = n;
      }
      for (const s of bestSlots) {
        if (votes[s] === 0) touched.push(s);
        const v = votes[s]! + weight[best[s]!]!;
        votes[s] = v;
        best[s] = 0;
        if (v > maxVote) maxVote = v;
      }
    }
    // Counting selection over the vote values.
    const hist = new Uint32Array(maxVote + 1);
    for (const t of touched) hist[votes[t]!]!++;
    let thr = maxVote, acc = 0;
    while (thr > 0 && acc + hist[thr]! < k) { acc += hist[thr]!; thr--; }
    const chosen: number[] = [];
    for (const t of touched) if (votes[t]! >= Math.max(1, thr)) chosen.push(t);
    chosen.sort((a, b) => votes[b]! - votes[a]! || a - b);
    for (const t of touched) votes[t] = 0;
    const out: string[] = [];
    for (const t of chosen) {
      if (out.length >= k) break;
      const id = this.ids[t];
      if (id !== undefined) out.push(id);
    }
    return out;
  }

  private insert(s: number, set: CylinderSet): void {
    const mask = (1 << this.tableBits) - 1;
    const p = paramsFor(set, this.p);
    for (let c = 0; c < Math.min(set.n, MAX_CYL); c++) {
      if (!bandHashes(set, c, this.hashes, p)) continue;
      for (let band = 0; band < this.p.bands; band++) this.append((band << this.tableBits) | (this.hashes[band]! & mask), s * MAX_CYL + c);
    }
  }

  private append(b: number, s: number): void {
    const len = this.lens[b]!;
    const fill = len % PER_CHUNK;
    if (len > 0) {
      const last = (this.heads[b]! - 1) * CHUNK + 1 + ((len - 1) % PER_CHUNK);
      if (this.pool[last] === s) return;
    }
    if (fill === 0) {
      const c = this.newChunk();
      this.pool[c * CHUNK] = this.heads[b]!;
      this.heads[b] = c + 1;
    }
    this.pool[(this.heads[b]! - 1) * CHUNK + 1 + fill] = s;
    this.lens[b] = len + 1;
    this.postings++;
  }

  private unlink(b: number, s: number): void {
    let len = this.lens[b]!;
    if (len === 0) return;
    const head = this.heads[b]! - 1;
    const lastPos = head * CHUNK + 1 + ((len - 1) % PER_CHUNK);
    let chunk = head;
    let inChunk = ((len - 1) % PER_CHUNK) + 1;
    let found = -1;
    let left = len;
    while (left > 0 && found < 0) {
      const o = chunk * CHUNK + 1;
      for (let i = 0; i < inChunk; i++) if (this.pool[o + i] === s) { found = o + i; break; }
      left -= inChunk;
      inChunk = PER_CHUNK;
      chunk = this.pool[chunk * CHUNK]! - 1;
    }
    if (found < 0) return;
    this.pool[found] = this.pool[lastPos]!;
    len--;
    this.lens[b] = len;
    this.postings--;
    if (len % PER_CHUNK === 0) {
      this.heads[b] = this.pool[head * CHUNK]!;
      this.freeChunks.push(head);
    }
  }

  private newChunk(): number {
    const f = this.freeChunks.pop();
    if (f !== undefined) return f;
    if ((this.chunks + 1) * CHUNK > this.pool.length) {
      const p = new Uint32Array(this.pool.length * 2);
      p.set(this.pool);
      this.pool = p;
    }
    return this.chunks++;
  }

  private forEach(b: number, fn: (slot: number) => void): void {
    let len = this.lens[b]!;
    if (len === 0) return;
    let chunk = this.heads[b]! - 1;
    let inChunk = ((len - 1) % PER_CHUNK) + 1;
    while (len > 0) {
      for (let i = 0; i < inChunk; i++) fn(this.pool[chunk * CHUNK + 1 + i]!);
      len -= inChunk;
      inChunk = PER_CHUNK;
      chunk = this.pool[chunk * CHUNK]! - 1;
    }
  }

  /** Grows the tables fourfold (until the load is back under target) and re-inserts every template. */
  private grow(): void {
    // Four times the buckets per step: the re-insertions over a gallery's growth add up to a third of it, not all of it.
    while (this.postings > this.p.targetLoad * (this.p.bands << this.tableBits)) this.tableBits += 2;
    this.heads = new Uint32Array(this.p.bands << this.tableBits);
    this.lens = new Uint32Array(this.p.bands << this.tableBits);
    this.chunks = 0;
    this.freeChunks = [];
    this.postings = 0;
    for (let s = 0; s < this.sets.length; s++) {
      const set = this.sets[s];
      if (set) this.insert(s, set);
    }
  }
}

/**
 * Candidate list size for a gallery of `n` templates: {@link CANDIDATES}.share of the gallery, at least
 * `min` and at most `max` (the full matcher's cost per search is this many 1:1 comparisons).
 */
export const CANDIDATES = { share: 0.005, min: 200, max: 400 } as const;

export function candidateCount(n: number): number {
  return Math.min(n, Math.max(CANDIDATES.min, Math.min(CANDIDATES.max, Math.round(CANDIDATES.share * n))));
}
