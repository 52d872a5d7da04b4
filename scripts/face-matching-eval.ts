/**
 * Face-matching evaluation over `../shared/data/faces` (issue 4, items 3 and 4).
 *
 *   node --import tsx scripts/face-matching-eval.ts [--json]
 *
 * 1. Describes every labelled single-face image (labels.csv: one identity, `faces_in_image` 1, not a
 *    duplicate) with the face group's `describeFace` (128-d face-api + 1024-d faceres).
 * 2. Forms every genuine pair (same identity) and every impostor pair (different identities).
 * 3. Scores each pair with: the 128-d descriptor (Euclidean, as face-api compares it, and cosine), the
 *    1024-d descriptor (cosine), and the 512-d `fuse-v1` template (cosine) for fusion weights w = 0..1.
 * 4. Prints ROC AUC, EER and FRR at FAR <= 1% per score, picks the fusion weight, fits the similarity
 *    calibration (equal-error cosine C_EER and logistic slope A), and prints FAR/FRR at similarity
 *    thresholds 0.4, 0.5, 0.6, 0.7, 0.8 for `docs/face-matching.md`.
 *
 * Exits 0 with a message when the shared data is absent.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTemplate, cosine, CALIBRATION, FUSION_WEIGHT_128, similarityFromCosine } from '../domain/face-matching/template.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const facesDir = path.resolve(repoRoot, '../shared/data/faces');

/** Minimal RFC 4180 CSV parser (quoted fields, doubled quotes). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cur);
      cur = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cur);
      rows.push(row);
      row = [];
      cur = '';
    } else cur += ch;
  }
  if (cur !== '' || row.length) {
    row.push(cur);
    rows.push(row);
  }
  return rows.filter((r) => r.length > 1);
}

export interface Metrics {
  auc: number;
  eer: number;
  /** Score threshold at the equal-error point (midpoint of the crossing). */
  eerThreshold: number;
  /** FRR at the lowest threshold giving FAR <= 1%. */
  frrAtFar1: number;
}

/** ROC AUC (Mann-Whitney U, ties count half), EER and FRR at FAR <= 1%; higher score = more similar. */
export function metrics(genuine: number[], impostor: number[]): Metrics {
  let u = 0;
  for (const g of genuine) for (const i of impostor) u += g > i ? 1 : g === i ? 0.5 : 0;
  const auc = u / (genuine.length * impostor.length);
  const thresholds = [...new Set([...genuine, ...impostor])].sort((a, b) => a - b);
  let best = { gap: Infinity, eer: 1, lo: 0, hi: 0 };
  let frrAtFar1 = 1;
  for (const t of thresholds) {
    const far = impostor.filter((s) => s >= t).length / impostor.length;
    const frr = genuine.filter((s) => s < t).length / genuine.length;
    const gap = Math.abs(far - frr);
    if (gap < best.gap - 1e-12) best = { gap, eer: (far + frr) / 2, lo: t, hi: t };
    else if (Math.abs(gap - best.gap) <= 1e-12) best.hi = t;
    if (far <= 0.01 && frr < frrAtFar1) frrAtFar1 = frr;
  }
  // Several thresholds can tie (separable data): take the middle of the tied range.
  return { auc, eer: best.eer, eerThreshold: (best.lo + best.hi) / 2, frrAtFar1 };
}

/** Class-balanced logistic regression p(genuine | c) = sigmoid(a c + b), by Newton's method. */
export function logisticFit(genuine: number[], impostor: number[]): { a: number; b: number } {
  const xs = [...genuine, ...impostor];
  const ys = [...genuine.map(() => 1), ...impostor.map(() => 0)];
  const ws = [...genuine.map(() => 0.5 / genuine.length), ...impostor.map(() => 0.5 / impostor.length)];
  let a = 1;
  let b = 0;
  for (let it = 0; it < 100; it++) {
    let ga = 0, gb = 0, haa = 1e-9, hab = 0, hbb = 1e-9;
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!, y = ys[i]!, w = ws[i]!;
      const p = 1 / (1 + Math.exp(-(a * x + b)));
      ga += w * (p - y) * x;
      gb += w * (p - y);
      const s = w * p * (1 - p);
      haa += s * x * x;
      hab += s * x;
      hbb += s;
    }
    // Small ridge keeps the step finite on separable data.
    haa += 1e-4;
    hbb += 1e-4;
    const det = haa * hbb - hab * hab;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a -= da;
    b -= db;
    if (Math.abs(da) + Math.abs(db) < 1e-9) break;
  }
  return { a, b };
}

