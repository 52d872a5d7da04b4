/**
 * Embedded vector-index adapter: one HNSW graph per namespace (tenant) in process memory, built with
 * `usearch` (Unum, Apache-2.0, prebuilt N-API binary from npm), with every vector persisted in SQLite.
 *
 * Layout under `dir`:
 * - `vectors.sqlite`: the source of truth. `vectors(ns, id, key, vec f32 blob, payload json)`, one row per
 *   record; `payload_kv(ns, field, value, id)` indexes payload values for filtered queries; `ns_meta(ns,
 *   gen, snap_gen, next_key)` counts writes per namespace (`gen`) so a process notices writes made by
 *   another process (the operator CLI's replay) and reloads that namespace.
 * - `hnsw/<hex(ns)>.usearch`: graph snapshots written on `close()`; loaded when `snap_gen == gen`,
 *   otherwise the graph is rebuilt from the SQLite rows (a crash never loses vectors, only the snapshot).
 *
 * Deletion forgets the bytes (issue 28, docs/privacy.md "Raw bytes"): SQLite runs with `secure_delete`
 * (freed cells and pages are overwritten with zeros) and a deletion ends with `wal_checkpoint(TRUNCATE)`,
 * so neither `vectors.sqlite` nor its WAL keeps a deleted vector; the namespace's snapshot is overwritten
 * with zeros and removed, and a graph that had vectors removed is not saved on `close()` (usearch's
 * `remove` only marks a node, and `save` writes its f16 bytes still): the next start rebuilds the graph
 * from the rows and saves that clean graph on its own `close()`.
 *
 * Isolation: each namespace has its own graph and its own SQL rows, and every query names the namespace
 * in the graph lookup and the SQL `WHERE`; a query can never reach another namespace's vectors.
 *
 * Search: unfiltered queries walk the namespace's HNSW graph (Malkov & Yashunin 2018, "Efficient and
 * robust approximate nearest neighbor search using Hierarchical Navigable Small World graphs"), take
 * `max(3k, k + 32)` candidates and re-score them exactly on the stored float32 vectors, so returned scores
 * are exact cosines and quantisation (f16 by default) only affects which candidates are found. Filtered
 * queries select the matching ids through `payload_kv` inside the namespace and score them exactly.
 * Namespaces smaller than `exactBelow` are always searched exactly.
 */
import { openSqlite } from '../../shared/sqlite.ts';
import { closeSync, existsSync, fstatSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import usearch from 'usearch';
import {
  InvalidVectorError,
  InvalidVectorQueryError,
  type VectorIndex,
  type VectorMatch,
  type VectorRecord,
} from '../../ports/vector-index.ts';

type Payload = Record<string, string | number | boolean | null>;

export interface EmbeddedVectorIndexOptions {
  /** Directory for `vectors.sqlite` and the graph snapshots; created when absent. */
  dir: string;
  /** Length of every vector (512 for face templates). */
  dimensions: number;
  /** Graph vector storage: `f32` (4 B/dim), `f16` (2 B/dim, default), `i8` (1 B/dim). */
  quantization?: 'f32' | 'f16' | 'i8';
  /** HNSW M: links per node (default 16). */
  connectivity?: number;
  /** HNSW efConstruction (default 128). */
  expansionAdd?: number;
  /** HNSW efSearch (default 256; recall@10 >= 0.95 in `bench/vector-index.bench.ts`). */
  expansionSearch?: number;
  /** Namespaces with fewer vectors than this are searched exactly (default 512). */
  exactBelow?: number;
  /** Threads usearch may use for bulk graph builds (default 1; the machine is shared). */
  buildThreads?: number;
}

interface Namespace {
  index: InstanceType<typeof usearch.Index>;
  /** HNSW key -> record id. */
  keyToId: Map<number, string>;
  gen: number;
  dirty: boolean;
  /** The graph still holds the bytes of removed nodes (usearch marks them): never saved as a snapshot. */
  holdsRemoved: boolean;
}

interface Row {
  id: string;
  key: number;
  vec: Buffer;
  payload: string;
}

/** Largest `k` accepted by `search` (a guard against accidental huge allocations). */
export const MAX_K = 10_000;

/**
 * Validates `vector` against `dimensions` and returns an L2-normalised float32 copy.
 * Raises {@link InvalidVectorError} on a wrong length, a non-finite component or a zero vector.
 */
export function normaliseVector(vector: Float32Array | readonly number[], dimensions: number): Float32Array {
  if (!(vector instanceof Float32Array) && !Array.isArray(vector)) throw new InvalidVectorError('vector must be a Float32Array or an array of numbers');
  if (vector.length !== dimensions) throw new InvalidVectorError(`vector has ${vector.length} dimensions, expected ${dimensions}`);
  const out = new Float32Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    const v = vector[i] as number;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidVectorError(`vector component ${i} is not a finite number`);
    out[i] = v;
    norm += v * v;
  }
  if (!(norm > 0) || !Number.isFinite(norm)) throw new InvalidVectorError('vector has zero (or overflowing) length and cannot be normalised');
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) out[i] = (out[i] as number) * inv;
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

