/**
 * MRZ line-recognition evaluation over the doubango/tesseractMRZ sample
 * (`../shared/data/mrz/doubango-tesseractMRZ/dataset-sample/`: single MRZ line images, `.gt.txt`
 * with the exact line). Prints, per engine configuration:
 * - line accuracy (exact match with the ground truth),
 * - character accuracy (1 - Levenshtein distance / ground-truth length, summed over lines),
 * - check-digit pass rate: over the lines that carry check digits wholly inside them (TD1 lines
 *   1-2, TD2/TD3 line 2) and whose ground truth passes them (most lines of this set are random
 *   strings whose digits do not verify), the share read with every such check passing; also
 *   over the "readable" ones (read with the right length). Raw rows are checked as read,
 *   corrected rows after correction; "not exact" counts the lines that pass yet differ from the truth
 *   (outside the checked fields, or a wrong fix that passes by chance),
 * - mean milliseconds per line.
 *
 *   node --import tsx scripts/mrz-line-eval.ts [--engines tess-eng-raw,tess-eng-wl,tess-eng-fast-wl,paddle,paddle-ctc] [--limit N]
 *     [--show N (print the first N misread lines)] [--stretch X] [--pad PX]
 *
 * Engines: tesseract.js 7 LSTM with npm-shipped English traineddata (`@tesseract.js-data/eng`,
 * `4.0.0_best_int` and `4.0.0`), single-line mode, optionally with the MRZ whitelist `0-9A-Z<`;
 * PaddleOCR PP-OCRv4 recogniser (`models/ocr/paddle.ts`, ONNX) on the whole line image, greedy
 * CTC decoding. Each is reported raw and after `correctMrzLine` (domain/mrz: filler repair +
 * field-type + check-digit-guided confusable correction).
 * `paddle-ctc`: the same recogniser's posteriors decoded as the pipeline does (`domain/mrz/ctc.ts`):
 * greedy over the MRZ classes, then at the row length (greedy length when it is 30/36/44, else the
 * pitch estimate snapped to one), then with the column classes of the most probable line kind of
 * that length (`decodeMrzRow`), then with check-digit correction from the recogniser's substitution
 * costs; reported at each step. The line kind is inferred from the reading, never from the truth.
 * Also reported: the share of lines exact when `O` and `0` are not told apart (most of the set's
 * lines are rendered random strings in which nothing but the glyph separates the two).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import {
  chooseRowLength, correctMrzLine, decodeFixedLength, decodeGreedy, decodeMrzRow, inferLineKind, repairMrzFillers as repairFillers,
} from '../domain/mrz/index.ts';
import { editDistance } from '../domain/ocr/text.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = path.resolve(repoRoot, '../shared/data/mrz/doubango-tesseractMRZ/dataset-sample');
const require = createRequire(import.meta.url);

const { values } = parseArgs({ options: { engines: { type: 'string', default: 'tess-eng-raw,tess-eng-wl,tess-eng-fast-wl,paddle,paddle-ctc' }, limit: { type: 'string' }, show: { type: 'string', default: '0' }, stretch: { type: 'string', default: '1' }, pad: { type: 'string', default: '0' } } });

if (!existsSync(dataDir)) {
  console.warn(`mrz-line-eval: ${dataDir} is absent (../shared/data not mounted); nothing to evaluate`);
  process.exit(0);
}

interface Sample { name: string; gt: string; png: Buffer; gray: { data: Buffer; width: number; height: number } }

/** Horizontal stretch and white margin (px) of the line image before PaddleOCR (`--stretch`, `--pad`; 1 and 0 read best). */
const stretch = Number(values.stretch);
const pad = Number(values.pad);
const names = readdirSync(dataDir).filter((f) => f.endsWith('.gt.txt')).sort();
const samples: Sample[] = [];
for (const g of names.slice(0, values.limit ? Number(values.limit) : undefined)) {
  const img = path.join(dataDir, g.replace(/\.gt\.txt$/, '.tif'));
  if (!existsSync(img)) continue;
  const gt = readFileSync(path.join(dataDir, g), 'utf8').replace(/\r?\n$/, '').trim();
  // Tesseract reads best with a white margin; the TIFFs are tight crops.
  const png = await sharp(img).greyscale().extend({ top: 10, bottom: 10, left: 10, right: 10, background: '#ffffff' }).png().toBuffer();
  const meta = await sharp(img).metadata();
  const raw = await sharp(img)
    .resize(Math.round(meta.width! * stretch), meta.height!, { fit: 'fill' })
    .extend({ top: pad, bottom: pad, left: pad, right: pad, background: '#ffffff' })
    .removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  if (raw.info.channels !== 3) throw new Error(`${g}: expected 3 channels, got ${raw.info.channels}`);
  samples.push({ name: g, gt, png, gray: { data: raw.data, width: raw.info.width, height: raw.info.height } });
}

