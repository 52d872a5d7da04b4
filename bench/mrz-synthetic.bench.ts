/**
 * End-to-end MRZ reading on synthetic documents: INE backs (TD1) and passport data pages (TD3)
 * from the generator (`test/generators`), clean and degraded (phone photo: perspective, rotation
 * up to 15 degrees, blur, uneven light, JPEG 40). Text detection and recognition are the OCR
 * pipeline's (`models/ocr/pipeline.ts`: PaddleOCR PP-OCRv4 on ONNX); the MRZ rows are located by
 * `findTd1Lines`/`findTd3Lines` (`domain/ocr/ine.ts`) and parsed by `domain/mrz` (check-digit-guided
 * correction on). Readers compared:
 * - `paddle`: the pipeline's text as is;
 * - `paddle+x`: the same with `×` (U+00D7, which PP-OCRv4 emits for the OCR-B `X`) read as `X`
 *   before the rows are located;
 * Prints per set and reader: found (MRZ rows located), exact (whole MRZ equals the ground truth),
 * lines (rows exact), checks|found (every check digit passes; target >= 98 %), false-valid (every
 * check passes yet a check-covered data row differs from the ground truth: must stay 0; name rows
 * carry no check digit, their errors show in `lines`), and p50/p95 ms per page of the pipeline read.
 *
 *   node --import tsx bench/mrz-synthetic.bench.ts [--count 40] [--seed mrzbench]
 */
import { parseArgs } from 'node:util';
import { parseMrz } from '../domain/mrz/index.ts';
import { findTd1Lines, findTd3Lines } from '../domain/ocr/ine.ts';
import { readPage, type PipelineLine } from '../models/ocr/pipeline.ts';
import { generateDocument } from '../test/generators/index.ts';

const { values } = parseArgs({ options: { count: { type: 'string', default: '40' }, seed: { type: 'string', default: 'mrzbench' } } });
const count = Number(values.count);
const READERS = ['paddle', 'paddle+x'] as const;
type Reader = (typeof READERS)[number];

interface Stats { n: number; found: number; exact: number; lines: number; lineTotal: number; checks: number; falseValid: number }

const norm = (t: string) => t.toUpperCase().replace(/\s+/g, '').replace(/×/g, 'X');

async function run(type: 'ine' | 'passport', degrade: boolean): Promise<{ stats: Record<Reader, Stats>; ms: number[] }> {
  const stats = Object.fromEntries(READERS.map((r) => [r, { n: 0, found: 0, exact: 0, lines: 0, lineTotal: 0, checks: 0, falseValid: 0 }])) as Record<Reader, Stats>;
  const ms: number[] = [];
  const find = type === 'ine' ? findTd1Lines : findTd3Lines;
  for (let i = 0; i < count; i++) {
    const doc = await generateDocument({ type, seed: values.seed!, index: i, degrade });
    const img = type === 'ine' ? doc.images.back! : doc.images.front!;
    const gt = (doc.truth.fields as { mrz: string }).mrz.split('\n');
    const t0 = performance.now();
    let lines: PipelineLine[] = [];
    try {
      // As ocr.extractId does: MRZ rows first on an INE back; a passport page is read whole (with
      // mrzFirst its two MRZ rows alone fall under readPage's three-line minimum).
      const page = await readPage(new Uint8Array(img.data), { mrzFirst: type === 'ine', checkBlur: false });
      lines = page.lines;
    } catch (e) {
      if (i < 2) console.warn(`  ${type} #${i}: ${(e as Error).message}`);
    }
    ms.push(performance.now() - t0);
    const candidates: Record<Reader, string[]> = {
      paddle: find(lines),
      'paddle+x': find(lines.map((l) => ({ ...l, text: norm(l.text) }))),
    };
    for (const r of READERS) {
      const s = stats[r];
      s.n++;
      s.lineTotal += gt.length;
      const rows = candidates[r];
      if (rows.length !== gt.length) continue;
      s.found++;
      const fixed = parseMrz(rows, { referenceYear: 2026 });
      if (fixed.valid) s.checks++;
      if (fixed.lines.join('\n') === gt.join('\n')) s.exact++;
      const dataRows = type === 'ine' ? [0, 1] : [1];
      if (fixed.valid && dataRows.some((k) => fixed.lines[k] !== gt[k])) s.falseValid++;
      fixed.lines.forEach((l, k) => (s.lines += l === gt[k] ? 1 : 0));
      if (process.env.MRZ_BENCH_SHOW === r && fixed.lines.join('\n') !== gt.join('\n')) console.log(`  gt   ${gt.join(' | ')}\n  read ${rows.join(' | ')}\n  fix  ${fixed.lines.join(' | ')}`);
    }
  }
  return { stats, ms };
}

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : 'n/a');
const q = (ms: number[], p: number) => [...ms].sort((x, y) => x - y)[Math.min(ms.length - 1, Math.floor(p * ms.length))] ?? 0;

console.log(`MRZ on synthetic documents, ${count} per set, seed ${values.seed}`);
for (const type of ['ine', 'passport'] as const) {
  for (const degrade of [false, true]) {
    const { stats, ms } = await run(type, degrade);
    console.log(`${type === 'ine' ? 'INE back (TD1)' : 'passport (TD3)'} ${degrade ? 'degraded' : 'clean'}: pipeline read p50 ${q(ms, 0.5).toFixed(0)} ms, p95 ${q(ms, 0.95).toFixed(0)} ms`);
    for (const r of READERS) {
      const s = stats[r];
      console.log(`  ${r.padEnd(9)} found ${pct(s.found, s.n).padStart(6)}  exact ${pct(s.exact, s.n).padStart(6)}  lines ${pct(s.lines, s.lineTotal).padStart(6)}  checks|found ${pct(s.checks, s.found).padStart(6)}  false-valid ${s.falseValid}`);
    }
  }
}
