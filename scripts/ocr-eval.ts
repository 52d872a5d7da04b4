/**
 * Per-field exact-match accuracy of the OCR pipeline on synthetic documents with ground truth
 * (`test/generators`, degraded by default: rotation <= 15 deg, perspective, blur, JPEG 40, uneven light,
 * phone-photo backgrounds).
 *
 *   node --import tsx scripts/ocr-eval.ts --type ine|passport|electricity_bill|phone_bill|cable_bill|all \
 *     [--count 200] [--seed eval] [--clean] [--start 0] [--failures 5] [--json out.json] [--progress N]
 *
 * Runs the job handlers in-process, one job at a time (one worker's worth of CPU). An INE goes through
 * the same orchestration as `POST /v1/ocr/extract/id` (`domain/ocr/extract-ine.ts`: one `ocr.readPage`
 * job per side, combined by `buildIneResult`), so its figures are those of the HTTP path; passports go
 * through `ocr.extractId` and bills through `ocr.extractDocument`, as over HTTP. Prints, per type, each
 * field's exact-match rate, the validation agreement, the error codes raised and the mean time per document.
 * `--engine paddle` disables the Tesseract Spanish re-read (per-engine comparison). `--rotate180` turns
 * every image upside down first (JPEG quality 90), to measure the direction classifier (`angle.ts`).
 * `--plain` prints names and addresses without accents or Ñ (`MARIA NUNEZ`; the generator's `accents: false`):
 * what is printed is the truth, so an accent the pipeline adds is an error.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { extractIne, type RunReadPageJob } from '../domain/ocr/extract-ine.ts';
import { handlers, serially } from '../models/ocr/jobs.ts';
import { setOcrSettings } from '../models/ocr/settings.ts';
import { generateDocument, type DocumentType } from '../test/generators/index.ts';

const { values: args } = parseArgs({
  options: {
    type: { type: 'string', default: 'all' },
    count: { type: 'string', default: '200' },
    start: { type: 'string', default: '0' },
    seed: { type: 'string', default: 'eval' },
    clean: { type: 'boolean', default: false },
    failures: { type: 'string', default: '3' },
    engine: { type: 'string', default: 'both' },
    json: { type: 'string' },
    progress: { type: 'string', default: '0' },
    rotate180: { type: 'boolean', default: false },
    plain: { type: 'boolean', default: false },
    'rec-batch': { type: 'string' },
  },
});
if (args.engine === 'paddle') setOcrSettings({ spanishReread: false });
if (args['rec-batch']) setOcrSettings({ recBatch: Number(args['rec-batch']) });
/** The route's job queue stand-in: the worker's own handlers, one job at a time. */
const runJob: RunReadPageJob = serially((type, input) => handlers[type](input));
const sharp = (await import('sharp')).default;
/** The image as sent: upside down with `--rotate180`. */
const turn = async (b: Buffer): Promise<Uint8Array> => new Uint8Array(args.rotate180 ? await sharp(b).rotate(180).jpeg({ quality: 90 }).toBuffer() : b);

const types: DocumentType[] = args.type === 'all' ? ['ine', 'passport', 'electricity_bill', 'phone_bill', 'cable_bill'] : [args.type as DocumentType];
const count = Number(args.count);
const start = Number(args.start);
const today = '2026-06-01'; // the generator's reference date for `expired`
const report: Record<string, unknown> = {};

function flatten(o: Record<string, unknown>, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flatten(v as Record<string, unknown>, `${prefix}${k}.`));
    else out[`${prefix}${k}`] = String(v ?? '');
  }
  return out;
}

for (const type of types) {
  const hits: Record<string, number> = {};
  const failures: Record<string, string[]> = {};
  const errors: Record<string, number> = {};
  let validationOk = 0;
  let mrzOk = 0;
  let n = 0;
  let totalMs = 0;
  /** Per document: the fields it missed, with what was read (for before/after comparisons of `--json` files). */
  const misses: Record<number, Record<string, string>> = {};
  const print = (final: boolean) => {
    console.log(`\n== ${type} (${n}${final ? '' : ' so far'} ${args.clean ? 'clean' : 'degraded'}${args.rotate180 ? ' upside-down' : ''}${args.plain ? ' unaccented' : ''} documents, seed ${args.seed}, engine ${args.engine}) mean ${(totalMs / n / 1000).toFixed(2)} s/doc`);
    for (const [k, h] of Object.entries(hits)) console.log(`    ${k.padEnd(32)} ${((100 * h) / n).toFixed(1).padStart(5)}%    (${h}/${n})`);
    console.log(`    ${'validation (exact object)'.padEnd(32)} ${((100 * validationOk) / n).toFixed(1).padStart(5)}%`);
    if (type === 'ine' || type === 'passport') console.log(`    ${'mrz check digits pass'.padEnd(32)} ${((100 * mrzOk) / n).toFixed(1).padStart(5)}%`);
    if (Object.keys(errors).length) console.log(`    errors: ${JSON.stringify(errors)}`);
    for (const [k, list] of Object.entries(failures)) for (const f of list) console.log(`        ${k}: ${f}`);
  };
  for (let i = start; i < start + count; i++) {
    const doc = await generateDocument({ type, seed: args.seed, index: i, degrade: !args.clean, accents: !args.plain });
    const truth = flatten(doc.truth.fields as unknown as Record<string, unknown>);
    const t0 = performance.now();
    let got: Record<string, string> = {};
    let validation: unknown = null;
    try {
      if (type === 'ine') {
        const r = await extractIne(runJob, { front: await turn(doc.images.front!.data), back: doc.images.back ? await turn(doc.images.back.data) : null, today });
        got = flatten(r.fields as unknown as Record<string, unknown>);
        validation = r.validation;
      } else if (type === 'passport') {
        const r = await handlers['ocr.extractId']({ front: await turn(doc.images.front!.data), back: null, documentType: type, today });
        got = flatten(r.fields as unknown as Record<string, unknown>);
        validation = r.validation;
      } else {
        const r = await handlers['ocr.extractDocument']({ image: await turn(doc.images.front!.data), documentType: type, today });
        got = flatten(r.fields as unknown as Record<string, unknown>);
        validation = { mrz: 'not_present', curp: 'not_present', expired: null };
      }
    } catch (e) {
      const code = (e as { code?: string }).code ?? 'crash';
      errors[code] = (errors[code] ?? 0) + 1;
      if (code === 'crash') console.error(e);
    }
    totalMs += performance.now() - t0;
    n++;
    if (JSON.stringify(validation) === JSON.stringify(doc.truth.validation)) validationOk++;
    if ((validation as { mrz?: string } | null)?.mrz === 'ok') mrzOk++;
    for (const [k, v] of Object.entries(truth)) {
      if (got[k] === v) hits[k] = (hits[k] ?? 0) + 1;
      else {
        hits[k] ??= 0;
        (misses[i] ??= {})[k] = got[k] ?? '';
        const list = (failures[k] ??= []);
        if (list.length < Number(args.failures)) list.push(`#${i}: want ${JSON.stringify(v)} got ${JSON.stringify(got[k] ?? null)}`);
      }
    }
    if (Number(args.progress) > 0 && n % Number(args.progress) === 0 && i < start + count - 1) print(false);
  }
  print(true);
  report[type] = { n, hits, errors, validationOk, mrzOk, meanSeconds: totalMs / n / 1000, misses };
}
if (args.json) writeFileSync(args.json, JSON.stringify(report, null, 1));
process.exit(0);