/** Ground-truth line kind and whether its in-line checks pass (fake specimens sometimes do not). */
const gtInfo = samples.map((s) => {
  const r = correctMrzLine(s.gt);
  return { kind: r.kind, hasChecks: r.checks.length > 0, gtChecksPass: r.checks.length > 0 && r.checks.every((c) => c.valid), unchanged: r.line === s.gt };
});

function report(label: string, reads: string[], ms: number, correctForChecks: boolean): void {
  let exact = 0;
  let dist = 0;
  let chars = 0;
  let checkLines = 0;
  let checkPass = 0;
  let readable = 0;
  let readablePass = 0;
  let passWrong = 0;
  samples.forEach((s, i) => {
    const r = reads[i]!;
    if (r === s.gt) exact++;
    dist += Math.min(editDistance(r, s.gt), s.gt.length);
    chars += s.gt.length;
    const info = gtInfo[i]!;
    if (info.gtChecksPass) {
      checkLines++;
      const rr = correctMrzLine(r, info.kind ?? undefined, { correct: correctForChecks });
      const ok = rr.kind !== null && rr.checks.length > 0 && rr.checks.every((c) => c.valid);
      if (ok) checkPass++;
      if (ok && r !== s.gt) passWrong++;
      if (r.length === s.gt.length) {
        readable++;
        if (ok) readablePass++;
      }
    }
  });
  const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : 'n/a');
  const o0 = samples.filter((s, i) => reads[i]!.replace(/O/g, '0') === s.gt.replace(/O/g, '0')).length;
  console.log(
    `${label.padEnd(34)} lines ${pct(exact, samples.length).padStart(6)} (${exact}/${samples.length})  chars ${pct(chars - dist, chars).padStart(6)}  ` +
      `checks ${pct(checkPass, checkLines).padStart(6)} (${checkPass}/${checkLines}, ${passWrong} not exact)  checks|readable ${pct(readablePass, readable).padStart(6)} (${readablePass}/${readable})  ` +
      `lines O=0 ${pct(o0, samples.length)}  ${(ms / samples.length).toFixed(0)} ms/line`,
  );
}

function corrected(reads: string[]): string[] {
  return reads.map((r, i) => correctMrzLine(repairFillers(r), gtInfo[i]!.kind ?? inferLineKind(repairFillers(r)) ?? undefined).line);
}

async function tesseract(model: '4.0.0_best_int' | '4.0.0', whitelist: boolean): Promise<{ reads: string[]; ms: number }> {
  const { createWorker, OEM, PSM } = await import('tesseract.js');
  const pkgDir = path.dirname(require.resolve('@tesseract.js-data/eng/package.json'));
  const worker = await createWorker('eng', OEM.LSTM_ONLY, { langPath: path.join(pkgDir, model), cacheMethod: 'none', gzip: true, logger: () => {}, errorHandler: () => {} });
  await worker.setParameters({
    tessedit_pageseg_mode: PSM.SINGLE_LINE,
    ...(whitelist ? { tessedit_char_whitelist: '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<' } : {}),
  });
  const reads: string[] = [];
  const t0 = performance.now();
  for (const s of samples) {
    const r = await worker.recognize(s.png);
    reads.push(r.data.text.replace(/\s+/g, ''));
  }
  const ms = performance.now() - t0;
  await worker.terminate();
  return { reads, ms };
}

