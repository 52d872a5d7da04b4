/**
 * Face-matching use cases over the real embedded adapters (SQLite event store, SQLite read models,
 * usearch/SQLite vector index) and the real projection, with synthetic templates. No HTTP here: the
 * API tests cover the routes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../../infra/event-store/sqlite/sqlite-event-store.ts';
import { SqliteReadModelStore } from '../../../infra/read-models/sqlite/sqlite-read-models.ts';
import { EmbeddedVectorIndex } from '../../../infra/vector-index/embedded/index.ts';
import { faceEmbeddingsProjection } from '../../../projections/face-embeddings/face-embeddings.ts';
import { ProjectionRunner } from '../../../projections/runner.ts';
import type { FaceMatchingDeps } from '../../../domain/face-matching/deps.ts';
import { enrollFace, parseMetadata } from '../../../domain/face-matching/enroll-face.ts';
import { searchFaces } from '../../../domain/face-matching/search-faces.ts';
import { verifySubject } from '../../../domain/face-matching/verify-subject.ts';
import { listEmbeddings } from '../../../domain/face-matching/list-embeddings.ts';
import { deleteEmbedding, purgeEmbeddings } from '../../../domain/face-matching/delete-embeddings.ts';
import { FaceMatchingError } from '../../../domain/face-matching/errors.ts';
import { cosineForThreshold } from '../../../domain/face-matching/template.ts';
import { randomUnit, rng } from '../../contract/vector-index.contract.ts';

const DIM = 512;

/** A template whose cosine with `base` is exactly `c` (base and an orthogonal random direction). */
function withCosine(base: Float32Array, c: number, rand: () => number): Float32Array {
  const r = randomUnit(DIM, rand);
  let d = 0;
  for (let i = 0; i < DIM; i++) d += (r[i] as number) * (base[i] as number);
  const o = new Float32Array(DIM);
  let n = 0;
  for (let i = 0; i < DIM; i++) {
    o[i] = (r[i] as number) - d * (base[i] as number);
    n += (o[i] as number) ** 2;
  }
  const s = Math.sqrt(1 - c * c) / Math.sqrt(n);
  return Float32Array.from(base, (x, i) => c * x + s * (o[i] as number));
}

interface World {
  deps: FaceMatchingDeps;
  dir: string;
  /** Rebuilds the projection from the log, optionally only up to `upTo` (a rebuild in progress). */
  replay(upTo?: number): Promise<void>;
  close(): Promise<void>;
}

