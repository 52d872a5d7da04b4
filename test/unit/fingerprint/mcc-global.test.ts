/**
 * The global stage of the MCC matcher (mcc.ts `globalScore`: pair selection, relaxation, efficiency
 * top-nP, geometric verification) against its frozen reference (test/helpers/mcc-global-reference.ts, the
 * code of 1f28577 before the speed-up): every score must be identical (===) on the FVC2002 ISO templates
 * (DB1_B-DB4_B), our extractor's DB1_B templates and generated ones (sizes 0-150), under every option set,
 * in calls alternating sizes (scratch buffers), and on made-up local similarities with many ties (the
 * greedy assignment's and the top-k's tie-break). FVC checks skip with a printed reason when
 * ../shared/data is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildCylinders, globalScore, localPairs, matchCylinders, MATCH_DEFAULTS, type CylinderSet, type LocalPairs, type MatchOptions } from '../../../domain/fingerprint/mcc.ts';
import { extractMinutiae } from '../../../domain/fingerprint/extract.ts';
import { decodeFingerprint } from '../../../models/fingerprint/image.ts';
import { createRng } from '../../generators/rng.ts';
import { generatedMinutiae, isoCylinderSets } from '../../helpers/fingerprint-sets.ts';
import { referenceGlobalScore } from '../../helpers/mcc-global-reference.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fvc = path.resolve(repoRoot, '../shared/data/fingerprint/fvc2002');
const haveData = existsSync(fvc);
if (!haveData) console.warn(`mcc-global FVC tests skipped: ${fvc} is absent`);

const OPTIONS: Array<Readonly<MatchOptions>> = [
  MATCH_DEFAULTS,
  { selection: 'lss', reversible: false, deltaTheta: Math.PI / 2 },
  { ...MATCH_DEFAULTS, reversible: true },
  { selection: 'lss', reversible: true, deltaTheta: Math.PI / 2, verify: true },
];

/** New and reference global scores of A against B on the same local similarities; also checks matchCylinders. */
function both(A: CylinderSet, B: CylinderSet, opts: Readonly<MatchOptions>): [number, number] {
  const p = localPairs(A, B, opts);
  const ref = referenceGlobalScore(A, B, p, opts);
  const got = globalScore(A, B, p, opts);
  if (got !== ref) expect.fail(`globalScore ${got} !== reference ${ref}, nA ${A.n}, nB ${B.n}, ${p.count} pairs, ${JSON.stringify(opts)}`);
  const full = matchCylinders(A, B, opts);
  if (full !== ref) expect.fail(`matchCylinders ${full} !== reference ${ref}, nA ${A.n}, nB ${B.n}, ${JSON.stringify(opts)}`);
  return [got, ref];
}

/** Every ordered pair of `sets` under every option set; returns how many scored > 0. */
function expectIdentical(sets: CylinderSet[]): number {
  let positive = 0;
  for (const opts of OPTIONS) for (const A of sets) for (const B of sets) if (both(A, B, opts)[0] > 0) positive++;
  return positive;
}

const generated = generatedMinutiae;

/** Made-up local similarities of A against B: about `share` of the pairs, values from `levels` (ties), in the order i then j. */
function tiedPairs(A: CylinderSet, B: CylinderSet, seed: number, share: number, levels: number[]): LocalPairs {
  const r = createRng(seed);
  const val: number[] = [], idx: number[] = [], turned: number[] = [];
  for (let i = 0; i < A.n; i++) for (let j = 0; j < B.n; j++) {
    if (r.next() >= share) continue;
    val.push(levels[r.int(0, levels.length - 1)]!);
    idx.push(i * B.n + j);
    turned.push(r.next() < 0.2 ? 1 : 0);
  }
  return { count: val.length, val: Float32Array.from(val), idx: Int32Array.from(idx), turned: Uint8Array.from(turned) };
}

describe('MCC global stage (selection, relaxation, verification)', () => {
  const gen: CylinderSet[] = [];
  const shapes: Array<[number, number, number]> = [[0, 300, 400], [3, 300, 400], [12, 160, 160], [25, 200, 260], [40, 300, 400], [60, 260, 300], [90, 400, 500], [150, 500, 560]];
  shapes.forEach(([n, w, h], k) => {
    for (const weight of [0, 0.5]) gen.push(buildCylinders({ minutiae: generated(1000 + k, n, w, h) }, { reversedNeighbourWeight: weight }));
  });

  it('gives the reference scores on generated templates, sizes 0-150, every option set', () => {
    expect(gen.some((s) => s.n > 100)).toBe(true);
    expect(expectIdentical(gen)).toBeGreaterThan(100);
  });

  it('gives the reference scores on made-up local similarities with many ties', () => {
    const sets = gen.filter((s) => s.n > 0);
    let positive = 0, t = 0;
    for (const A of sets) for (const B of sets) for (const [share, levels] of [[0.3, [0.5]], [0.5, [0.25, 0.5, 0.75]], [0.9, [0.1, 0.2, 0.3, 0.9]], [0.05, [1]]] as const) {
      const p = tiedPairs(A, B, 31 * t++, share, [...levels]);
      for (const opts of OPTIONS) {
        const ref = referenceGlobalScore(A, B, p, opts);
        const got = globalScore(A, B, p, opts);
        if (got !== ref) expect.fail(`globalScore ${got} !== reference ${ref}, nA ${A.n}, nB ${B.n}, ${p.count} tied pairs, ${JSON.stringify(opts)}`);
        if (got > 0) positive++;
      }
    }
    expect(positive).toBeGreaterThan(1000);
  });

  it('keeps the reference scores when calls alternate sizes and options in a random order', () => {
    const r = createRng(78);
    const pool = [10, 150, 35, 80, 6, 140].map((n, k) => buildCylinders({ minutiae: generated(3000 + k, n, 420, 480) }));
    for (let t = 0; t < 400; t++) both(pool[r.int(0, pool.length - 1)]!, pool[r.int(0, pool.length - 1)]!, OPTIONS[r.int(0, OPTIONS.length - 1)]!);
  });

  it.skipIf(!haveData)('gives the reference scores on the FVC2002 ISO templates (DB1_B-DB4_B)', () => {
    let positive = 0;
    for (const db of ['DB1_B', 'DB2_B', 'DB3_B', 'DB4_B']) {
      positive += expectIdentical(isoCylinderSets(fvc, db));
    }
    expect(positive).toBeGreaterThan(1000);
  }, 60_000);

  it.skipIf(!haveData)('gives the reference scores on our extractor\'s FVC2002 DB1_B templates', async () => {
    const sets: CylinderSet[] = [];
    for (const f of [101, 102, 103, 104]) for (const i of [1, 2, 3]) {
      const img = await decodeFingerprint(new Uint8Array(readFileSync(path.join(fvc, 'DB1_B', `${f}_${i}.tif`))), 500);
      sets.push(buildCylinders(extractMinutiae(img).template));
    }
    expect(expectIdentical(sets)).toBeGreaterThan(100);
  }, 120_000);
});
