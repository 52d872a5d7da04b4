/**
 * Contract suite of the vector-index port (`infra/ports/vector-index.ts`). Every adapter (embedded,
 * Qdrant) runs it unchanged: `vectorIndexContract('embedded', factory)` from a `*.test.ts` file.
 *
 * The factory opens a fresh, empty index of `dimensions`; `reopen` (when the adapter persists) closes
 * nothing itself and opens a second handle on the same storage, to check durability.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidVectorError, InvalidVectorQueryError, type VectorIndex } from '../../infra/ports/vector-index.ts';
import { mulberry32 } from '../../domain/shared/mulberry32.ts';

export interface VectorIndexFixture {
  index: VectorIndex;
  /** Opens another handle on the same storage (after the caller closed `index`). */
  reopen?: () => Promise<VectorIndex>;
  /** Removes the storage. */
  dispose: () => Promise<void>;
}

export type VectorIndexFactory = (options: { dimensions: number }) => Promise<VectorIndexFixture>;

/** Deterministic pseudo-random generator (mulberry32) so every run sees the same vectors. */
export const rng = mulberry32;

/** A unit vector with standard-normal components (Box-Muller). */
export function randomUnit(dim: number, rand: () => number): Float32Array {
  const v = new Float32Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) {
    const x = Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
    v[i] = x;
    n += x * x;
  }
  const inv = 1 / Math.sqrt(n);
  for (let i = 0; i < dim; i++) v[i] = (v[i] as number) * inv;
  return v;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

/** `base` moved towards a random direction by `amount` (0 = same vector), renormalised. */
function near(base: Float32Array, amount: number, rand: () => number): Float32Array {
  const noise = randomUnit(base.length, rand);
  const v = new Float32Array(base.length);
  let n = 0;
  for (let i = 0; i < base.length; i++) {
    v[i] = (base[i] as number) + amount * (noise[i] as number);
    n += (v[i] as number) ** 2;
  }
  for (let i = 0; i < base.length; i++) v[i] = (v[i] as number) / Math.sqrt(n);
  return v;
}

