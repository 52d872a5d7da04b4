/**
 * End-to-end MRZ location and reading on real document images: PassportEye's test images
 * (`../shared/data/mrz/passporteye-testdata/`: passports, ID cards and visas of many states; the
 * number before `_` in a file name is the quality PassportEye scores, 0 = no readable MRZ).
 * Each image goes through the OCR pipeline's page read (`readPage`: intake, PaddleOCR detection and
 * recognition, then the MRZ rows re-read with the constrained decoder); the MRZ is the largest stack
 * of 2-3 MRZ rows (`groupMrzRows`), parsed by `parseMrz` (ICAO Doc 9303 check digits).
 * Prints, over the images with a readable MRZ (score > 0): MRZ found (a layout parsed), all check
 * digits passing, and per image the rows read and the checks that failed.
 *
 *   node --import tsx scripts/mrz-document-eval.ts [--decoder ctc|greedy]
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { decoder: { type: 'string', default: 'ctc' } } });
const { setOcrSettings } = await import('../models/ocr/settings.ts');
if (values.decoder === 'greedy') setOcrSettings({ mrzDecoder: 'greedy' });
const { readPage } = await import('../models/ocr/pipeline.ts');
const { groupMrzRows } = await import('../models/ocr/mrz-rows.ts');
const { parseMrz } = await import('../domain/mrz/index.ts');

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.resolve(repoRoot, '../shared/data/mrz/passporteye-testdata');
if (!existsSync(dir)) {
  console.warn(`mrz-document-eval: ${dir} is absent (../shared/data not mounted); nothing to evaluate`);
  process.exit(0);
}
let readable = 0;
let found = 0;
let valid = 0;
let ms = 0;
for (const name of readdirSync(dir).sort()) {
  const score = Number(name.split('_')[0]);
  if (!(score > 0)) continue;
  readable++;
  const t0 = performance.now();
  let rows: string[] = [];
  let verdict = 'no MRZ';
  try {
    const page = await readPage(new Uint8Array(readFileSync(path.join(dir, name))), { checkBlur: false });
    const groups = groupMrzRows(page.lines as never).filter((g) => g.length >= 2 && g.length <= 3);
    groups.sort((a, b) => b.length * b[0]!.box.w - a.length * a[0]!.box.w);
    rows = groups[0]?.map((l) => l.text.replace(/\s+/g, '')) ?? [];
    if (rows.length) {
      const r = parseMrz(rows, { correct: true });
      if (r.format) {
        found++;
        if (r.valid) valid++;
        verdict = r.valid ? `${r.format} valid` : `${r.format} failed: ${r.checks.filter((c) => !c.valid).map((c) => c.name).join(', ')}`;
      }
    }
  } catch (e) {
    verdict = `error ${(e as { code?: string }).code ?? (e as Error).message}`;
  }
  ms += performance.now() - t0;
  console.log(`${name.padEnd(22)} ${verdict}\n    ${rows.join('\n    ')}`);
}
const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(1)}%`;
console.log(`\ndecoder ${values.decoder}: ${readable} images with a readable MRZ; MRZ found ${found} (${pct(found, readable)}); all check digits pass ${valid} (${pct(valid, readable)} of readable, ${pct(valid, found)} of found); ${(ms / readable).toFixed(0)} ms/image`);
// The OCR models' worker threads (Tesseract's, the recogniser helpers) keep the event loop alive; ocr-eval.ts ends the same way.
process.exit(0);
