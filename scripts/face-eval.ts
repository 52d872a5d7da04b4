/**
 * Face verification evaluation over `../shared/data/faces/labels.csv` (run: `npm run face:eval`).
 *
 * Protocol: single-face, non-duplicate labelled images; every genuine pair (same identity) and an equal
 * number of impostor pairs (different identities) drawn with a fixed seed. For each descriptor/metric:
 * ROC AUC (Mann-Whitney), the accuracy-maximising threshold and its accuracy, the threshold at
 * FPR <= 1% and its TPR, and accuracy at the production threshold (`domain/face/verify.ts`).
 * Detection: misses per detector on the images said to hold at least one face; false detections on
 * the no-face image; the quality gate's rejections. Prints figures only; reads no network.
 */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { decodeImage } from '../models/face/image.ts';
import { FaceImage, type DetectedFace } from '../models/face/engine.ts';
import { loadTf } from '../models/face/tf.ts';
import { cosineDistance, euclidean, fusedDistance, VERIFY_RULE } from '../domain/face/verify.ts';
import { lumaCrop, measureQuality, QUALITY_GRID, QUALITY_LIMITS } from '../domain/face/quality.ts';

/** Separable Gaussian blur of a square grid (edges clamped), to simulate defocus on the face grid. */
function gaussianBlur(g: Float32Array, n: number, sigma: number): Float32Array {
  const r = Math.ceil(3 * sigma), k: number[] = [];
  for (let i = -r; i <= r; i++) k.push(Math.exp(-(i * i) / (2 * sigma * sigma)));
  const sum = k.reduce((a, b) => a + b, 0);
  const pass = (src: Float32Array, horizontal: boolean) => {
    const out = new Float32Array(src.length);
    for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) {
      let v = 0;
      for (let i = -r; i <= r; i++) {
        const xx = horizontal ? Math.min(n - 1, Math.max(0, x + i)) : x, yy = horizontal ? y : Math.min(n - 1, Math.max(0, y + i));
        v += k[i + r]! * src[yy * n + xx]!;
      }
      out[y * n + x] = v / sum;
    }
    return out;
  };
  return pass(pass(g, true), false);
}
const sharpOk: number[] = [];
const blurred: Record<number, number[]> = {};

const repoRoot = path.resolve(import.meta.dirname, '..');
const dataDir = path.resolve(repoRoot, '../shared/data/faces');
if (!existsSync(path.join(dataDir, 'labels.csv'))) {
  console.warn(`skipped: ${dataDir}/labels.csv not found (shared data absent)`);
  process.exit(0);
}

function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [], cell = '', q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (q) { if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') q = false; else cell += c; continue; }
    if (c === '"') q = true; else if (c === ',') { row.push(cell); cell = ''; } else if (c === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; } else if (c !== '\r') cell += c;
  }
  if (cell || row.length) { row.push(cell); rows.push(row); }
  const [head, ...body] = rows;
  return body.filter((r) => r.length > 1).map((r) => Object.fromEntries(head!.map((h, i) => [h, r[i] ?? ''])));
}

const rows = parseCsv(readFileSync(path.join(dataDir, 'labels.csv'), 'utf8'));

interface Rec { path: string; identity: string; d128?: Float32Array; d1024?: Float32Array; d1024loose?: Float32Array; quality?: string[] }
const recs: Rec[] = [];
let missesSsd = 0, missesTiny = 0, withFace = 0, noFaceImages = 0, falseDet = 0, countExact = 0, countKnown = 0;
const detMs: number[] = [], descMs: number[] = [], autoMs: number[] = [];
let missesSsdOnly = 0;
const missed: string[] = [], missedTiny: string[] = [], tinyMs: number[] = [];
const tf = await loadTf();

for (const r of rows) {
  if (r.duplicate_of) continue;
  const bytes = readFileSync(path.join(dataDir, r.path!));
  let fi: FaceImage;
  try { fi = await FaceImage.from(await decodeImage(bytes, r.path)); } catch (e) { console.log('decode failed', r.path, (e as Error).message); continue; }
  try {
    const t0 = performance.now();
    const ssd = await fi.detect(0.5, 'ssd');
    detMs.push(performance.now() - t0);
    const t0c = performance.now();
    const faces = await fi.detect(0.5, 'auto'); // production path of the single-face operations
    autoMs.push(performance.now() - t0c);
    if (!ssd.length) missesSsdOnly++;
    const t0b = performance.now();
    const tiny = await fi.detect(0.5, 'tiny');
    tinyMs.push(performance.now() - t0b);
    const n = r.faces_in_image === 'multi' ? -1 : Number(r.faces_in_image);
    if (n === 0) { noFaceImages++; if (ssd.length || faces.length) falseDet++; continue; }
    withFace++;
    if (!faces.length) { missesSsd++; missed.push(r.path!); }
    if (!tiny.length) { missesTiny++; missedTiny.push(r.path!); }
    if (n > 0) { countKnown++; if (ssd.length === n) countExact++; }
    if (n !== 1 || !r.identity || !faces.length) continue;
    const f: DetectedFace = faces.reduce((a, b) => (b.box.w * b.box.h > a.box.w * a.box.h ? b : a));
    const grid = lumaCrop(fi.img.data, fi.img.width, fi.img.height, f.box);
    const q = measureQuality(grid, Math.min(f.box.w, f.box.h));
    sharpOk.push(q.sharpness);
    for (const sigma of [1, 2, 3]) {
      const bq = measureQuality(gaussianBlur(grid, QUALITY_GRID, sigma), Math.min(f.box.w, f.box.h));
      (blurred[sigma] ??= []).push(bq.failures.includes('blurred') ? 1 : 0);
    }
    const t1 = performance.now();
    const d128 = await fi.descriptor128(f);
    const d1024 = await fi.descriptor1024(f);
    descMs.push(performance.now() - t1);
    // the library's default loose crop: the detection box resized to 224x224, no alignment
    const d1024loose = await (fi as unknown as { descriptor1024Loose(f: DetectedFace): Promise<Float32Array> }).descriptor1024Loose(f);
    recs.push({ path: r.path!, identity: r.identity!, d128, d1024, d1024loose, quality: q.failures });
  } finally { fi.dispose(); }
}

