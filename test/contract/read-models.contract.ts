import { afterAll, describe, expect, it } from 'vitest';
import type { Doc, ReadModelStore } from '../../infra/ports/read-models.ts';

interface Row extends Record<string, unknown> {
  tenant_id: string;
  n: number;
  at: string;
  ok: boolean;
  tag?: string | null;
}

/**
 * The read-model contract; every adapter runs it unchanged. Each test uses collections with unique
 * names instead of truncating shared ones, so suites may run against a shared database.
 */
export function readModelContract(name: string, factory: () => Promise<ReadModelStore> | ReadModelStore): void {
  describe(`read model contract: ${name}`, () => {
    let store: ReadModelStore | null = null;
    const open = async () => (store ??= await factory());
    afterAll(async () => {
      await store?.close();
    });
    const uniq = (p: string) => `${p}_${Math.random().toString(36).slice(2, 10)}`;

    it('puts, gets, replaces and deletes documents', async () => {
      const s = await open();
      const c = await s.collection<Row>(uniq('docs'), { indexes: ['tenant_id', ['tenant_id', 'at']] });
      expect(await c.get('a')).toBeNull();
      await c.put('a', { tenant_id: 't1', n: 1, at: '2026-01-01T00:00:00.000Z', ok: true });
      expect(await c.get('a')).toEqual({ tenant_id: 't1', n: 1, at: '2026-01-01T00:00:00.000Z', ok: true });
      await c.put('a', { tenant_id: 't1', n: 2, at: '2026-01-01T00:00:00.000Z', ok: false, tag: 'ñ' });
      expect((await c.get('a'))?.n).toBe(2);
      expect((await c.get('a'))?.tag).toBe('ñ');
      expect(await c.delete('a')).toBe(true);
      expect(await c.delete('a')).toBe(false);
    });

    it('gets and puts many documents at once (last entry per id wins)', async () => {
      const s = await open();
      const name = uniq('many');
      const c = await s.collection<Row>(name);
      expect((await c.getMany([])).size).toBe(0);
      const entries: Array<[string, Row]> = Array.from({ length: 1203 }, (_, i) => [`k${i}`, { tenant_id: 't', n: i, at: 'x', ok: i % 2 === 0 }]);
      entries.push(['k7', { tenant_id: 't', n: -7, at: 'y', ok: false }]);
      // A repeated id among the first rows (one multi-row statement in the SQLite adapter): the later document wins.
      entries.splice(10, 0, ['k3', { tenant_id: 't', n: -3, at: 'y', ok: false }]);
      await c.putMany(entries);
      expect(await c.count()).toBe(1203);
      expect((await c.get('k7'))?.n).toBe(-7);
      expect((await c.get('k3'))?.n).toBe(-3);
      const got = await c.getMany(['k0', 'k1202', 'missing', 'k0', 'k7']);
      expect([...got.keys()].sort()).toEqual(['k0', 'k1202', 'k7']);
      expect(got.get('k1202')).toEqual({ tenant_id: 't', n: 1202, at: 'x', ok: true });
      await expect(
        s.transaction(async (tx) => {
          const tc = await tx.collection<Row>(name);
          await tc.putMany([['k0', { tenant_id: 't', n: 100, at: 'x', ok: true }]]);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect((await c.get('k0'))?.n).toBe(0);
    });

    it('filters, sorts, pages and counts', async () => {
      const s = await open();
      const c = await s.collection<Row>(uniq('q'), { indexes: ['tenant_id'] });
      for (let i = 1; i <= 12; i++) {
        await c.put(`id${String(i).padStart(2, '0')}`, {
          tenant_id: i % 2 ? 'odd' : 'even',
          n: i,
          at: `2026-01-${String(i).padStart(2, '0')}T00:00:00.000Z`,
          ok: i % 3 === 0,
          tag: i === 5 ? null : i > 10 ? 'late' : undefined,
        } as Row);
      }
      expect(await c.count()).toBe(12);
      expect(await c.count({ tenant_id: 'odd' })).toBe(6);
      expect(await c.count({ ok: true })).toBe(4);
      expect(await c.count({ n: { $gte: 3, $lt: 7 } })).toBe(4);
      expect(await c.count({ at: { $gte: '2026-01-10T00:00:00.000Z' } })).toBe(3);
      expect(await c.count({ n: { $in: [1, 2, 99] } })).toBe(2);
      expect(await c.count({ n: { $in: [] } })).toBe(0);
      expect(await c.count({ tenant_id: { $ne: 'odd' } })).toBe(6);
      expect(await c.count({ tag: { $exists: true } })).toBe(2);
      expect(await c.count({ tag: null })).toBe(10);
      const page = await c.find({ tenant_id: 'even' }, { sort: [{ field: 'n', order: 'desc' }], limit: 2, offset: 1 });
      expect(page.map((r) => r.n)).toEqual([10, 8]);
      // Numbers sort numerically, not as text.
      const asc = await c.find({}, { sort: [{ field: 'n', order: 'asc' }], limit: 3 });
      expect(asc.map((r) => r.n)).toEqual([1, 2, 3]);
      expect(await c.deleteMany({ tenant_id: 'odd' })).toBe(6);
      expect(await c.count()).toBe(6);
      await expect(c.find({ 'bad field': 1 })).rejects.toThrow();
    });

    it('commits a transaction atomically and rolls it back on error', async () => {
      const s = await open();
      const name = uniq('tx');
      await s.collection<Row>(name);
      await expect(
        s.transaction(async (tx) => {
          const c = await tx.collection<Row>(name);
          await c.put('x', { tenant_id: 't', n: 1, at: '', ok: true });
          await tx.setCheckpoint(name, 10);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      const c = await s.collection<Row>(name);
      expect(await c.get('x')).toBeNull();
      expect(await s.getCheckpoint(name)).toBe(0);
      await s.transaction(async (tx) => {
        const c2 = await tx.collection<Row>(name);
        await c2.put('y', { tenant_id: 't', n: 2, at: '', ok: true });
        await tx.setCheckpoint(name, 11);
      });
      expect((await c.get('y'))?.n).toBe(2);
      expect(await s.getCheckpoint(name)).toBe(11);
    });

    it('putMany keeps every JSON value exactly (quotes, backslashes, Unicode, nesting, numbers, ids with commas)', async () => {
      const s = await open();
      const c = await s.collection<Doc>(uniq('exact'));
      const docs: Array<[string, Doc]> = [
        ['a,"b"\\c {d}', { s: 'he said "hi"\\ {x,y} \n\t', u: 'ñ €  😀', nested: { a: [1, { b: null }], e: {} }, f: 0.1 + 0.2, big: 9007199254740991, neg: -1.5e-7, t: true }],
        ['NULL', { s: 'NULL', empty: '', arr: [] }],
        [' spaced id ', { n: 0 }],
      ];
      await c.putMany(docs);
      const got = await c.getMany(docs.map(([id]) => id));
      for (const [id, doc] of docs) expect(got.get(id)).toEqual(doc);
    });

    it('a checkpoint set inside a transaction is read back in it, commits with the batch, and several projections may checkpoint in one transaction', async () => {
      const s = await open();
      const a = uniq('cpa');
      const b = uniq("cp'b");
      await s.transaction(async (tx) => {
        await tx.setCheckpoint(a, 5);
        expect(await tx.getCheckpoint(a)).toBe(5);
        await tx.setCheckpoint(a, 7);
        await tx.setCheckpoint(b, 3);
        expect(await tx.getCheckpoint(a)).toBe(7);
        const c = await tx.collection<Row>(a);
        await c.putMany([['k', { tenant_id: 't', n: 1, at: '', ok: true }]]);
      });
      expect(await s.getCheckpoint(a)).toBe(7);
      expect(await s.getCheckpoint(b)).toBe(3);
      expect((await (await s.collection<Row>(a)).get('k'))?.n).toBe(1);
      // A later transaction moves it on; outside a transaction it is written at once.
      await s.transaction(async (tx) => tx.setCheckpoint(a, 9));
      expect(await s.getCheckpoint(a)).toBe(9);
      await s.setCheckpoint(a, 12);
      expect(await s.getCheckpoint(a)).toBe(12);
    });

    it('truncates collections for a replay', async () => {
      const s = await open();
      const name = uniq('tr');
      const c = await s.collection<Row>(name);
      await c.put('a', { tenant_id: 't', n: 1, at: '', ok: true });
      await s.truncate([name]);
      expect(await c.count()).toBe(0);
    });
  });
}
