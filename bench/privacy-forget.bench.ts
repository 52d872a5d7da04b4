/**
 * What forgetting raw bytes costs (issue 28, docs/privacy.md "Raw bytes"): SQLite's `secure_delete` on the
 * read models (zeros written over freed space on every update and delete), the read models' WAL checkpoint
 * after an erasure, and an embedded vector-index deletion (secure_delete, WAL checkpoint, snapshot shred).
 *
 *   node --import tsx bench/privacy-forget.bench.ts [--docs 20000] [--vectors 5000] [--deletes 50]
 *
 * Read models: `--docs` documents of about 450 bytes (a usage row's size) inserted with `putMany` in
 * batches of 500, then every one rewritten once (`put` of an existing id: what counters and scrubs do), on
 * a store with `secure_delete` ON (as shipped) and one with it turned OFF, alternating three rounds; best
 * of each. Vector index: a namespace of `--vectors` 512-d vectors, then `--deletes` single deletions; each
 * deletion's time includes its checkpoint and the snapshot shred. Prints one JSON line per figure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { SqliteReadModelStore } from '../infra/read-models/sqlite/sqlite-read-models.ts';
import { EmbeddedVectorIndex } from '../infra/vector-index/embedded/index.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const DOCS = arg('docs', 20_000);
const VECTORS = arg('vectors', 5_000);
const DELETES = arg('deletes', 50);

const doc = (i: number, v: number) => ({ tenant_id: `t${i % 20}`, created_at: new Date(1_700_000_000_000 + i).toISOString(), endpoint: '/v1/face-matching/search', ip_address: `10.0.${i % 250}.${v}`, user_agent: 'bench/1.0 '.repeat(30), status: 200, credits: 1, v });

async function readModels(secureDelete: boolean): Promise<{ insertMs: number; rewriteMs: number; forgetMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'forget-rm-'));
  const store = new SqliteReadModelStore(join(dir, 'read-models.sqlite'));
  (store as unknown as { db: { pragma(s: string): unknown } }).db.pragma(`secure_delete = ${secureDelete ? 'ON' : 'OFF'}`);
  const col = await store.collection('bench_docs', { indexes: [['tenant_id', 'created_at']] });
  let t = performance.now();
  for (let i = 0; i < DOCS; i += 500) await col.putMany(Array.from({ length: Math.min(500, DOCS - i) }, (_, k) => [`d${i + k}`, doc(i + k, 1)] as const));
  const insertMs = performance.now() - t;
  t = performance.now();
  for (let i = 0; i < DOCS; i += 500) await col.putMany(Array.from({ length: Math.min(500, DOCS - i) }, (_, k) => [`d${i + k}`, doc(i + k, 2)] as const));
  const rewriteMs = performance.now() - t;
  t = performance.now();
  await store.forget(['bench_docs']);
  const forgetMs = performance.now() - t;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return { insertMs, rewriteMs, forgetMs };
}

function unit(seed: number): Float32Array {
  const v = new Float32Array(512);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < 512; i++) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    v[i] = ((s >>> 0) / 2 ** 32) - 0.5;
  }
  return v;
}

async function vectorDeletes(): Promise<{ p50: number; p95: number; upsertP50: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'forget-vi-'));
  const index = new EmbeddedVectorIndex({ dir, dimensions: 512 });
  for (let i = 0; i < VECTORS; i += 1000) await index.upsert('face:bench', Array.from({ length: Math.min(1000, VECTORS - i) }, (_, k) => ({ id: `v${i + k}`, vector: unit(i + k + 1), payload: { subject_id: `s${i + k}` } })));
  await index.close(); // writes the snapshot, which the first deletion shreds
  const reopened = new EmbeddedVectorIndex({ dir, dimensions: 512 });
  await reopened.search('face:bench', unit(1), { k: 1 });
  const del: number[] = [];
  const up: number[] = [];
  for (let i = 0; i < DELETES; i++) {
    let t = performance.now();
    await reopened.upsert('face:bench', [{ id: `n${i}`, vector: unit(VECTORS + i + 1), payload: { subject_id: `n${i}` } }]);
    up.push(performance.now() - t);
    t = performance.now();
    await reopened.delete('face:bench', [`v${i * 7}`]);
    del.push(performance.now() - t);
  }
  await reopened.close();
  rmSync(dir, { recursive: true, force: true });
  const pct = (a: number[], p: number) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(p * a.length))]!;
  return { p50: pct(del, 0.5), p95: pct(del, 0.95), upsertP50: pct(up, 0.5) };
}

const best = { on: { insertMs: Infinity, rewriteMs: Infinity, forgetMs: Infinity }, off: { insertMs: Infinity, rewriteMs: Infinity, forgetMs: Infinity } };
for (let round = 0; round < 3; round++) {
  for (const mode of ['off', 'on'] as const) {
    const r = await readModels(mode === 'on');
    for (const k of ['insertMs', 'rewriteMs', 'forgetMs'] as const) best[mode][k] = Math.min(best[mode][k], r[k]);
  }
}
const f = (x: number) => Number(x.toFixed(1));
console.log(JSON.stringify({ bench: 'read-models secure_delete', docs: DOCS, off: { insert_ms: f(best.off.insertMs), rewrite_ms: f(best.off.rewriteMs) }, on: { insert_ms: f(best.on.insertMs), rewrite_ms: f(best.on.rewriteMs), forget_ms: f(best.on.forgetMs) }, rewrite_ratio: Number((best.on.rewriteMs / best.off.rewriteMs).toFixed(3)), insert_ratio: Number((best.on.insertMs / best.off.insertMs).toFixed(3)), load: loadavg()[0]!.toFixed(1) }));
const v = await vectorDeletes();
console.log(JSON.stringify({ bench: 'vector-index deletion', vectors: VECTORS, deletes: DELETES, delete_p50_ms: f(v.p50), delete_p95_ms: f(v.p95), upsert_p50_ms: f(v.upsertP50), load: loadavg()[0]!.toFixed(1) }));