function blobToVector(buf: Buffer): Float32Array {
  // Copy: better-sqlite3 buffers are not guaranteed to be 4-byte aligned.
  const copy = new Uint8Array(buf.byteLength);
  copy.set(buf);
  return new Float32Array(copy.buffer);
}

function checkNamespace(ns: string): void {
  if (typeof ns !== 'string' || ns.length === 0 || ns.length > 512) throw new InvalidVectorQueryError('namespace must be a non-empty string of at most 512 characters');
}

function checkPayload(payload: unknown): Payload {
  if (payload === undefined) return {};
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new InvalidVectorQueryError('payload must be an object');
  for (const [k, v] of Object.entries(payload)) {
    if (v !== null && typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
      throw new InvalidVectorQueryError(`payload field ${k} must be a string, number, boolean or null`);
    }
  }
  return payload as Payload;
}

/** Payload values are indexed as their JSON text, so `1` and `"1"` stay distinct. */
function kvValue(v: string | number | boolean): string {
  return JSON.stringify(v);
}

/**
 * The embedded adapter of {@link VectorIndex}. Single-writer per namespace within a process; several
 * processes may share `dir` (SQLite WAL), each reloading a namespace when another process changed it.
 */
export class EmbeddedVectorIndex implements VectorIndex {
  private readonly db: Database.Database;
  private readonly spaces = new Map<string, Namespace>();
  private readonly opts: Required<EmbeddedVectorIndexOptions>;
  private closed = false;
  private readonly st;

