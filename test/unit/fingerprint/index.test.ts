/**
 * The 1:N candidate index (domain/fingerprint/index-lsh.ts), the fast cylinder builder it is benchmarked
 * with (cylinders-fast.ts) and the per-tenant gallery cache (gallery.ts).
 * Synthetic templates: random minutiae (seeded), a "mate" is the same minutiae under a rotation and a
 * translation with 1 px of jitter. The FVC2002 check skips with a printed reason when ../shared/data is absent.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildCylinders } from '../../../domain/fingerprint/mcc.ts';
import { buildCylindersFast } from '../../../domain/fingerprint/cylinders-fast.ts';
import { CandidateIndex, candidateCount, CANDIDATES, indexable, INDEX, MIN_INDEXED } from '../../../domain/fingerprint/index-lsh.ts';
import { GalleryCache } from '../../../domain/fingerprint/gallery.ts';
import { TEMPLATES_COLLECTION, TEMPLATE_INDEXES, type TemplateDoc } from '../../../domain/fingerprint/deps.ts';
import { parseIsoTemplate } from '../../../domain/fingerprint/iso.ts';
import { encodeMinutiae, type Minutia } from '../../../domain/fingerprint/template.ts';
import { mulberry32 } from '../../../domain/shared/mulberry32.ts';
import { SqliteReadModelStore } from '../../../infra/read-models/sqlite/sqlite-read-models.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fvc = path.resolve(repoRoot, '../shared/data/fingerprint/fvc2002');
const haveData = existsSync(fvc);
if (!haveData) console.warn(`index FVC test skipped: ${fvc} is absent`);

/** mulberry32: the same vectors on every run. */
const rng = mulberry32;

function randomMinutiae(r: () => number, n = 40): Minutia[] {
  return Array.from({ length: n }, () => ({ x: 40 + r() * 240, y: 40 + r() * 320, angle: r() * 2 * Math.PI, type: 'ending' as const, quality: 60 }));
}

function mateOf(ms: Minutia[], r: () => number): Minutia[] {
  const a = 0.4, c = Math.cos(a), s = Math.sin(a);
  return ms.map((m) => ({ ...m, x: c * m.x + s * m.y + 30 + (r() - 0.5) * 2, y: -s * m.x + c * m.y + 10 + (r() - 0.5) * 2, angle: m.angle + a }));
}

function gallery(n: number, seed: number): Minutia[][] {
  const r = rng(seed);
  return Array.from({ length: n }, () => randomMinutiae(r));
}

describe('fast cylinders', () => {
  it('equal mcc.ts buildCylinders bit for bit on random templates', () => {
    for (const ms of gallery(20, 7)) {
      const a = buildCylinders({ minutiae: ms }), b = buildCylindersFast({ minutiae: ms });
      expect(b.n).toBe(a.n);
      expect([...b.bits]).toEqual([...a.bits]);
      expect([...b.mask]).toEqual([...a.mask]);
      expect([...b.angle]).toEqual([...a.angle]);
    }
  });

  it.skipIf(!haveData)('equal mcc.ts buildCylinders on the FVC2002 DB1_B ISO templates', () => {
    let cylinders = 0;
    for (let f = 101; f <= 110; f++) for (const i of [1, 5]) {
      const t = parseIsoTemplate(new Uint8Array(readFileSync(path.join(fvc, 'DB1_B', `${f}_${i}.iso`)))).template;
      const a = buildCylinders(t), b = buildCylindersFast(t);
      expect(b.n).toBe(a.n);
      expect(Buffer.from(b.bits.buffer, b.bits.byteOffset, b.bits.byteLength).equals(Buffer.from(a.bits.buffer, a.bits.byteOffset, a.bits.byteLength))).toBe(true);
      cylinders += a.n;
    }
    expect(cylinders).toBeGreaterThan(300);
  });
});

