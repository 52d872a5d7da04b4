/**
 * FVC protocol evaluation of our extractor + MCC matcher on FVC2002 DB1_B-DB4_B
 * (`../shared/data/fingerprint/fvc2002`, `pairs.csv`): per database the FVC protocol (280 genuine,
 * 45 impostor comparisons) and the extended protocol (the same genuine pairs, every pair of impressions of
 * different fingers: 2,880 impostors). Prints EER, FMR100, FMR1000, ZeroFMR per database and the
 * DB1-DB3 average; writes the scores to `docs/figures/fingerprint-eval.json` with `--write`.
 *
 * Resolution per database (FVC2002 report): DB1 500 ppi, DB2 569 ppi, DB3 500 ppi, DB4 about 500 ppi.
 * Usage: npm run eval:fingerprint [-- --write] [--db DB1_B]
 */
import { readFileSync, existsSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';
import { decodeFingerprint } from '../models/fingerprint/image.ts';
import { extractMinutiae } from '../domain/fingerprint/extract.ts';
import { buildCylinders, matchCylinders, type CylinderSet } from '../domain/fingerprint/mcc.ts';
import { errorRates } from '../domain/fingerprint/metrics.ts';

export const FVC_PPI: Record<string, number> = { DB1_B: 500, DB2_B: 569, DB3_B: 500, DB4_B: 500 };
const root = new URL('../../shared/data/fingerprint/fvc2002/', import.meta.url).pathname;

async function main(): Promise<void> {
  if (!existsSync(join(root, 'pairs.csv'))) {
    console.log(`skipped: ${root} is absent`);
    return;
  }
  const args = process.argv.slice(2);
  const only = args.includes('--db') ? args[args.indexOf('--db') + 1] : undefined;
  const rows = readFileSync(join(root, 'pairs.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  const dbs = ['DB1_B', 'DB2_B', 'DB3_B', 'DB4_B'].filter((d) => !only || d === only);
  const out: Record<string, unknown> = {};
  const summary: Array<{ db: string; fvc: ReturnType<typeof errorRates>; ext: ReturnType<typeof errorRates> }> = [];
  for (const db of dbs) {
    const cyl = new Map<string, CylinderSet>();
    const times: number[] = [];
    const counts: number[] = [];
    const failed: string[] = [];
    for (let f = 101; f <= 110; f++) {
      for (let i = 1; i <= 8; i++) {
        const name = `${f}_${i}.tif`;
        const bytes = readFileSync(join(root, db, name));
        const img = await decodeFingerprint(new Uint8Array(bytes), FVC_PPI[db]);
        const t0 = performance.now();
        const { template } = extractMinutiae(img);
        const c = buildCylinders(template);
        times.push(performance.now() - t0);
        counts.push(template.minutiae.length);
        if (c.n < 4) failed.push(name);
        cyl.set(`${db}/${name}`, c);
      }
    }
    const score = (a: string, b: string) => matchCylinders(cyl.get(a)!, cyl.get(b)!);
    const genuine: number[] = [];
    const impostor: number[] = [];
    const tm0 = performance.now();
    for (const r of rows) {
      if (r[0] !== `fvc2002/${db}`) continue;
      const s = score(r[1]!, r[2]!);
      (r[3] === 'genuine' ? genuine : impostor).push(s);
    }
    const ext: number[] = [];
    const keys = [...cyl.keys()];
    for (let a = 0; a < keys.length; a++) for (let b = a + 1; b < keys.length; b++) {
      if (keys[a]!.split('/')[1]!.split('_')[0] === keys[b]!.split('/')[1]!.split('_')[0]) continue;
      ext.push(score(keys[a]!, keys[b]!));
    }
    const matchMs = (performance.now() - tm0) / (genuine.length + impostor.length + ext.length) ;
    const fvc = errorRates(genuine, impostor);
    const extR = errorRates(genuine, ext);
    times.sort((a, b) => a - b);
    summary.push({ db, fvc, ext: extR });
    out[db] = { genuine, impostor, extended_impostor: ext, failed, minutiae_mean: counts.reduce((a, b) => a + b, 0) / counts.length };
    const pct = (v: number) => (100 * v).toFixed(2).padStart(6) + '%';
    console.log(`${db} ppi ${FVC_PPI[db]} minutiae ${(counts.reduce((a, b) => a + b, 0) / counts.length).toFixed(1)} extract p50 ${times[times.length >> 1]!.toFixed(0)} ms match ${(matchMs * 1000).toFixed(0)} µs failed ${failed.join(' ') || '-'}`);
    console.log(`  FVC  (${genuine.length}/${impostor.length}) EER ${pct(fvc.eer)} FMR100 ${pct(fvc.fmr100)} FMR1000 ${pct(fvc.fmr1000)} ZeroFMR ${pct(fvc.zeroFmr)}`);
    console.log(`  ext. (${genuine.length}/${ext.length}) EER ${pct(extR.eer)} FMR100 ${pct(extR.fmr100)} FMR1000 ${pct(extR.fmr1000)} ZeroFMR ${pct(extR.zeroFmr)} (EER threshold ${extR.eerThreshold.toFixed(3)})`);
  }
  const avg = (k: 'fvc' | 'ext', m: 'eer' | 'fmr100' | 'fmr1000' | 'zeroFmr') => {
    const s = summary.filter((x) => x.db !== 'DB4_B');
    return s.length ? s.reduce((a, x) => a + x[k][m], 0) / s.length : NaN;
  };
  console.log(`DB1-DB3 average: FVC EER ${(100 * avg('fvc', 'eer')).toFixed(2)}% FMR100 ${(100 * avg('fvc', 'fmr100')).toFixed(2)}%; extended EER ${(100 * avg('ext', 'eer')).toFixed(2)}% FMR100 ${(100 * avg('ext', 'fmr100')).toFixed(2)}% FMR1000 ${(100 * avg('ext', 'fmr1000')).toFixed(2)}%  (load ${os.loadavg().map((v) => v.toFixed(1)).join(' ')})`);
  if (args.includes('--write')) {
    mkdirSync(new URL('../docs/figures/', import.meta.url).pathname, { recursive: true });
    writeFileSync(new URL('../docs/figures/fingerprint-eval.json', import.meta.url).pathname, JSON.stringify({ summary, scores: out }, null, 1));
  }
}

await main();