  constructor(options: EmbeddedVectorIndexOptions) {
    if (!Number.isInteger(options.dimensions) || options.dimensions <= 0) throw new InvalidVectorQueryError('dimensions must be a positive integer');
    this.opts = {
      quantization: 'f16',
      connectivity: 16,
      expansionAdd: 128,
      expansionSearch: 256,
      exactBelow: 512,
      buildThreads: 1,
      ...options,
    };
    mkdirSync(path.join(options.dir, 'hnsw'), { recursive: true });
    // 16 KiB pages hold seven 2 KiB float32 rows; with the default 4 KiB only one fits (half the file empty).
    // secure_delete: a deleted vector's bytes are overwritten in the file and the WAL (see the module
    // comment). Cost: zeros written over freed space on deletes and replacements only.
    this.db = openSqlite(path.join(options.dir, 'vectors.sqlite'), { pageSize: 16384, secureDelete: true });
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS ns_meta (ns TEXT PRIMARY KEY, gen INTEGER NOT NULL, snap_gen INTEGER NOT NULL, next_key INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS vectors (ns TEXT NOT NULL, id TEXT NOT NULL, key INTEGER NOT NULL, vec BLOB NOT NULL, payload TEXT NOT NULL, PRIMARY KEY (ns, id));
      CREATE UNIQUE INDEX IF NOT EXISTS vectors_ns_key ON vectors (ns, key);
      CREATE TABLE IF NOT EXISTS payload_kv (ns TEXT NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (ns, field, value, id));
      CREATE INDEX IF NOT EXISTS payload_kv_id ON payload_kv (ns, id);
    `);
    const dimRow = this.db.prepare(`SELECT value FROM settings WHERE name = 'dimensions'`).get() as { value: string } | undefined;
    if (dimRow && Number(dimRow.value) !== options.dimensions) {
      this.db.close();
      throw new InvalidVectorQueryError(`index at ${options.dir} holds ${dimRow.value}-d vectors, opened with ${options.dimensions}`);
    }
    if (!dimRow) this.db.prepare(`INSERT INTO settings (name, value) VALUES ('dimensions', ?)`).run(String(options.dimensions));
    this.st = {
      meta: this.db.prepare(`SELECT gen, snap_gen, next_key FROM ns_meta WHERE ns = ?`),
      insertMeta: this.db.prepare(`INSERT OR IGNORE INTO ns_meta (ns, gen, snap_gen, next_key) VALUES (?, 0, -1, 1)`),
      bumpGen: this.db.prepare(`UPDATE ns_meta SET gen = gen + 1 WHERE ns = ?`),
      takeKeys: this.db.prepare(`UPDATE ns_meta SET next_key = next_key + ? WHERE ns = ? RETURNING next_key`),
      setSnap: this.db.prepare(`UPDATE ns_meta SET snap_gen = ? WHERE ns = ?`),
      getRow: this.db.prepare(`SELECT id, key FROM vectors WHERE ns = ? AND id = ?`),
      insertRow: this.db.prepare(`INSERT OR REPLACE INTO vectors (ns, id, key, vec, payload) VALUES (?, ?, ?, ?, ?)`),
      deleteRow: this.db.prepare(`DELETE FROM vectors WHERE ns = ? AND id = ?`),
      insertKv: this.db.prepare(`INSERT OR IGNORE INTO payload_kv (ns, field, value, id) VALUES (?, ?, ?, ?)`),
      deleteKv: this.db.prepare(`DELETE FROM payload_kv WHERE ns = ? AND id = ?`),
      allRows: this.db.prepare(`SELECT id, key, vec FROM vectors WHERE ns = ? ORDER BY key`),
      allKeys: this.db.prepare(`SELECT id, key FROM vectors WHERE ns = ?`),
      rowByKey: this.db.prepare(`SELECT id, key, vec, payload FROM vectors WHERE ns = ? AND key = ?`),
      count: this.db.prepare(`SELECT COUNT(*) AS n FROM vectors WHERE ns = ?`),
      dropRows: this.db.prepare(`DELETE FROM vectors WHERE ns = ?`),
      dropKv: this.db.prepare(`DELETE FROM payload_kv WHERE ns = ?`),
    };
  }

  private snapshotPath(ns: string): string {
    return path.join(this.opts.dir, 'hnsw', `${Buffer.from(ns, 'utf8').toString('hex')}.usearch`);
  }

  private newGraph(): InstanceType<typeof usearch.Index> {
    return new usearch.Index({
      dimensions: this.opts.dimensions,
      metric: usearch.MetricKind.Cos,
      quantization: this.opts.quantization as never,
      connectivity: this.opts.connectivity,
      expansion_add: this.opts.expansionAdd,
      expansion_search: this.opts.expansionSearch,
      multi: false,
    });
  }

  private metaOf(ns: string): { gen: number; snap_gen: number; next_key: number } | undefined {
    return this.st.meta.get(ns) as { gen: number; snap_gen: number; next_key: number } | undefined;
  }

  /** Returns the namespace's in-memory graph, (re)loading it when absent or changed by another process. */
  private space(ns: string): Namespace {
    if (this.closed) throw new Error('vector index is closed');
    const meta = this.metaOf(ns);
    const gen = meta?.gen ?? 0;
    const cached = this.spaces.get(ns);
    if (cached && cached.gen === gen) return cached;
    const loaded = this.load(ns, meta);
    this.spaces.set(ns, loaded);
    return loaded;
  }

  private load(ns: string, meta: { gen: number; snap_gen: number } | undefined): Namespace {
    const graph = this.newGraph();
    const keyToId = new Map<number, string>();
    const snap = this.snapshotPath(ns);
    if (meta && meta.snap_gen === meta.gen && existsSync(snap)) {
      try {
        graph.load(snap);
        for (const r of this.st.allKeys.iterate(ns) as IterableIterator<{ id: string; key: number }>) keyToId.set(r.key, r.id);
        if (graph.size() === keyToId.size) return { index: graph, keyToId, gen: meta.gen, dirty: false, holdsRemoved: false };
      } catch {
        // A torn or foreign snapshot: fall through and rebuild from the rows.
      }
      keyToId.clear();
    }
    const fresh = this.newGraph();
    const dim = this.opts.dimensions;
    const batch = 4096;
    let keys = new BigUint64Array(batch);
    let mat = new Float32Array(batch * dim);
    let n = 0;
    const flush = (): void => {
      if (n === 0) return;
      fresh.add(keys.subarray(0, n), mat.subarray(0, n * dim), this.opts.buildThreads);
      keys = new BigUint64Array(batch);
      mat = new Float32Array(batch * dim);
      n = 0;
    };
    for (const r of this.st.allRows.iterate(ns) as IterableIterator<Row>) {
      keyToId.set(r.key, r.id);
      keys[n] = BigInt(r.key);
      mat.set(blobToVector(r.vec), n * dim);
      n++;
      if (n === batch) flush();
    }
    flush();
    return { index: fresh, keyToId, gen: meta?.gen ?? 0, dirty: true, holdsRemoved: false };
  }

  async upsert(namespace: string, records: readonly VectorRecord[]): Promise<void> {
    checkNamespace(namespace);
    if (!Array.isArray(records)) throw new InvalidVectorQueryError('records must be an array');
    if (records.length === 0) return;
    const prepared = records.map((r) => {
      if (!r || typeof r.id !== 'string' || r.id.length === 0 || r.id.length > 512) throw new InvalidVectorQueryError('record id must be a non-empty string of at most 512 characters');
      return { id: r.id, vec: normaliseVector(r.vector, this.opts.dimensions), payload: checkPayload(r.payload) };
    });
    // Last write wins within one batch.
    const byId = new Map(prepared.map((p) => [p.id, p]));
    const space = this.space(namespace);
    const removedKeys: number[] = [];
    const added: Array<{ key: number; id: string; vec: Float32Array }> = [];
    const tx = this.db.transaction(() => {
      this.st.insertMeta.run(namespace);
      const { next_key: end } = this.st.takeKeys.get(byId.size, namespace) as { next_key: number };
      let key = end - byId.size;
      for (const p of byId.values()) {
        const old = this.st.getRow.get(namespace, p.id) as { id: string; key: number } | undefined;
        if (old) {
          removedKeys.push(old.key);
          this.st.deleteKv.run(namespace, p.id);
        }
        this.st.insertRow.run(namespace, p.id, key, Buffer.from(p.vec.buffer, p.vec.byteOffset, p.vec.byteLength), JSON.stringify(p.payload));
        for (const [field, value] of Object.entries(p.payload)) {
          if (value !== null) this.st.insertKv.run(namespace, field, kvValue(value), p.id);
        }
        added.push({ key, id: p.id, vec: p.vec });
        key++;
      }
      this.st.bumpGen.run(namespace);
    });
    const genBefore = space.gen;
    tx();
    const genAfter = this.metaOf(namespace)?.gen ?? 0;
    if (genAfter !== genBefore + 1) {
      // Another process wrote to this namespace since we loaded it: reload it from the rows next time
      // rather than patching a graph that misses its writes.
      this.spaces.delete(namespace);
      return;
    }
    for (const k of removedKeys) {
      space.index.remove(BigInt(k));
      space.keyToId.delete(k);
    }
    if (removedKeys.length > 0) space.holdsRemoved = true;
    const dim = this.opts.dimensions;
    const keys = new BigUint64Array(added.length);
    const mat = new Float32Array(added.length * dim);
    added.forEach((a, i) => {
      keys[i] = BigInt(a.key);
      mat.set(a.vec, i * dim);
      space.keyToId.set(a.key, a.id);
    });
    space.index.add(keys, mat, added.length > 256 ? this.opts.buildThreads : 1);
    space.gen = genAfter;
    space.dirty = true;
  }

  async delete(namespace: string, ids: readonly string[]): Promise<number> {
    checkNamespace(namespace);
    if (!Array.isArray(ids)) throw new InvalidVectorQueryError('ids must be an array');
    const space = this.space(namespace);
    const removed: number[] = [];
    const tx = this.db.transaction(() => {
      for (const id of new Set(ids)) {
        if (typeof id !== 'string') continue;
        const row = this.st.getRow.get(namespace, id) as { id: string; key: number } | undefined;
        if (!row) continue;
        this.st.deleteRow.run(namespace, id);
        this.st.deleteKv.run(namespace, id);
        removed.push(row.key);
      }
      if (removed.length > 0) this.st.bumpGen.run(namespace);
    });
    const genBefore = space.gen;
    tx();
    if (removed.length === 0) return 0;
    const genAfter = this.metaOf(namespace)?.gen ?? 0;
    if (genAfter !== genBefore + 1) {
      this.spaces.delete(namespace);
      await this.forgetBytes(namespace);
      return removed.length;
    }
    for (const k of removed) {
      space.index.remove(BigInt(k));
      space.keyToId.delete(k);
    }
    space.gen = genBefore + 1;
    space.dirty = true;
    space.holdsRemoved = true;
    await this.forgetBytes(namespace);
    return removed.length;
  }

  async dropNamespace(namespace: string): Promise<void> {
    checkNamespace(namespace);
    const tx = this.db.transaction(() => {
      this.st.dropRows.run(namespace);
      this.st.dropKv.run(namespace);
      // Keep next_key: keys are never reused within a namespace.
      this.st.bumpGen.run(namespace);
    });
    tx();
    this.spaces.delete(namespace);
    await this.forgetBytes(namespace);
  }

  /**
   * After a deletion: the namespace's snapshot (which held the deleted vectors in f16) is overwritten with
   * zeros and removed, and the WAL is checkpointed and truncated, so no file under `dir` keeps a deleted
   * vector (with `secure_delete` the database file's freed space is zeroed already). A checkpoint that
   * another connection's open read keeps from finishing is retried for up to about a second; if it still
   * cannot reset the WAL, the next checkpoint (the next deletion or SQLite's automatic one after 1000
   * pages) overwrites those frames.
   */
  private async forgetBytes(namespace: string): Promise<void> {
    shredFile(this.snapshotPath(namespace));
    for (let attempt = 0; attempt < 20 && !this.closed; attempt++) {
      const [r] = this.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      if (!r || r.busy === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async search(
    namespace: string,
    vector: Float32Array | readonly number[],
    options: { k: number; filter?: Record<string, string | number | boolean> },
  ): Promise<VectorMatch[]> {
    checkNamespace(namespace);
    const k = options?.k;
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw new InvalidVectorQueryError(`k must be an integer from 1 to ${MAX_K}`);
    const q = normaliseVector(vector, this.opts.dimensions);
    const space = this.space(namespace);
    const filter = options.filter;
    if (filter !== undefined && (filter === null || typeof filter !== 'object' || Array.isArray(filter))) throw new InvalidVectorQueryError('filter must be an object');
    if (filter && Object.keys(filter).length > 0) return this.filteredExact(namespace, q, k, filter);
    if (space.keyToId.size < this.opts.exactBelow) return this.exactAll(namespace, q, k);
    const want = Math.min(space.keyToId.size, Math.max(3 * k, k + 32));
    const res = space.index.search(q, want, 1);
    const candidates: Row[] = [];
    for (let i = 0; i < res.keys.length; i++) {
      const key = Number(res.keys[i]);
      if (!space.keyToId.has(key)) continue;
      const row = this.st.rowByKey.get(namespace, key) as Row | undefined;
      if (row) candidates.push(row);
    }
    return topK(candidates.map((r) => toMatch(r, dot(q, blobToVector(r.vec)))), k);
  }

  private exactAll(namespace: string, q: Float32Array, k: number): VectorMatch[] {
    const rows = this.db.prepare(`SELECT id, key, vec, payload FROM vectors WHERE ns = ?`).all(namespace) as Row[];
    return topK(rows.map((r) => toMatch(r, dot(q, blobToVector(r.vec)))), k);
  }

  private filteredExact(namespace: string, q: Float32Array, k: number, filter: Record<string, string | number | boolean>): VectorMatch[] {
    const entries = Object.entries(filter);
    const params: unknown[] = [namespace];
    const joins = entries.map(([field, value], i) => {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw new InvalidVectorQueryError(`filter field ${field} must be a string, number or boolean`);
      params.push(field, kvValue(value));
      return `JOIN payload_kv f${i} ON f${i}.ns = v.ns AND f${i}.id = v.id AND f${i}.field = ? AND f${i}.value = ?`;
    });
    // The namespace is part of the row selection itself (v.ns = ?), never a filter on results.
    const sql = `SELECT v.id, v.key, v.vec, v.payload FROM vectors v ${joins.join(' ')} WHERE v.ns = ?`;
    const rows = this.db.prepare(sql).all(...params.slice(1), namespace) as Row[];
    return topK(rows.map((r) => toMatch(r, dot(q, blobToVector(r.vec)))), k);
  }

  async count(namespace: string): Promise<number> {
    checkNamespace(namespace);
    return (this.st.count.get(namespace) as { n: number }).n;
  }

  async listNamespaces(prefix = ''): Promise<string[]> {
    if (typeof prefix !== 'string') throw new InvalidVectorQueryError('prefix must be a string');
    const rows = this.db.prepare(`SELECT DISTINCT ns FROM vectors WHERE substr(ns, 1, ?) = ? ORDER BY ns`).all(prefix.length, prefix) as Array<{ ns: string }>;
    return rows.map((r) => r.ns);
  }

  /** Writes graph snapshots of the namespaces changed since they were loaded, then closes SQLite. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [ns, space] of this.spaces) {
      const meta = this.metaOf(ns);
      // A graph holding removed nodes would write their bytes: the next start rebuilds it from the rows.
      if (!meta || meta.gen !== space.gen || !space.dirty || space.holdsRemoved || space.keyToId.size === 0) continue;
      const file = this.snapshotPath(ns);
      try {
        space.index.save(`${file}.tmp`);
        renameSync(`${file}.tmp`, file);
        this.st.setSnap.run(space.gen, ns);
      } catch {
        // A snapshot is an optimisation; the rows rebuild the graph next time.
      }
    }
    this.spaces.clear();
    this.db.close();
  }
}

function toMatch(r: Row, score: number): VectorMatch {
  return { id: r.id, score: Math.max(-1, Math.min(1, score)), payload: JSON.parse(r.payload) as Payload };
}

function topK(matches: VectorMatch[], k: number): VectorMatch[] {
  matches.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return matches.slice(0, k);
}

/**
 * Overwrites the file at `file` (when present) with zeros, flushes it and removes it. On a copy-on-write
 * file system or an SSD's remapped blocks the device may still hold the old blocks; the files no longer do.
 */
export function shredFile(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'r+');
  } catch {
    return; // absent
  }
  try {
    const size = fstatSync(fd).size;
    const zeros = Buffer.alloc(Math.min(size, 1 << 20));
    for (let at = 0; at < size; at += zeros.length) writeSync(fd, zeros, 0, Math.min(zeros.length, size - at), at);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  rmSync(file, { force: true });
}

/** Opens (creating when absent) the embedded vector index under `options.dir`. */
export function openEmbeddedVectorIndex(options: EmbeddedVectorIndexOptions): EmbeddedVectorIndex {
  return new EmbeddedVectorIndex(options);
}