async function main(): Promise<void> {
  const labels = path.join(facesDir, 'labels.csv');
  if (!existsSync(labels)) {
    console.warn(`face-matching eval skipped: ${labels} is absent (the shared evaluation data is not on this machine)`);
    return;
  }
  // FACE_JOBS_MODULE lets a developer point at another checkout of the face models (default: this repo's).
  const jobsModule = process.env.FACE_JOBS_MODULE ?? '../models/face/jobs.ts';
  const { describeFace } = (await import(jobsModule)) as {
    describeFace: (bytes: Uint8Array, name?: string) => Promise<{ descriptor128: number[]; descriptor1024: number[] }>;
  };
  const [header, ...rows] = parseCsv(readFileSync(labels, 'utf8'));
  const col = (name: string) => header!.indexOf(name);
  const items = rows
    .filter((r) => r[col('identity')] && r[col('faces_in_image')] === '1' && !r[col('duplicate_of')])
    .map((r) => ({ path: r[col('path')]!, identity: r[col('identity')]! }));
  let described: Array<{ path: string; identity: string; d128: number[]; d1024: number[] }> = [];
  let misses: Array<{ path: string; reason: string }> = [];
  // --cache FILE keeps the descriptors between runs (outside the repo; never commit shared-data derivatives).
  const cacheAt = process.argv.indexOf('--cache');
  const cacheFile = cacheAt >= 0 ? process.argv[cacheAt + 1] : undefined;
  if (cacheFile && existsSync(cacheFile)) ({ described, misses } = JSON.parse(readFileSync(cacheFile, 'utf8')));
  else for (const it of items) {
    try {
      const bytes = new Uint8Array(readFileSync(path.join(facesDir, it.path)));
      const d = await describeFace(bytes, path.basename(it.path));
      described.push({ ...it, d128: d.descriptor128, d1024: d.descriptor1024 });
    } catch (error) {
      misses.push({ path: it.path, reason: (error as { code?: string }).code ?? (error as Error).message });
    }
  }
  if (described.length < 2) {
    console.error(`face-matching eval: only ${described.length} images described; misses: ${JSON.stringify(misses.slice(0, 3))}`);
    process.exit(1);
  }
  if (cacheFile && !existsSync(cacheFile)) writeFileSync(cacheFile, JSON.stringify({ described, misses }));
  const genuinePairs: Array<[number, number]> = [];
  const impostorPairs: Array<[number, number]> = [];
  for (let i = 0; i < described.length; i++) {
    for (let j = i + 1; j < described.length; j++) {
      (described[i]!.identity === described[j]!.identity ? genuinePairs : impostorPairs).push([i, j]);
    }
  }
  const euclid = (a: number[], b: number[]) => Math.sqrt(a.reduce((s, x, k) => s + (x - b[k]!) ** 2, 0));
  const scoreSets: Record<string, (i: number, j: number) => number> = {
    'face-api 128-d (-Euclidean)': (i, j) => -euclid(described[i]!.d128, described[j]!.d128),
    'face-api 128-d (cosine)': (i, j) => cosine(described[i]!.d128, described[j]!.d128),
    'faceres 1024-d (cosine)': (i, j) => cosine(described[i]!.d1024, described[j]!.d1024),
  };
  const weights = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
  const templates = new Map<number, Float32Array[]>();
  for (const w of weights) {
    templates.set(w, described.map((d) => buildTemplate({ descriptor128: d.d128, descriptor1024: d.d1024 }, w)));
    scoreSets[`fuse-v1 512-d, w=${w.toFixed(1)} (cosine)`] = (i, j) => cosine(templates.get(w)![i]!, templates.get(w)![j]!);
  }
  const results: Record<string, Metrics> = {};
  for (const [name, fn] of Object.entries(scoreSets)) {
    results[name] = metrics(genuinePairs.map(([i, j]) => fn(i, j)), impostorPairs.map(([i, j]) => fn(i, j)));
  }
  // Fusion weight: best AUC, then lowest EER, then closest to 0.5.
  const fused = weights
    .filter((w) => w > 0 && w < 1)
    .map((w) => ({ w, m: results[`fuse-v1 512-d, w=${w.toFixed(1)} (cosine)`]! }))
    .sort((x, y) => y.m.auc - x.m.auc || x.m.eer - y.m.eer || Math.abs(x.w - 0.5) - Math.abs(y.w - 0.5));
  const chosen = fused[0]!;
  const wUse = FUSION_WEIGHT_128;
  const tUse = templates.get(wUse) ?? described.map((d) => buildTemplate({ descriptor128: d.d128, descriptor1024: d.d1024 }, wUse));
  const g = genuinePairs.map(([i, j]) => cosine(tUse[i]!, tUse[j]!));
  const im = impostorPairs.map(([i, j]) => cosine(tUse[i]!, tUse[j]!));
  const mUse = metrics(g, im);
  const fit = logisticFit(g, im);
  // Slope: the median genuine pair maps to similarity 0.9 (logistic regression on near-separable data
  // gives a slope so steep that 0.4-0.8 would all sit at one cosine; it is printed for reference).
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const logit = (p: number) => Math.log(p / (1 - p));
  const C_EER = Math.round(mUse.eerThreshold * 1e4) / 1e4;
  const calibration = { A: Math.round(((logit(0.9) - logit(0.6)) / (median(g) - C_EER)) * 100) / 100, C_EER };
  const stats = (xs: number[]) => {
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    return { mean: +m.toFixed(4), median: +median(xs).toFixed(4), sd: +Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length).toFixed(4), min: +Math.min(...xs).toFixed(4), max: +Math.max(...xs).toFixed(4) };
  };
  const at = (cal: { A: number; C_EER: number }) =>
    [0.4, 0.5, 0.6, 0.7, 0.8].map((t) => ({
      threshold: t,
      far: im.filter((c) => similarityFromCosine(c, cal) >= t).length / im.length,
      frr: g.filter((c) => similarityFromCosine(c, cal) < t).length / g.length,
    }));
  const out = {
    data: { images: items.length, described: described.length, identities: new Set(described.map((d) => d.identity)).size, genuine_pairs: genuinePairs.length, impostor_pairs: impostorPairs.length, misses },
    per_score: results,
    best_fusion_weight: chosen.w,
    fusion_weight_in_code: wUse,
    template_cosine_genuine: stats(g),
    template_cosine_impostor: stats(im),
    logistic_regression_slope: +fit.a.toFixed(2),
    calibration_fitted: calibration,
    calibration_in_code: CALIBRATION,
    far_frr_with_code_calibration: at(CALIBRATION),
    far_frr_with_fitted_calibration: at(calibration),
  };
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(out, null, 2));
    return;
  }
  console.log(`# face-matching eval on ../shared/data/faces`);
  console.log(`images ${out.data.images}, described ${out.data.described}, identities ${out.data.identities}, genuine pairs ${out.data.genuine_pairs}, impostor pairs ${out.data.impostor_pairs}`);
  for (const m of misses) console.log(`  not described: ${m.path} (${m.reason})`);
  console.log('\n| score | ROC AUC | EER | FRR at FAR<=1% |\n|---|---|---|---|');
  for (const [name, m] of Object.entries(results)) console.log(`| ${name} | ${m.auc.toFixed(4)} | ${(m.eer * 100).toFixed(1)}% | ${(m.frrAtFar1 * 100).toFixed(1)}% |`);
  console.log(`\ntemplate cosine (w=${wUse}): genuine ${JSON.stringify(out.template_cosine_genuine)}, impostor ${JSON.stringify(out.template_cosine_impostor)}; logistic-regression slope ${out.logistic_regression_slope}`);
  console.log(`\nbest fusion weight w=${chosen.w} (in code: ${wUse}); fitted calibration A=${calibration.A}, C_EER=${calibration.C_EER} (in code: A=${CALIBRATION.A}, C_EER=${CALIBRATION.C_EER})`);
  console.log('\n| similarity threshold | FAR | FRR |\n|---|---|---|');
  for (const r of out.far_frr_with_code_calibration) console.log(`| ${r.threshold} | ${(r.far * 100).toFixed(2)}% (${Math.round(r.far * im.length)}/${im.length}) | ${(r.frr * 100).toFixed(2)}% (${Math.round(r.frr * g.length)}/${g.length}) |`);
}

await main();