async function paddle(): Promise<{ reads: string[]; ms: number }> {
  const { PaddleOcr } = await import('../models/ocr/paddle.ts');
  const ocr = await PaddleOcr.load(1);
  const reads: string[] = [];
  const t0 = performance.now();
  for (const s of samples) {
    const { data, width, height } = s.gray;
    const img = { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width, height };
    const [r] = await ocr.recognize(img as never, [[[0, 0], [width, 0], [width, height], [0, height]]]);
    reads.push((r?.text ?? '').replace(/\s+/g, ''));
  }
  return { reads, ms: performance.now() - t0 };
}

/** Greedy, fixed-length and grammar-constrained readings of each line from the recogniser's posteriors. */
async function paddleCtc(): Promise<{ greedy: string[]; length: string[]; grammar: string[]; corrected: string[]; ms: number }> {
  const { PaddleOcr } = await import('../models/ocr/paddle.ts');
  const { toMrzPosteriors } = await import('../models/ocr/mrz-posteriors.ts');
  const ocr = await PaddleOcr.load(1);
  const out = { greedy: [] as string[], length: [] as string[], grammar: [] as string[], corrected: [] as string[], ms: 0 };
  const t0 = performance.now();
  for (const s of samples) {
    const { data, width, height } = s.gray;
    const img = { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width, height };
    const [m] = await ocr.recognizeMatrices(img as never, [[[0, 0], [width, 0], [width, height], [0, height]]], { maxWidth: 2048 });
    const post = toMrzPosteriors(m!, ocr.mrzMap);
    const fixed = decodeFixedLength(post, chooseRowLength(post))?.text ?? decodeGreedy(post).text;
    const row = decodeMrzRow(post);
    out.grammar.push(row?.text ?? fixed);
    out.corrected.push(row?.corrected ?? fixed);
    out.greedy.push(decodeGreedy(post).text);
    out.length.push(fixed);
  }
  out.ms = performance.now() - t0;
  return out;
}

const gtPass = gtInfo.filter((g) => g.gtChecksPass).length;
console.log(`MRZ line set: ${samples.length} lines (${gtInfo.filter((g) => g.hasChecks).length} carry in-line check digits, ${gtPass} of them pass on the ground truth)`);
const engines = values.engines!.split(',');
for (const e of engines) {
  let res: { reads: string[]; ms: number };
  if (e === 'tess-eng-raw') res = await tesseract('4.0.0_best_int', false);
  else if (e === 'tess-eng-wl') res = await tesseract('4.0.0_best_int', true);
  else if (e === 'tess-eng-fast-wl') res = await tesseract('4.0.0', true);
  else if (e === 'paddle') res = await paddle();
  else if (e === 'paddle-ctc') {
    const r = await paddleCtc();
    report('paddle-ctc greedy (MRZ classes)', r.greedy, r.ms, false);
    report('paddle-ctc + row length', r.length, r.ms, false);
    report('paddle-ctc + row length + columns', r.grammar, r.ms, false);
    report('paddle-ctc + ... + cost correction', r.corrected, r.ms, false);
    continue;
  } else {
    console.warn(`unknown engine ${e}`);
    continue;
  }
  report(`${e}`, res.reads, res.ms, false);
  const show = Number(values.show);
  if (show > 0) {
    const fixed = corrected(res.reads);
    samples.forEach((s, i) => {
      if (fixed[i] !== s.gt && i < show) console.log(`  gt   ${s.gt}\n  read ${res.reads[i]}\n  fix  ${fixed[i]}`);
    });
  }
  report(`${e} + filler repair + correction`, corrected(res.reads), res.ms, true);
}