async function world(): Promise<World> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fm-'));
  const events = new SqliteEventStore(path.join(dir, 'events.sqlite'));
  const readModels = new SqliteReadModelStore(path.join(dir, 'rm.sqlite'));
  const vectorIndex = new EmbeddedVectorIndex({ dir: path.join(dir, 'vectors'), dimensions: DIM });
  const p = faceEmbeddingsProjection;
  const applyFrom = async (from: number, upTo = Infinity): Promise<void> => {
    let pos = from;
    for (;;) {
      const batch = (await events.readAll({ fromPosition: pos, maxCount: 100 })).filter((e) => e.globalPosition <= upTo);
      if (batch.length === 0) return;
      pos = batch[batch.length - 1]!.globalPosition;
      const wanted = batch.filter((e) => p.eventTypes.includes(e.type));
      await readModels.transaction(async (tx) => {
        if (wanted.length) await p.apply(wanted, { store: tx, vectorIndex });
        await tx.setCheckpoint(p.name, pos);
      });
    }
  };
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const deps: FaceMatchingDeps = {
    events,
    readModels,
    vectorIndex,
    catchUp: async () => applyFrom(await readModels.getCheckpoint(p.name)),
    now: () => (clock += 1000),
    newId: () => `emb_${randomUUID().replace(/-/g, '')}`,
  };
  return {
    deps,
    dir,
    async replay(upTo) {
      if (upTo === undefined) {
        // The platform's own replay (what `npm run cli -- replay` runs).
        await ProjectionRunner.replay(events, [p], { store: readModels, vectorIndex });
        return;
      }
      await p.reset!({ store: readModels, vectorIndex });
      await readModels.truncate(p.collections);
      await readModels.setCheckpoint(p.name, 0);
      await applyFrom(0, upTo);
    },
    async close() {
      await vectorIndex.close();
      await readModels.close();
      await events.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const base = { qualityScore: 0.9, livenessScore: 0.8, livenessComputed: false, enrollmentSource: 'web', metadata: { label: 'x' } };

describe('face-matching use cases', () => {
  let w: World;
  beforeEach(async () => {
    w = await world();
  });
  afterEach(async () => {
    await w.close();
  });

  it('enrolls, then searches best first above the threshold with the spec fields', async () => {
    const rand = rng(1);
    const alice = randomUnit(DIM, rand);
    const bob = randomUnit(DIM, rand);
    const a1 = await enrollFace(w.deps, { ...base, tenantId: 'A', subjectId: 'alice', template: alice });
    const a2 = await enrollFace(w.deps, { ...base, tenantId: 'A', subjectId: 'alice', template: withCosine(alice, cosineForThreshold(0.75), rand), enrollmentSource: null });
    await enrollFace(w.deps, { ...base, tenantId: 'A', subjectId: 'bob', template: bob });
    expect(a1).toMatchObject({ subjectId: 'alice', embeddingDimension: 512 });
    const probe = alice;
    const { matches, threshold } = await searchFaces(w.deps, { tenantId: 'A', template: probe });
    expect(threshold).toBe(0.6);
    expect(matches.map((m) => m.id)).toEqual([a1.embeddingId, a2.embeddingId]);
    expect(matches[0]).toEqual({
      id: a1.embeddingId,
      subject_id: 'alice',
      similarity: expect.any(Number),
      quality_score: 0.9,
      liveness_score: 0.8,
      enrollment_source: 'web',
      metadata: { label: 'x' },
      created_at: a1.createdAt,
    });
    expect(matches[0]!.similarity).toBeGreaterThan(matches[1]!.similarity);
    for (const m of matches) expect(m.similarity).toBeGreaterThanOrEqual(0.6);
    // threshold 0 returns everything (bob too), limit caps it, threshold 1 returns nothing.
    expect((await searchFaces(w.deps, { tenantId: 'A', template: probe, threshold: 0 })).matches).toHaveLength(3);
    expect((await searchFaces(w.deps, { tenantId: 'A', template: probe, threshold: 0, limit: 1 })).matches).toHaveLength(1);
    expect((await searchFaces(w.deps, { tenantId: 'A', template: probe, threshold: 1 })).matches).toHaveLength(0);
    await expect(searchFaces(w.deps, { tenantId: 'A', template: probe, threshold: 1.5 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(searchFaces(w.deps, { tenantId: 'A', template: probe, limit: 0 })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('verifies against the best of a subject\'s embeddings and counts successes in the listing', async () => {
    const rand = rng(2);
    const alice = randomUnit(DIM, rand);
    const e1 = await enrollFace(w.deps, { ...base, tenantId: 'A', subjectId: 'alice', template: alice });
    const e2 = await enrollFace(w.deps, { ...base, tenantId: 'A', subjectId: 'alice', template: withCosine(alice, 0.3, rand), enrollmentSource: 'branch' });
    const ok = await verifySubject(w.deps, { tenantId: 'A', subjectId: 'alice', template: withCosine(alice, cosineForThreshold(0.9), rand) });
    expect(ok).toMatchObject({ verified: true, threshold: 0.6, embeddingId: e1.embeddingId, enrollmentSource: 'web' });
    const weak = await verifySubject(w.deps, { tenantId: 'A', subjectId: 'alice', template: withCosine(alice, cosineForThreshold(0.3), rand) });
    expect(weak.verified).toBe(false);
    expect(weak.similarity).toBeLessThan(0.6);
    const listed = await listEmbeddings(w.deps, { tenantId: 'A', subjectId: 'alice' });
    const one = listed.find((d) => d.id === e1.embeddingId)!;
    expect(one.verification_count).toBe(1);
    expect(one.last_verified_at).toEqual(expect.any(String));
    expect(listed.find((d) => d.id === e2.embeddingId)!.verification_count).toBe(0);
    await expect(verifySubject(w.deps, { tenantId: 'A', subjectId: 'nobody', template: alice })).rejects.toMatchObject({ code: 'subject_not_found' });
  });

  it('keeps tenants apart on every operation, even with known ids', async () => {
    const rand = rng(3);
    const t = randomUnit(DIM, rand);
    const a = await enrollFace(w.deps, { ...base, tenantId: 'A', subjectId: 'shared-subject', template: t });
    const b = await enrollFace(w.deps, { ...base, tenantId: 'B', subjectId: 'other', template: withCosine(t, 0.2, rand) });
    expect((await searchFaces(w.deps, { tenantId: 'B', template: t, threshold: 0 })).matches.map((m) => m.id)).toEqual([b.embeddingId]);
    await expect(verifySubject(w.deps, { tenantId: 'B', subjectId: 'shared-subject', template: t })).rejects.toMatchObject({ code: 'subject_not_found' });
    expect((await listEmbeddings(w.deps, { tenantId: 'B' })).map((d) => d.id)).toEqual([b.embeddingId]);
    await expect(deleteEmbedding(w.deps, { tenantId: 'B', embeddingId: a.embeddingId })).rejects.toMatchObject({ code: 'embedding_not_found' });
    await purgeEmbeddings(w.deps, { tenantId: 'B', subjectId: 'shared-subject' });
    await purgeEmbeddings(w.deps, { tenantId: 'B' });
    expect((await searchFaces(w.deps, { tenantId: 'A', template: t })).matches.map((m) => m.id)).toEqual([a.embeddingId]);
    expect(await listEmbeddings(w.deps, { tenantId: 'B' })).toEqual([]);
  });

  it('deletes by id, by subject and all; deleted embeddings are never returned and stay listed as inactive', async () => {
    const rand = rng(4);
    const ts = Array.from({ length: 4 }, () => randomUnit(DIM, rand));
    const e = [];
    for (const [i, t] of ts.entries()) e.push(await enrollFace(w.deps, { ...base, tenantId: 'A', subjectId: i < 2 ? 's1' : `s${i}`, template: t }));
    await deleteEmbedding(w.deps, { tenantId: 'A', embeddingId: e[0]!.embeddingId });
    await expect(deleteEmbedding(w.deps, { tenantId: 'A', embeddingId: e[0]!.embeddingId })).rejects.toMatchObject({ code: 'embedding_not_found' });
    await expect(deleteEmbedding(w.deps, { tenantId: 'A', embeddingId: '../../etc' })).rejects.toMatchObject({ code: 'embedding_not_found' });
    expect((await searchFaces(w.deps, { tenantId: 'A', template: ts[0]!, threshold: 0 })).matches.map((m) => m.id)).not.toContain(e[0]!.embeddingId);
    expect(await purgeEmbeddings(w.deps, { tenantId: 'A', subjectId: 's1' })).toBe(1);
    await expect(verifySubject(w.deps, { tenantId: 'A', subjectId: 's1', template: ts[1]! })).rejects.toMatchObject({ code: 'subject_not_found' });
    expect((await listEmbeddings(w.deps, { tenantId: 'A' })).map((d) => d.subject_id).sort()).toEqual(['s2', 's3']);
    const all = await listEmbeddings(w.deps, { tenantId: 'A', activeOnly: false });
    expect(all).toHaveLength(4);
    expect(all.filter((d) => !d.is_active).every((d) => d.deleted_at !== null)).toBe(true);
    expect(await purgeEmbeddings(w.deps, { tenantId: 'A' })).toBe(2);
    expect((await searchFaces(w.deps, { tenantId: 'A', template: ts[2]!, threshold: 0 })).matches).toEqual([]);
    expect(await w.deps.vectorIndex.count('face:A')).toBe(0);
    // Enrolling after a purge works again (the purge covers only what came before it).
    const again = await enrollFace(w.deps, { ...base, tenantId: 'A', subjectId: 's2', template: ts[2]! });
    expect((await searchFaces(w.deps, { tenantId: 'A', template: ts[2]! })).matches.map((m) => m.id)).toEqual([again.embeddingId]);
  });

  it('replay rebuilds the listing and the index exactly', async () => {
    const rand = rng(5);
    const ts = Array.from({ length: 6 }, () => randomUnit(DIM, rand));
    const ids: string[] = [];
    for (const [i, t] of ts.entries()) ids.push((await enrollFace(w.deps, { ...base, tenantId: i % 2 ? 'A' : 'B', subjectId: `s${i}`, template: t })).embeddingId);
    await verifySubject(w.deps, { tenantId: 'A', subjectId: 's1', template: ts[1]! });
    await verifySubject(w.deps, { tenantId: 'A', subjectId: 's1', template: ts[1]! });
    await deleteEmbedding(w.deps, { tenantId: 'A', embeddingId: ids[3]! });
    await purgeEmbeddings(w.deps, { tenantId: 'B', subjectId: 's0' });
    const snapshot = async () => ({
      a: await listEmbeddings(w.deps, { tenantId: 'A', activeOnly: false }),
      b: await listEmbeddings(w.deps, { tenantId: 'B', activeOnly: false }),
      search: await Promise.all(ts.map((t, i) => searchFaces(w.deps, { tenantId: i % 2 ? 'A' : 'B', template: t, threshold: 0 }))),
      counts: [await w.deps.vectorIndex.count('face:A'), await w.deps.vectorIndex.count('face:B')],
    });
    const before = await snapshot();
    expect(before.a.find((d) => d.id === ids[1])!.verification_count).toBe(2);
    expect(before.counts).toEqual([2, 2]);
    await w.replay();
    expect(await snapshot()).toEqual(before);
  });

  it('never returns a deleted embedding from an index that is being rebuilt', async () => {
    const rand = rng(6);
    const t = randomUnit(DIM, rand);
    const gone = await enrollFace(w.deps, { ...base, tenantId: 'A', subjectId: 'victim', template: t });
    const purged = await enrollFace(w.deps, { ...base, tenantId: 'A', subjectId: 'purged', template: withCosine(t, 0.97, rand) });
    const kept = await enrollFace(w.deps, { ...base, tenantId: 'A', subjectId: 'kept', template: withCosine(t, 0.95, rand) });
    const lastEnroll = await w.deps.events.headPosition();
    await deleteEmbedding(w.deps, { tenantId: 'A', embeddingId: gone.embeddingId });
    await purgeEmbeddings(w.deps, { tenantId: 'A', subjectId: 'purged' });
    // A rebuild stopped after the enrollments: the index and listing still hold the deleted ones.
    await w.replay(lastEnroll);
    expect(await w.deps.vectorIndex.count('face:A')).toBe(3);
    const { matches } = await searchFaces(w.deps, { tenantId: 'A', template: t, threshold: 0 });
    expect(matches.map((m) => m.id)).toEqual([kept.embeddingId]);
    await expect(verifySubject(w.deps, { tenantId: 'A', subjectId: 'victim', template: t })).rejects.toMatchObject({ code: 'subject_not_found' });
    await expect(verifySubject(w.deps, { tenantId: 'A', subjectId: 'purged', template: t })).rejects.toMatchObject({ code: 'subject_not_found' });
    expect(purged.embeddingId).not.toBe(kept.embeddingId);
  });

  it('validates subject ids, scores and metadata', async () => {
    const t = randomUnit(DIM, rng(7));
    for (const subjectId of ['', 'x'.repeat(257), 'a\u0000b']) {
      await expect(enrollFace(w.deps, { ...base, tenantId: 'A', subjectId, template: t })).rejects.toBeInstanceOf(FaceMatchingError);
    }
    await expect(enrollFace(w.deps, { ...base, tenantId: 'A', subjectId: 's', template: t, qualityScore: 1.2 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(enrollFace(w.deps, { ...base, tenantId: 'A', subjectId: 's', template: t.subarray(1) })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(parseMetadata('{"label":"a","n":1}')).toEqual({ label: 'a', n: 1 });
    expect(parseMetadata(undefined)).toEqual({});
    for (const bad of ['[1]', '"s"', '12', 'null', '{bad', 'x'.repeat(20_000)]) expect(() => parseMetadata(bad)).toThrow(FaceMatchingError);
  });
});
