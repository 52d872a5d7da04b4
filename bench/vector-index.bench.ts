/**
 * Vector-index benchmark (issue 4): enrollment (upsert) throughput, search latency p50/p95 and recall@10
 * against exact search, and memory per million templates, for the embedded adapter at 10k / 100k / 1M
 * synthetic 512-d templates in ONE namespace.
 *
 *   node --import tsx bench/vector-index.bench.ts [--sizes 10000,100000,1000000] [--queries 1000]
 *        [--recall-queries 100] [--threads 2] [--quantization f16] [--latent 16] [--ef 256]
 *
 * Synthetic templates (see Generator): identity clusters in a low-dimensional subspace (`--latent`,
 * default 16; 0 = isotropic worst case). Queries are fresh samples of enrolled identities.
 * Ground truth: brute-force float32 cosine over all stored vectors, in plain JS (independent of usearch).
 * Memory: RSS growth while building the index (SQLite page cache included) and the graph snapshot size.
 */
import { mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { EmbeddedVectorIndex } from '../infra/vector-index/embedded/index.ts';
import { mulberry32 } from '../domain/shared/mulberry32.ts';

const DIM = 512;

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? (process.argv[i + 1] as string) : def;
}

const rng = mulberry32;

function gauss(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
}

function unitInto(out: Float32Array, off: number, src: Float32Array): void {
  let n = 0;
  for (let i = 0; i < DIM; i++) n += (src[i] as number) ** 2;
  const inv = 1 / Math.sqrt(n);
  for (let i = 0; i < DIM; i++) out[off + i] = (src[i] as number) * inv;
}

/**
 * Synthetic face-like templates. With `latent` > 0, identities live in a `latent`-dimensional subspace of
 * the 512-d space (a fixed random Gaussian map), as real face embeddings do: Gong, Boddeti & Jain,
 * "On the Intrinsic Dimensionality of Image Representations" (CVPR 2019) measure an intrinsic dimension
 * of about 10-20 for 512-d face representations. Each template = identity centre + within-identity noise
 * in the latent space + a little isotropic 512-d noise; template-to-centre cosine about 0.75.
 * `latent` = 0 gives the isotropic worst case (every direction of the 512 equally likely).
 */
class Generator {
  private readonly map: Float32Array | null;
  constructor(private readonly latent: number, private readonly rand: () => number) {
    this.map = latent > 0 ? Float32Array.from({ length: DIM * latent }, () => gauss(rand) / Math.sqrt(DIM)) : null;
  }
  centre(): Float32Array {
    const d = this.latent > 0 ? this.latent : DIM;
    return Float32Array.from({ length: d }, () => gauss(this.rand) / Math.sqrt(d));
  }
  /** A unit 512-d template of the identity whose latent centre is `c`. */
  sample(c: Float32Array, out: Float32Array, off: number): void {
    const d = c.length;
    const s = Math.sqrt((1 / 0.75 ** 2 - 1) / d);
    const z = Float32Array.from(c, (x) => x + s * gauss(this.rand));
    const v = new Float32Array(DIM);
    if (this.map) {
      for (let i = 0; i < DIM; i++) {
        let acc = 0;
        for (let j = 0; j < d; j++) acc += (this.map[i * d + j] as number) * (z[j] as number);
        v[i] = acc + 0.15 * gauss(this.rand) / Math.sqrt(DIM);
      }
    } else v.set(z);
    unitInto(out, off, v);
  }
}

/** Identity-clustered synthetic templates, flat row-major (n x DIM), unit rows; 5 per identity. */
function makeData(n: number, perIdentity: number, seed: number, latent: number): { data: Float32Array; centres: Float32Array[]; gen: Generator } {
  const rand = rng(seed);
  const gen = new Generator(latent, rand);
  const ids = Math.ceil(n / perIdentity);
  const centres = Array.from({ length: ids }, () => gen.centre());
  const data = new Float32Array(n * DIM);
  for (let r = 0; r < n; r++) gen.sample(centres[r % ids]!, data, r * DIM);
  return { data, centres, gen };
}

