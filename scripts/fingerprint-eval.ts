/**
 * FVC protocol evaluation of our extractor + MCC matcher on FVC2002 DB1_B-DB4_B
 * (`../shared/data/fingerprint/fvc2002`, `pairs.csv`): per database the FVC protocol (280 genuine,
 * 45 impostor comparisons) and the extended protocol (the same genuine pairs, every pair of impressions of
 * different fingers: 2,880 impostors). Prints EER, FMR100, FMR1000, ZeroFMR per database and the
 * DB1-DB3 average; writes the scores to `docs/figures/fingerprint-eval.json` with `--write`.
 *
 * Resolution per database (FVC2002 report): DB1 500 ppi, DB2 569 ppi, DB3 500 ppi, DB4 about 500 ppi.
 * `--iso`: the same comparisons on the ISO/IEC 19794-2 templates beside the images (another extractor's
 * minutiae, docs/fingerprint.md), to tell the matcher's share of the error from the extractor's.
 * `--no-field`: without the orientation-field fusion (field.ts; ISO templates have no field).
 * Usage: npm run eval:fingerprint [-- --write] [--db DB1_B,DB3_B] [--iso] [--no-field]
 */
import { readFileSync, existsSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';
import { decodeFingerprint } from '../models/fingerprint/image.ts';
import { extractMinutiae, type ExtractionDebug } from '../domain/fingerprint/extract.ts';
import { decodeField, encodeFieldFromBlocks, matchTemplates, type OrientationField } from '../domain/fingerprint/field.ts';
import { buildCylinders, type CylinderSet } from '../domain/fingerprint/mcc.ts';
import { errorRates, rocPoints } from '../domain/fingerprint/metrics.ts';
import { checkExtraction } from '../models/fingerprint/jobs.ts';
import { MIN_CYLINDERS } from '../domain/fingerprint/use-cases.ts';
import sharp from 'sharp';
import { parseIsoTemplate } from '../domain/fingerprint/iso.ts';
import { FVC_PPI, FVC_ROOT as root } from './fvc2002.ts';

async function main(): Promise<void> {
  if (!existsSync(join(root, 'pairs.csv'))) {
    console.log(`skipped: ${root} is absent`);
    return;
  }
  const args = process.argv.slice(2);
  const only = args.includes('--db') ? (args[args.indexOf('--db') + 1] ?? '').split(',') : undefined;
  const iso = args.includes('--iso');
  if (iso && args.includes('--write')) throw new Error('--write records our extractor\'s figures; run --iso without it');
  const rows = readFileSync(join(root, 'pairs.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  const dbs = ['DB1_B', 'DB2_B', 'DB3_B', 'DB4_B'].filter((d) => !only || only.includes(d));
  const out: Record<string, unknown> = {};
  const summary: Array<{ db: string; fvc: ReturnType<typeof errorRates>; ext: ReturnType<typeof errorRates> }> = [];
  const curves: Array<{ db: string; pts: ReturnType<typeof rocPoints> }> = [];
  for (const db of dbs) {
    const cyl = new Map<string, CylinderSet>();
    const fields = new Map<string, OrientationField>();
    const times: number[] = [];
    const counts: number[] = [];
    const failed: string[] = [];
    for (let f = 101; f <= 110; f++) {
      for (let i = 1; i <= 8; i++) {
        const name = `${f}_${i}.tif`;
        if (iso) {
          const t = parseIsoTemplate(new Uint8Array(readFileSync(join(root, db, name.replace('.tif', '.iso'))))).template;
          const c = buildCylinders(t);
          counts.push(t.minutiae.length);
          times.push(0);
          cyl.set(`${db}/${name}`, c);
          continue;
        }
        const bytes = readFileSync(join(root, db, name));
        const img = await decodeFingerprint(new Uint8Array(bytes), FVC_PPI[db]);
        const t0 = performance.now();
        const dbg: ExtractionDebug = {};
        const { template, stats } = extractMinutiae(img, dbg);
        const c = buildCylinders(template);
        // The coarse orientation field stored with the template (field.ts; `--no-field`: the minutiae alone).
        if (!args.includes('--no-field')) fields.set(`${db}/${name}`, decodeField(encodeFieldFromBlocks(dbg.bw!, Math.ceil(img.height / 8), dbg.mask!, dbg.coh!, dbg.vcos!, dbg.vsin!)));
        times.push(performance.now() - t0);
        counts.push(template.minutiae.length);
        // Enrollment would fail: the job's checks (blank, not a fingerprint, < 8 minutiae) or < MIN_CYLINDERS cylinders.
        try {
          checkExtraction(template, stats);
          if (c.n < MIN_CYLINDERS) failed.push(`${name} (${c.n} cylinders)`);
        } catch (error) {
          failed.push(`${name} (${(error as { code?: string }).code})`);
        }
        cyl.set(`${db}/${name}`, c);
      }
    }
    const score = (a: string, b: string) => matchTemplates(cyl.get(a)!, cyl.get(b)!, fields.get(a), fields.get(b));
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
    curves.push({ db, pts: rocPoints(genuine, ext) });
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
    writeFileSync(new URL('../docs/figures/fingerprint-eval.json', import.meta.url).pathname, JSON.stringify({ summary, scores: out }));
    await sharp(Buffer.from(rocSvg(curves))).png().toFile(new URL('../docs/figures/fingerprint-roc.png', import.meta.url).pathname);
  }
}

/** ROC (FNMR against FMR, log FMR axis 1e-4..1) as SVG, one curve per database. */
function rocSvg(curves: Array<{ db: string; pts: Array<{ fmr: number; fnmr: number }> }>): string {
  const W = 640, H = 480, L = 70, B = 50, T = 30, R = 20;
  const x = (fmr: number) => L + ((Math.log10(Math.max(fmr, 1e-4)) + 4) / 4) * (W - L - R);
  const y = (fnmr: number) => T + (1 - fnmr) * (H - T - B);
  const colours = ['#d62728', '#1f77b4', '#2ca02c', '#9467bd'];
  let g = '';
  for (let e = -4; e <= 0; e++) g += `<line x1="${x(10 ** e)}" y1="${T}" x2="${x(10 ** e)}" y2="${H - B}" stroke="#ddd"/><text x="${x(10 ** e)}" y="${H - B + 18}" font-size="12" text-anchor="middle">1e${e}</text>`;
  for (let v = 0; v <= 1.0001; v += 0.2) g += `<line x1="${L}" y1="${y(v)}" x2="${W - R}" y2="${y(v)}" stroke="#ddd"/><text x="${L - 6}" y="${y(v) + 4}" font-size="12" text-anchor="end">${v.toFixed(1)}</text>`;
  curves.forEach((c, i) => {
    const pts = c.pts.filter((p) => p.fmr > 0).map((p) => `${x(p.fmr).toFixed(1)},${y(p.fnmr).toFixed(1)}`).join(' ');
    g += `<polyline fill="none" stroke="${colours[i % 4]}" stroke-width="2" points="${pts}"/><text x="${W - R - 150}" y="${T + 20 + i * 18}" font-size="13" fill="${colours[i % 4]}">FVC2002 ${c.db} (extended)</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="100%" height="100%" fill="white"/>${g}<text x="${W / 2}" y="${H - 10}" font-size="13" text-anchor="middle">FMR (log)</text><text x="16" y="${H / 2}" font-size="13" transform="rotate(-90 16 ${H / 2})" text-anchor="middle">FNMR</text><text x="${W / 2}" y="18" font-size="14" text-anchor="middle">Sello fingerprint matcher: ROC on FVC2002 B subsets</text></svg>`;
}

await main();