export function vectorIndexContract(name: string, factory: VectorIndexFactory): void {
  describe(`vector-index contract: ${name}`, () => {
    const DIM = 64;
    let fixtures: VectorIndexFixture[] = [];
    const open = async (dimensions = DIM): Promise<VectorIndexFixture> => {
      const f = await factory({ dimensions });
      fixtures.push(f);
      return f;
    };
    afterEach(async () => {
      for (const f of fixtures) await f.dispose();
      fixtures = [];
    });

    it('returns the nearest vectors best first, with cosine scores and payloads', async () => {
      const { index } = await open();
      const rand = rng(1);
      const a = randomUnit(DIM, rand);
      const far = randomUnit(DIM, rand);
      await index.upsert('t1', [
        { id: 'a', vector: a, payload: { subject_id: 's-a', n: 1, ok: true, none: null } },
        { id: 'a-near', vector: near(a, 0.3, rand), payload: { subject_id: 's-a' } },
        { id: 'far', vector: far, payload: { subject_id: 's-far' } },
      ]);
      const res = await index.search('t1', a, { k: 3 });
      expect(res.map((m) => m.id)).toEqual(['a', 'a-near', 'far']);
      expect(res[0]!.score).toBeCloseTo(1, 4);
      expect(res[1]!.score).toBeGreaterThan(res[2]!.score);
      expect(res[2]!.score).toBeCloseTo(cosine(a, far), 3);
      expect(res[0]!.payload).toEqual({ subject_id: 's-a', n: 1, ok: true, none: null });
      expect(await index.count('t1')).toBe(3);
    });

    it('normalises its input: a scaled vector scores like the unit one', async () => {
      const { index } = await open();
      const rand = rng(2);
      const a = randomUnit(DIM, rand);
      await index.upsert('t1', [{ id: 'a', vector: Array.from(a, (x) => x * 7.5) }]);
      const [m] = await index.search('t1', Array.from(a, (x) => x * 0.01), { k: 1 });
      expect(m!.id).toBe('a');
      expect(m!.score).toBeCloseTo(1, 4);
    });

    it('keeps namespaces apart inside the query, even with equal ids and closer vectors elsewhere', async () => {
      const { index } = await open();
      const rand = rng(3);
      const q = randomUnit(DIM, rand);
      await index.upsert('tenant-A', [{ id: 'same', vector: near(q, 1.5, rand), payload: { owner: 'A' } }]);
      await index.upsert('tenant-B', [
        { id: 'same', vector: q, payload: { owner: 'B' } },
        { id: 'b2', vector: near(q, 0.1, rand), payload: { owner: 'B' } },
      ]);
      const a = await index.search('tenant-A', q, { k: 10 });
      expect(a).toHaveLength(1);
      expect(a[0]!.payload.owner).toBe('A');
      expect(a[0]!.score).toBeLessThan(0.99);
      expect(await index.search('tenant-C', q, { k: 10 })).toEqual([]);
      // A payload filter naming the other tenant's values still stays inside the namespace.
      expect(await index.search('tenant-A', q, { k: 10, filter: { owner: 'B' } })).toEqual([]);
      // Deleting in A does not touch B's record with the same id.
      expect(await index.delete('tenant-A', ['same', 'b2'])).toBe(1);
      expect(await index.count('tenant-A')).toBe(0);
      expect(await index.count('tenant-B')).toBe(2);
      await index.dropNamespace('tenant-A');
      expect(await index.count('tenant-B')).toBe(2);
    });

    it('never returns a deleted vector, and counts only real deletions', async () => {
      const { index } = await open();
      const rand = rng(4);
      const recs = Array.from({ length: 50 }, (_, i) => ({ id: `v${i}`, vector: randomUnit(DIM, rand), payload: { subject_id: `s${i % 5}` } }));
      await index.upsert('t', recs);
      expect(await index.delete('t', ['v3', 'v3', 'missing'])).toBe(1);
      expect(await index.delete('t', ['v3'])).toBe(0);
      const res = await index.search('t', recs[3]!.vector, { k: 50 });
      expect(res.map((m) => m.id)).not.toContain('v3');
      expect(res).toHaveLength(49);
      const filtered = await index.search('t', recs[3]!.vector, { k: 50, filter: { subject_id: 's3' } });
      expect(filtered.map((m) => m.id).sort()).toEqual(['v8', 'v13', 'v18', 'v23', 'v28', 'v33', 'v38', 'v43', 'v48'].sort());
      expect(await index.count('t')).toBe(49);
    });

    it('upsert replaces the vector and payload of an existing id', async () => {
      const { index } = await open();
      const rand = rng(5);
      const a = randomUnit(DIM, rand);
      const b = randomUnit(DIM, rand);
      await index.upsert('t', [{ id: 'x', vector: a, payload: { v: 1 } }]);
      await index.upsert('t', [{ id: 'x', vector: b, payload: { v: 2 } }]);
      expect(await index.count('t')).toBe(1);
      const [m] = await index.search('t', b, { k: 5 });
      expect(m).toMatchObject({ id: 'x', payload: { v: 2 } });
      expect(m!.score).toBeCloseTo(1, 4);
      expect(await index.search('t', b, { k: 5, filter: { v: 1 } })).toEqual([]);
      // Exact filter values: the number 2 is not the string "2".
      expect(await index.search('t', b, { k: 5, filter: { v: '2' } })).toEqual([]);
      expect((await index.search('t', b, { k: 5, filter: { v: 2 } })).map((r) => r.id)).toEqual(['x']);
    });

    it('filters by several payload fields at once, scoring only the matching vectors', async () => {
      const { index } = await open();
      const rand = rng(6);
      const q = randomUnit(DIM, rand);
      await index.upsert('t', [
        { id: 'best-wrong-subject', vector: q, payload: { subject_id: 'other', active: true } },
        { id: 'ok', vector: near(q, 0.8, rand), payload: { subject_id: 'alice', active: true } },
        { id: 'inactive', vector: near(q, 0.2, rand), payload: { subject_id: 'alice', active: false } },
      ]);
      const res = await index.search('t', q, { k: 10, filter: { subject_id: 'alice', active: true } });
      expect(res.map((m) => m.id)).toEqual(['ok']);
    });

    it('lists the namespaces that hold vectors, by prefix', async () => {
      const { index } = await open();
      const rand = rng(10);
      await index.upsert('face:t2', [{ id: 'a', vector: randomUnit(DIM, rand) }]);
      await index.upsert('face:t1', [{ id: 'a', vector: randomUnit(DIM, rand) }]);
      await index.upsert('finger:t1', [{ id: 'a', vector: randomUnit(DIM, rand) }]);
      await index.upsert('face:t3', [{ id: 'a', vector: randomUnit(DIM, rand) }]);
      await index.delete('face:t3', ['a']);
      expect(await index.listNamespaces('face:')).toEqual(['face:t1', 'face:t2']);
      expect(await index.listNamespaces()).toEqual(['face:t1', 'face:t2', 'finger:t1']);
      await index.dropNamespace('face:t1');
      expect(await index.listNamespaces('face:')).toEqual(['face:t2']);
    });

    it('dropNamespace removes every vector of the namespace', async () => {
      const { index } = await open();
      const rand = rng(7);
      await index.upsert('t', Array.from({ length: 20 }, (_, i) => ({ id: `v${i}`, vector: randomUnit(DIM, rand) })));
      await index.dropNamespace('t');
      expect(await index.count('t')).toBe(0);
      expect(await index.search('t', randomUnit(DIM, rand), { k: 5 })).toEqual([]);
      await index.upsert('t', [{ id: 'v0', vector: randomUnit(DIM, rand) }]);
      expect(await index.count('t')).toBe(1);
    });

    it('finds the true nearest neighbour in a namespace large enough for an approximate index', async () => {
      const { index } = await open();
      const rand = rng(8);
      const N = 3000;
      const recs = Array.from({ length: N }, (_, i) => ({ id: `v${i}`, vector: randomUnit(DIM, rand) }));
      for (let i = 0; i < N; i += 500) await index.upsert('big', recs.slice(i, i + 500));
      let hits = 0;
      for (let qi = 0; qi < 50; qi++) {
        const target = recs[(qi * 61) % N]!;
        const res = await index.search('big', near(target.vector as Float32Array, 0.2, rand), { k: 5 });
        if (res[0]?.id === target.id) hits++;
        for (let i = 1; i < res.length; i++) expect(res[i - 1]!.score).toBeGreaterThanOrEqual(res[i]!.score);
      }
      expect(hits).toBeGreaterThanOrEqual(49);
      // Deleting from a large namespace is honoured by the approximate path too.
      const victim = recs[17]!;
      await index.delete('big', [victim.id]);
      const after = await index.search('big', victim.vector, { k: 10 });
      expect(after.map((m) => m.id)).not.toContain(victim.id);
    });

    it('rejects wrong dimensions, non-finite and zero vectors, and bad k', async () => {
      const { index } = await open();
      const bad: Array<readonly number[]> = [new Array(DIM - 1).fill(0.1), [...new Array(DIM - 1).fill(0.1), Number.NaN], new Array(DIM).fill(0), [...new Array(DIM - 1).fill(0.1), Infinity]];
      for (const v of bad) {
        await expect(index.upsert('t', [{ id: 'x', vector: v }])).rejects.toBeInstanceOf(InvalidVectorError);
        await expect(index.search('t', v, { k: 1 })).rejects.toBeInstanceOf(InvalidVectorError);
      }
      const ok = new Array(DIM).fill(1);
      for (const k of [0, -1, 1.5, Number.NaN, 1e9]) {
        await expect(index.search('t', ok, { k })).rejects.toBeInstanceOf(InvalidVectorQueryError);
      }
      await expect(index.upsert('', [{ id: 'x', vector: ok }])).rejects.toBeInstanceOf(InvalidVectorQueryError);
      await expect(index.upsert('t', [{ id: '', vector: ok }])).rejects.toBeInstanceOf(InvalidVectorQueryError);
      // A failed batch writes nothing.
      await expect(index.upsert('t', [{ id: 'good', vector: ok }, { id: 'bad', vector: [1] }])).rejects.toBeInstanceOf(InvalidVectorError);
      expect(await index.count('t')).toBe(0);
    });

    it('keeps its contents across a close and reopen', async () => {
      const f = await open();
      if (!f.reopen) return;
      const rand = rng(9);
      const recs = Array.from({ length: 700 }, (_, i) => ({ id: `v${i}`, vector: randomUnit(DIM, rand), payload: { subject_id: `s${i % 7}` } }));
      await f.index.upsert('p', recs);
      await f.index.delete('p', ['v1']);
      await f.index.close();
      const again = await f.reopen();
      try {
        expect(await again.count('p')).toBe(699);
        const res = await again.search('p', recs[2]!.vector, { k: 3 });
        expect(res[0]!.id).toBe('v2');
        expect((await again.search('p', recs[1]!.vector, { k: 700 })).map((m) => m.id)).not.toContain('v1');
        expect((await again.search('p', recs[2]!.vector, { k: 200, filter: { subject_id: 's2' } })).length).toBe(100);
      } finally {
        await again.close();
      }
    });
  });
}
