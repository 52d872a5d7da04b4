/**
 * Regression check of the minutiae extractor for speed work (issue 16): extracts every FVC2002 B print
 * (DB1_B-DB4_B, 320 prints, each database at its resolution, scripts/fvc2002.ts) and hashes, per print and
 * overall, the minutiae (x, y, the exact bits of the angle as a float64, type, quality), the template's
 * quality and the cylinders of `buildCylindersFast` (every array of the set). A change meant to be
 * mechanical (same results, faster) must leave the overall hash unchanged.
 * Usage: npx tsx scripts/fingerprint-extract-hash.ts [--save file.json] [--check file.json]
 * (`--check` names the prints whose hash differs from the saved run.)
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeFingerprint } from '../models/fingerprint/image.ts';
import { extractMinutiae } from '../domain/fingerprint/extract.ts';
import { buildCylindersFast } from '../domain/fingerprint/cylinders-fast.ts';
import { FVC_PPI, FVC_ROOT } from './fvc2002.ts';

async function main(): Promise<void> {
  if (!existsSync(FVC_ROOT)) { console.log(`skipped: ${FVC_ROOT} is absent`); return; }
  const args = process.argv.slice(2);
  const opt = (n: string) => (args.includes(n) ? args[args.indexOf(n) + 1] : undefined);
  const all = createHash('sha256');
  const per: Record<string, string> = {};
  const f64 = new Float64Array(1);
  let minutiae = 0;
  for (const db of ['DB1_B', 'DB2_B', 'DB3_B', 'DB4_B']) {
    for (let f = 101; f <= 110; f++) for (let i = 1; i <= 8; i++) {
      const name = `${db}/${f}_${i}`;
      const img = await decodeFingerprint(new Uint8Array(readFileSync(join(FVC_ROOT, db, `${f}_${i}.tif`))), FVC_PPI[db]);
      const { template, stats } = extractMinutiae(img);
      const h = createHash('sha256');
      for (const m of template.minutiae) {
        f64[0] = m.angle;
        h.update(`${m.x},${m.y},${m.type},${m.quality},`).update(new Uint8Array(f64.buffer));
      }
      h.update(`q${template.quality};${JSON.stringify(stats)}`);
      const c = buildCylindersFast(template);
      h.update(`n${c.n}`);
      for (const a of [c.x, c.y, c.angle, c.bits, c.mask, c.flip, c.cells, c.pop, c.nz, c.part, c.any]) h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      per[name] = h.digest('hex');
      all.update(per[name]!);
      minutiae += template.minutiae.length;
    }
  }
  const digest = all.digest('hex');
  console.log(`${Object.keys(per).length} prints, ${minutiae} minutiae; overall sha256 ${digest}`);
  const save = opt('--save');
  if (save) writeFileSync(save, JSON.stringify({ digest, per }, null, 1));
  const check = opt('--check');
  if (check) {
    const ref = JSON.parse(readFileSync(check, 'utf8')) as { digest: string; per: Record<string, string> };
    const diff = Object.keys(ref.per).filter((k) => ref.per[k] !== per[k]);
    console.log(diff.length ? `DIFFERENT: ${diff.length} prints (${diff.slice(0, 20).join(', ')})` : 'IDENTICAL to the saved run');
    if (diff.length) process.exitCode = 1;
  }
}

await main();