describe('candidate index', () => {
  const sets = gallery(300, 11).map((ms) => buildCylinders({ minutiae: ms }));

  it('ranks the mate of a probe first among 300 templates', () => {
    const index = new CandidateIndex();
    sets.forEach((s, i) => index.add(`t${i}`, s));
    const r = rng(99);
    const src = gallery(300, 11);
    for (const i of [0, 17, 150, 299]) {
      const probe = buildCylinders({ minutiae: mateOf(src[i]!, r) });
      expect(index.candidates(probe, 5)[0]).toBe(`t${i}`);
    }
  });

  it('removes every posting of a deleted template, never returns it and reuses its slot', () => {
    const index = new CandidateIndex();
    sets.slice(0, 50).forEach((s, i) => index.add(`t${i}`, s));
    const before = index.stats().postings;
    const own = index.postingsOf('t7');
    expect(own).toBeGreaterThan(100);
    index.remove('t7');
    expect(index.size).toBe(49);
    expect(index.postingsOf('t7')).toBe(0);
    expect(index.stats().postings).toBe(before - own);
    expect(index.candidates(sets[7]!, 50)).not.toContain('t7');
    index.add('new', sets[7]!);
    expect(index.candidates(sets[7]!, 1)).toEqual(['new']);
    index.remove('unknown');
    expect(index.size).toBe(50);
  });

  it('keeps finding mates after its tables grow, with the same postings', () => {
    const index = new CandidateIndex({ minTableBits: 4, targetLoad: 2 });
    sets.forEach((s, i) => index.add(`t${i}`, s));
    const st = index.stats();
    expect(st.tableBits).toBeGreaterThan(4);
    const fresh = new CandidateIndex({ minTableBits: st.tableBits, targetLoad: 1e9 });
    sets.forEach((s, i) => fresh.add(`t${i}`, s));
    expect(fresh.stats().postings).toBe(st.postings);
    const src = gallery(300, 11);
    expect(index.candidates(buildCylinders({ minutiae: mateOf(src[42]!, rng(5)) }), 3)[0]).toBe('t42');
  });

  it('still indexes a small print whose cylinders are mostly near its border', () => {
    const r = rng(21);
    const ms = Array.from({ length: 10 }, () => ({ x: 200 + r() * 60, y: 200 + r() * 60, angle: r() * 2 * Math.PI, type: 'ending' as const, quality: 60 }));
    const set = buildCylinders({ minutiae: ms });
    let strict = 0;
    for (let c = 0; c < set.n; c++) if (indexable(set, c, INDEX)) strict++;
    expect(set.n).toBeGreaterThan(0);
    expect(strict).toBeLessThan(MIN_INDEXED);
    const index = new CandidateIndex();
    sets.slice(0, 20).forEach((s, i) => index.add(`t${i}`, s));
    index.add('small', set);
    expect(index.postingsOf('small')).toBeGreaterThan(0);
    expect(index.candidates(set, 1)).toEqual(['small']);
    index.remove('small');
    expect(index.postingsOf('small')).toBe(0);
  });

  it('adapts the candidate list to the gallery', () => {
    expect(candidateCount(100)).toBe(100);
    expect(candidateCount(10_000)).toBe(CANDIDATES.min);
    expect(candidateCount(60_000)).toBe(Math.round(CANDIDATES.share * 60_000));
    expect(candidateCount(10_000_000)).toBe(CANDIDATES.max);
  });

  it('refuses more min-hashes than it has', () => {
    expect(() => new CandidateIndex({ bands: 64, rows: 3 })).toThrow(/at most 128/);
  });
});

describe('gallery cache', () => {
  it("never returns another tenant's templates, and drops deleted ones from the index", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fp-index-'));
    const store = new SqliteReadModelStore(path.join(dir, 'rm.sqlite'));
    const col = await store.collection<TemplateDoc>(TEMPLATES_COLLECTION, { indexes: TEMPLATE_INDEXES });
    const src = gallery(40, 3);
    let pos = 0;
    const doc = (id: string, tenant: string, ms: Minutia[]): TemplateDoc => ({
      id, tenant_id: tenant, subject_id: `s-${id}`, finger_position: 1, width: 400, height: 500, minutiae_b64: encodeMinutiae(ms),
      minutiae_count: ms.length, quality_score: 60, template_version: 'sello-mcc-1', source: 'iso', metadata: {}, created_at: '2026-01-01T00:00:00.000Z',
      is_active: true, deleted_at: null, verification_count: 0, last_verified_at: null, enrolled_position: ++pos, changed_position: pos, last_verification_position: 0,
    });
    for (let i = 0; i < 20; i++) await col.put(`a${i}`, doc(`a${i}`, 'tenant-a', src[i]!));
    for (let i = 20; i < 40; i++) await col.put(`b${i}`, doc(`b${i}`, 'tenant-b', src[i]!));
    const cache = new GalleryCache(store);
    const ga = await cache.sync('tenant-a');
    const gb = await cache.sync('tenant-b');
    expect(ga.entries.size).toBe(20);
    expect(gb.entries.size).toBe(20);
    // A probe that is tenant B's template: tenant A's index has no way to return it.
    const probeB = buildCylinders({ minutiae: mateOf(src[25]!, rng(1)) });
    const fromA = ga.index.candidates(probeB, 40);
    expect(fromA.every((id) => id.startsWith('a'))).toBe(true);
    expect(gb.index.candidates(probeB, 1)).toEqual(['b25']);
    // Deleting b25 (the projection marks it inactive and moves changed_position) removes its postings.
    await col.put('b25', { ...doc('b25', 'tenant-b', src[25]!), is_active: false, deleted_at: '2026-01-02T00:00:00.000Z', changed_position: ++pos });
    const gb2 = await cache.sync('tenant-b');
    expect(gb2.entries.has('b25')).toBe(false);
    expect(gb2.index.postingsOf('b25')).toBe(0);
    expect(gb2.index.candidates(probeB, 40)).not.toContain('b25');
    await store.close();
  });
});