// pairs
const genuine: [Rec, Rec][] = [], impostorAll: [Rec, Rec][] = [];
for (let i = 0; i < recs.length; i++) for (let j = i + 1; j < recs.length; j++) {
  (recs[i]!.identity === recs[j]!.identity ? genuine : impostorAll).push([recs[i]!, recs[j]!]);
}
let seed = 42;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
for (let i = impostorAll.length - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [impostorAll[i], impostorAll[j]] = [impostorAll[j]!, impostorAll[i]!]; }
const impostor = impostorAll.slice(0, genuine.length);

function metrics(name: string, dist: (a: Rec, b: Rec) => number, prodThreshold?: number) {
  const g = genuine.map(([a, b]) => dist(a, b)), im = impostor.map(([a, b]) => dist(a, b));
  let wins = 0;
  for (const x of g) for (const y of im) wins += x < y ? 1 : x === y ? 0.5 : 0;
  const auc = wins / (g.length * im.length);
  const cands = [...g, ...im].sort((a, b) => a - b);
  let best = { t: 0, acc: 0 };
  for (const t of cands) {
    const acc = (g.filter((x) => x <= t).length + im.filter((y) => y > t).length) / (g.length + im.length);
    if (acc > best.acc) best = { t, acc };
  }
  const imSorted = [...im].sort((a, b) => a - b);
  const k = Math.floor(0.01 * im.length); // at most 1% of impostors accepted
  const t1 = k === 0 ? imSorted[0]! - 1e-9 : imSorted[k - 1]!;
  const tpr1 = g.filter((x) => x <= t1).length / g.length;
  const accAt = (t: number) => (g.filter((x) => x <= t).length + im.filter((y) => y > t).length) / (g.length + im.length);
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
  console.log(`${name.padEnd(34)} AUC ${auc.toFixed(4)}  best-acc ${best.acc.toFixed(4)} @ ${best.t.toFixed(4)}  TPR@FPR1% ${tpr1.toFixed(4)} (t=${t1.toFixed(4)})` +
    `  mean genuine ${mean(g).toFixed(3)} impostor ${mean(im).toFixed(3)} max genuine ${Math.max(...g).toFixed(3)} min impostor ${Math.min(...im).toFixed(3)}` +
    (prodThreshold !== undefined ? `  acc@prod(${prodThreshold}) ${accAt(prodThreshold).toFixed(4)}` : ''));
}

const pct = (v: number[], p: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(p * v.length))]!;
console.log(`backend ${tf.getBackend()}; images ${rows.length}; single-face labelled used ${recs.length}; identities ${new Set(recs.map((r) => r.identity)).size}`);
console.log(`pairs: ${genuine.length} genuine + ${impostor.length} impostor`);
console.log(`detection misses (images with >=1 face, ${withFace}): auto (tiny, then ssd) ${missesSsd} [${missed.join(', ')}], ssd alone ${missesSsdOnly}, tiny ${missesTiny} [${missedTiny.join(", ")}]; exact face count (ssd) ${countExact}/${countKnown}; false detections on ${noFaceImages} no-face image(s): ${falseDet}`);
console.log(`quality gate rejections among used faces: ${recs.filter((r) => r.quality!.length).map((r) => `${r.path}:${r.quality!.join('+')}`).join(', ') || 'none'}`);
sharpOk.sort((a, b) => a - b);
console.log(`quality: sharpness (Laplacian variance, 112x112 luma) of the labelled faces min ${sharpOk[0]?.toFixed(1)} p5 ${pct(sharpOk, 0.05).toFixed(1)} median ${pct(sharpOk, 0.5).toFixed(1)}; limit ${QUALITY_LIMITS.minSharpness}; ` +
  `the same faces Gaussian-blurred on the grid rejected as blurred: ${Object.entries(blurred).map(([sg, v]) => `sigma ${sg} px ${v.filter(Boolean).length}/${v.length}`).join(', ')}`);
console.log(`timing per image: ssd detection+68 landmarks p50 ${pct(detMs, 0.5).toFixed(0)} ms; auto ${pct(autoMs, 0.5).toFixed(0)} ms; tiny ${pct(tinyMs, 0.5).toFixed(0)} ms; 128-d + 1024-d descriptors p50 ${pct(descMs, 0.5).toFixed(0)} ms`);
metrics('face-api 128-d euclidean', (a, b) => euclidean(a.d128!, b.d128!), 0.6);
metrics('faceres 1024-d aligned cosine', (a, b) => cosineDistance(a.d1024!, b.d1024!));
metrics('faceres 1024-d loose-crop cosine', (a, b) => cosineDistance(a.d1024loose!, b.d1024loose!));
metrics('fused (production rule)', (a, b) => fusedDistance(euclidean(a.d128!, b.d128!), cosineDistance(a.d1024!, b.d1024!)), VERIFY_RULE.threshold);
