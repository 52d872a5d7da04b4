/**
 * Cylinder sets for the matcher's equality tests (mcc-wasm, mcc-global): generated minutiae and the
 * FVC2002 ISO templates beside the images (`../shared/data/fingerprint/fvc2002/<db>/<finger>_<i>.iso`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildCylinders, type CylinderSet } from '../../domain/fingerprint/mcc.ts';
import { parseIsoTemplate } from '../../domain/fingerprint/iso.ts';
import type { Minutia } from '../../domain/fingerprint/template.ts';
import { createRng } from '../generators/rng.ts';

/** `n` random minutiae of every type inside a w×h px print (10 px margin), angles over two turns, from `seed`. */
export function generatedMinutiae(seed: number, n: number, w: number, h: number): Minutia[] {
  const r = createRng(seed);
  const types = ['ending', 'bifurcation', 'other'] as const;
  return Array.from({ length: n }, () => ({ x: r.range(10, w - 10), y: r.range(10, h - 10), angle: r.range(-Math.PI, 3 * Math.PI), type: r.pick(types), quality: r.int(20, 100) }));
}

/** Cylinders of the ISO templates of impressions 1 and 2 of fingers 101-110 of `db` (e.g. `DB1_B`) under `fvcRoot`. */
export function isoCylinderSets(fvcRoot: string, db: string): CylinderSet[] {
  const sets: CylinderSet[] = [];
  for (let f = 101; f <= 110; f++) for (const i of [1, 2]) {
    sets.push(buildCylinders(parseIsoTemplate(new Uint8Array(readFileSync(path.join(fvcRoot, db, `${f}_${i}.iso`)))).template));
  }
  return sets;
}
