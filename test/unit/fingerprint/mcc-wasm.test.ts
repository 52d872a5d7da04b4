/**
 * The WebAssembly local-similarity kernel of the MCC matcher (domain/fingerprint/mcc-wasm.ts and .wat)
 * against the JavaScript path of mcc.ts: every score must be identical (===) on FVC2002 templates (the
 * ISO templates beside the images and our extractor's), on generated ones (sizes 0-150, all minutia
 * types, angles outside [0, 2π), small prints with many border cylinders) and under each set of match
 * options, including calls that alternate templates of different sizes (the kernel's copy cache). Also:
 * the committed binary is what wabt builds from the .wat. FVC checks skip with a printed reason when
 * ../shared/data is absent; the rebuild check when the `wabt` package is not installed.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCylinders, matchCylinders, MATCH_DEFAULTS, useWasmLocalSimilarity, type CylinderSet, type MatchOptions } from '../../../domain/fingerprint/mcc.ts';
import { extractMinutiae } from '../../../domain/fingerprint/extract.ts';
import { decodeFingerprint } from '../../../models/fingerprint/image.ts';
import { MCC_WASM_BASE64 } from '../../../domain/fingerprint/mcc-wasm-binary.ts';
import { createRng } from '../../generators/rng.ts';
import { generatedMinutiae, isoCylinderSets } from '../../helpers/fingerprint-sets.ts';
import { compileMccWat, WABT } from '../../../scripts/build-mcc-wasm.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fvc = path.resolve(repoRoot, '../shared/data/fingerprint/fvc2002');
const haveData = existsSync(fvc);
if (!haveData) console.warn(`mcc-wasm FVC tests skipped: ${fvc} is absent`);

const OPTIONS: Array<Readonly<MatchOptions>> = [
  MATCH_DEFAULTS,
  { selection: 'lss', reversible: false, deltaTheta: Math.PI / 2 },
  { ...MATCH_DEFAULTS, reversible: true },
];

/** Score of A against B by the JavaScript path, then by the kernel. */
function bothPaths(A: CylinderSet, B: CylinderSet, opts: Readonly<MatchOptions>): [number, number] {
  useWasmLocalSimilarity(false);
  const js = matchCylinders(A, B, opts);
  useWasmLocalSimilarity(true);
  return [js, matchCylinders(A, B, opts)];
}

/** Compares every ordered pair of `sets` under every option set; returns how many pairs scored > 0. */
function expectIdentical(sets: CylinderSet[]): number {
  let positive = 0;
  for (const opts of OPTIONS) for (const A of sets) for (const B of sets) {
    const [js, wasm] = bothPaths(A, B, opts);
    if (wasm !== js) expect.fail(`score ${wasm} (wasm) !== ${js} (js), nA ${A.n}, nB ${B.n}, ${JSON.stringify(opts)}`);
    if (js > 0) positive++;
  }
  return positive;
}

const generated = generatedMinutiae;

describe('MCC local similarities in WebAssembly', () => {
  afterAll(() => { useWasmLocalSimilarity(true); });

  it('is available on this runtime (otherwise the comparisons below would compare the JS path with itself)', () => {
    expect(useWasmLocalSimilarity(true)).toBe(true);
  });

  it('gives the JavaScript path\'s scores on generated templates, sizes 0-150, every option set', () => {
    const sets: CylinderSet[] = [];
    const shapes: Array<[number, number, number]> = [[0, 300, 400], [3, 300, 400], [12, 160, 160], [25, 200, 260], [40, 300, 400], [60, 260, 300], [90, 400, 500], [150, 500, 560]];
    shapes.forEach(([n, w, h], k) => {
      for (const weight of [0, 0.5]) sets.push(buildCylinders({ minutiae: generated(1000 + k, n, w, h) }, { reversedNeighbourWeight: weight }));
    });
    expect(sets.some((s) => s.n > 100)).toBe(true);
    expect(sets.some((s) => s.part.some((p) => p !== 0))).toBe(true);
    expect(expectIdentical(sets)).toBeGreaterThan(100);
  });

  it('keeps identical scores when calls alternate templates and options in a random order (copy cache)', () => {
    const r = createRng(77);
    const pool = [10, 35, 35, 80, 140].map((n, k) => buildCylinders({ minutiae: generated(2000 + k, n, 420, 480) }));
    const expected = new Map<string, number>();
    useWasmLocalSimilarity(false);
    pool.forEach((A, a) => pool.forEach((B, b) => OPTIONS.forEach((o, k) => expected.set(`${a}/${b}/${k}`, matchCylinders(A, B, o)))));
    useWasmLocalSimilarity(true);
    for (let t = 0; t < 400; t++) {
      const a = r.int(0, pool.length - 1), b = r.int(0, pool.length - 1), k = r.int(0, OPTIONS.length - 1);
      expect(matchCylinders(pool[a]!, pool[b]!, OPTIONS[k]!)).toBe(expected.get(`${a}/${b}/${k}`));
    }
  });

  it.skipIf(!haveData)('gives the JavaScript path\'s scores on the FVC2002 ISO templates (DB1_B-DB4_B)', () => {
    let positive = 0;
    for (const db of ['DB1_B', 'DB2_B', 'DB3_B', 'DB4_B']) {
      positive += expectIdentical(isoCylinderSets(fvc, db));
    }
    expect(positive).toBeGreaterThan(1000);
  });

  it.skipIf(!haveData)('gives the JavaScript path\'s scores on our extractor\'s FVC2002 DB1_B templates', async () => {
    const sets: CylinderSet[] = [];
    for (const f of [101, 102, 103]) for (const i of [1, 2, 3]) {
      const img = await decodeFingerprint(new Uint8Array(readFileSync(path.join(fvc, 'DB1_B', `${f}_${i}.tif`))), 500);
      sets.push(buildCylinders(extractMinutiae(img).template));
    }
    expect(expectIdentical(sets)).toBeGreaterThan(100);
  }, 60_000);
});

/** Whether the `wabt` package (a devDependency, wat2wasm) is installed. */
const haveWabt = await import(WABT).then(() => true, () => false);
if (!haveWabt) console.warn('mcc-wasm rebuild check skipped: the `wabt` package (a devDependency) is not installed');

describe('the committed kernel binary', () => {
  it.skipIf(!haveWabt)('is what wabt builds from mcc-wasm.wat (npm run build:mcc-wasm)', async () => {
    const built = await compileMccWat();
    expect(built.length).toBeGreaterThan(1000);
    expect(Buffer.from(built).toString('base64')).toBe(MCC_WASM_BASE64);
  });
});