function exactTop(data: Float32Array, n: number, q: Float32Array, k: number): number[] {
  const best: Array<[number, number]> = [];
  let floor = -Infinity;
  for (let r = 0; r < n; r++) {
    let s = 0;
    const off = r * DIM;
    for (let i = 0; i < DIM; i++) s += (data[off + i] as number) * (q[i] as number);
    if (best.length < k || s > floor) {
      best.push([s, r]);
      best.sort((a, b) => b[0] - a[0]);
      if (best.length > k) best.pop();
      floor = best[best.length - 1]![0];
    }
  }
  return best.map((b) => b[1]);
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function runSize(n: number, opts: { queries: number; recallQueries: number; threads: number; quantization: 'f16' | 'f32' | 'i8'; ef: number; efAdd: number; m: number; latent: number }): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vi-bench-'));
  try {
    const t0 = performance.now();
    const { data, centres, gen } = makeData(n, 5, n, opts.latent);
    const genMs = performance.now() - t0;
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    const index = new EmbeddedVectorIndex({ dir, dimensions: DIM, quantization: opts.quantization, buildThreads: opts.threads, expansionSearch: opts.ef, expansionAdd: opts.efAdd, connectivity: opts.m });
    const batch = 1000;
    const t1 = performance.now();
    for (let off = 0; off < n; off += batch) {
      const recs = [];
      for (let r = off; r < Math.min(n, off + batch); r++) {
        recs.push({ id: `e${r}`, vector: data.subarray(r * DIM, (r + 1) * DIM), payload: { subject_id: `s${r % Math.ceil(n / 5)}` } });
      }
      await index.upsert('bench-tenant', recs);
    }
    const insertMs = performance.now() - t1;
    global.gc?.();
    const rssGrowth = process.memoryUsage().rss - rss0;

    // Queries: fresh samples of enrolled identities.
    const rand = rng(7 * n + 1);
    const queries: Float32Array[] = [];
    for (let qi = 0; qi < opts.queries; qi++) {
      const q = new Float32Array(DIM);
      gen.sample(centres[Math.floor(rand() * centres.length)]!, q, 0);
      queries.push(q);
    }
    // Warm-up, then timed single queries (the API's shape: one probe per request).
    for (let i = 0; i < 20; i++) await index.search('bench-tenant', queries[i % queries.length]!, { k: 10 });
    const lat: number[] = [];
    const results: string[][] = [];
    for (const q of queries) {
      const a = performance.now();
      const res = await index.search('bench-tenant', q, { k: 10 });
      lat.push(performance.now() - a);
      results.push(res.map((m) => m.id));
    }
    lat.sort((a, b) => a - b);
    // Recall@10 against brute force.
    const rq = Math.min(opts.recallQueries, queries.length);
    let hit = 0;
    const tExact = performance.now();
    for (let qi = 0; qi < rq; qi++) {
      const truth = new Set(exactTop(data, n, queries[qi]!, 10).map((r) => `e${r}`));
      hit += results[qi]!.filter((id) => truth.has(id)).length;
    }
    const exactMs = (performance.now() - tExact) / rq;
    await index.close();
    const snaps = readdirSync(path.join(dir, 'hnsw')).map((f) => statSync(path.join(dir, 'hnsw', f)).size);
    const snapBytes = snaps.reduce((a, b) => a + b, 0);
    const dbBytes = readdirSync(dir).filter((f) => f.startsWith('vectors.sqlite')).reduce((a, f) => a + statSync(path.join(dir, f)).size, 0);
    const perM = (b: number) => ((b / n) * 1e6) / 2 ** 20;
    console.log(
      JSON.stringify({
        templates: n,
        dim: DIM,
        quantization: opts.quantization,
        m: opts.m,
        ef_add: opts.efAdd,
        ef_search: opts.ef,
        latent_dim: opts.latent || 'isotropic',
        load_avg_1m: +loadavg()[0]!.toFixed(1),
        data_gen_s: +(genMs / 1000).toFixed(1),
        upsert_per_s: Math.round(n / (insertMs / 1000)),
        search_p50_ms: +pct(lat, 50).toFixed(3),
        search_p95_ms: +pct(lat, 95).toFixed(3),
        search_p99_ms: +pct(lat, 99).toFixed(3),
        recall_at_10: +(hit / (rq * 10)).toFixed(4),
        recall_queries: rq,
        exact_js_ms_per_query: +exactMs.toFixed(1),
        graph_snapshot_mib_per_million: +perM(snapBytes).toFixed(0),
        rss_growth_mib_per_million: +perM(rssGrowth).toFixed(0),
        sqlite_mib_per_million: +perM(dbBytes).toFixed(0),
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const sizes = arg('sizes', '10000,100000,1000000').split(',').map(Number);
const opts = {
  queries: Number(arg('queries', '1000')),
  recallQueries: Number(arg('recall-queries', '100')),
  threads: Number(arg('threads', '2')),
  quantization: arg('quantization', 'f16') as 'f16' | 'f32' | 'i8',
  ef: Number(arg('ef', '256')),
  efAdd: Number(arg('ef-add', '128')),
  m: Number(arg('m', '16')),
  latent: Number(arg('latent', '16')),
};
console.log(`# vector-index bench: embedded adapter, ${DIM}-d, one namespace, node ${process.version}, threads=${opts.threads}`);
for (const n of sizes) await runSize(n, opts);
