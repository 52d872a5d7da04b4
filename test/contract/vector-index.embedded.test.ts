import { mkdtempSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddedVectorIndex } from '../../infra/vector-index/embedded/index.ts';
import { InvalidVectorQueryError } from '../../infra/ports/vector-index.ts';
import { randomUnit, rng, vectorIndexContract } from './vector-index.contract.ts';
import { f16Window, f32Window, scanDirs, type Needle } from '../helpers/byte-scan.ts';

vectorIndexContract('embedded (usearch HNSW + SQLite)', async ({ dimensions }) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vi-'));
  // exactBelow small so the contract exercises the HNSW path, not only the exact one.
  const make = () => new EmbeddedVectorIndex({ dir, dimensions, exactBelow: 64 });
  const index = make();
  const opened = [index];
  return {
    index,
    reopen: async () => {
      const i = make();
      opened.push(i);
      return i;
    },
    dispose: async () => {
      for (const i of opened) await i.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('embedded vector index: storage', () => {
  it('sees writes made through another handle on the same directory (the CLI replay case)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vi-'));
    const a = new EmbeddedVectorIndex({ dir, dimensions: 16, exactBelow: 4 });
    const b = new EmbeddedVectorIndex({ dir, dimensions: 16, exactBelow: 4 });
    try {
      const rand = rng(11);
      const vs = Array.from({ length: 20 }, (_, i) => ({ id: `v${i}`, vector: randomUnit(16, rand) }));
      await a.upsert('t', vs);
      expect((await b.search('t', vs[5]!.vector, { k: 1 }))[0]!.id).toBe('v5');
      await b.delete('t', ['v5']);
      expect((await a.search('t', vs[5]!.vector, { k: 20 })).map((m) => m.id)).not.toContain('v5');
      await b.dropNamespace('t');
      expect(await a.search('t', vs[6]!.vector, { k: 5 })).toEqual([]);
      // Interleaved writers: a's next write must not hide b's write from a's own graph.
      await a.upsert('t', vs.slice(0, 10));
      await b.upsert('t', vs.slice(10, 20));
      await a.upsert('t', [vs[0]!]);
      expect((await a.search('t', vs[15]!.vector, { k: 1 }))[0]!.id).toBe('v15');
      await b.delete('t', ['v15']);
      await a.delete('t', ['v0']);
      expect((await a.search('t', vs[15]!.vector, { k: 20 })).map((m) => m.id)).not.toContain('v15');
      expect(await a.count('t')).toBe(18);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes a graph snapshot on close and reuses it; a stale snapshot is rebuilt from the rows', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vi-'));
    try {
      const rand = rng(12);
      const vs = Array.from({ length: 300 }, (_, i) => ({ id: `v${i}`, vector: randomUnit(32, rand) }));
      const a = new EmbeddedVectorIndex({ dir, dimensions: 32, exactBelow: 8 });
      await a.upsert('tenant/ü', vs);
      await a.close();
      expect(readdirSync(path.join(dir, 'hnsw')).filter((f) => f.endsWith('.usearch'))).toHaveLength(1);
      const b = new EmbeddedVectorIndex({ dir, dimensions: 32, exactBelow: 8 });
      expect((await b.search('tenant/ü', vs[9]!.vector, { k: 1 }))[0]!.id).toBe('v9');
      await b.delete('tenant/ü', ['v9']);
      await b.close();
      const c = new EmbeddedVectorIndex({ dir, dimensions: 32, exactBelow: 8 });
      expect((await c.search('tenant/ü', vs[9]!.vector, { k: 300 })).map((m) => m.id)).not.toContain('v9');
      await c.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a deleted vector leaves every file: the SQLite file, its WAL and the f16 snapshot (issue 28)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vi-'));
    const opened: EmbeddedVectorIndex[] = [];
    const open = () => {
      const i = new EmbeddedVectorIndex({ dir, dimensions: 64, exactBelow: 8 });
      opened.push(i);
      return i;
    };
    try {
      const rand = rng(13);
      const vs = Array.from({ length: 40 }, (_, i) => ({ id: `v${i}`, vector: randomUnit(64, rand) }));
      const needles = (n: number): Needle[] => [
        { name: `v${n} f32`, bytes: f32Window(vs[n]!.vector, 20, 16) },
        { name: `v${n} f16`, bytes: f16Window(vs[n]!.vector, 20, 16) },
      ];
      const a = open();
      await a.upsert('t', vs);
      await a.close();
      // Positive control: both renderings are found while the vector is enrolled (f16 in the snapshot).
      expect(scanDirs([dir], needles(9)).map((h) => h.needle).sort()).toEqual(['v9 f16', 'v9 f32']);
      const b = open();
      expect((await b.search('t', vs[9]!.vector, { k: 1 }))[0]!.id).toBe('v9'); // loads the snapshot
      expect(await b.delete('t', ['v9'])).toBe(1);
      // While the handle is open (WAL, free pages) and after it closed: gone; the other vectors stay.
      expect(scanDirs([dir], needles(9))).toEqual([]);
      await b.close();
      expect(scanDirs([dir], needles(9))).toEqual([]);
      const c = open();
      expect((await c.search('t', vs[9]!.vector, { k: 40 })).map((m) => m.id)).not.toContain('v9');
      await c.close(); // the graph rebuilt from the rows is saved again, without v9
      expect(readdirSync(path.join(dir, 'hnsw')).filter((f) => f.endsWith('.usearch'))).toHaveLength(1);
      expect(scanDirs([dir], needles(9))).toEqual([]);
      expect(scanDirs([dir], needles(10)).map((h) => h.needle).sort()).toEqual(['v10 f16', 'v10 f32']);
      // dropNamespace forgets the bytes too.
      const d = open();
      await d.dropNamespace('t');
      expect(scanDirs([dir], needles(10))).toEqual([]);
      await d.close();
    } finally {
      for (const i of opened) await i.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to open a directory holding vectors of another dimension', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vi-'));
    try {
      const a = new EmbeddedVectorIndex({ dir, dimensions: 8 });
      await a.close();
      expect(() => new EmbeddedVectorIndex({ dir, dimensions: 9 })).toThrow(InvalidVectorQueryError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
