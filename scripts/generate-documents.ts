/**
 * CLI of the synthetic document generator.
 *
 *   node --import tsx scripts/generate-documents.ts --type ine|passport|electricity_bill|phone_bill|cable_bill \
 *     --count N --seed S --out DIR [--degrade] [--model D|E|F|G] [--reference-date YYYY-MM-DD]
 *
 * Writes, per document, `<type>-<index>-<side>.png|jpg` and `<type>-<index>.json` (ground truth,
 * see docs/ocr-synthetic.md), plus `manifest.json` listing them. Exit code 2 on bad arguments.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DOCUMENT_TYPES, generateDocument, type DocumentType, type GroundTruth } from '../test/generators/index.ts';
import { INE_MODELS, type IneModel } from '../test/generators/ine.ts';

function fail(msg: string): never {
  console.error(`generate-documents: ${msg}`);
  process.exit(2);
}

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        type: { type: 'string' }, count: { type: 'string', default: '1' }, seed: { type: 'string', default: '1' }, out: { type: 'string' },
        degrade: { type: 'boolean', default: false }, model: { type: 'string' }, 'reference-date': { type: 'string' },
      },
    });
  } catch (e) {
    return fail((e as Error).message);
  }
})();

const type = values.type as DocumentType | undefined;
if (!type || !DOCUMENT_TYPES.includes(type)) fail(`--type must be one of ${DOCUMENT_TYPES.join(', ')}`);
const count = Number(values.count);
if (!Number.isInteger(count) || count < 1 || count > 100_000) fail('--count must be an integer 1-100000');
if (!values.out) fail('--out DIR is required');
if (values.model !== undefined && !INE_MODELS.includes(values.model as IneModel)) fail(`--model must be one of ${INE_MODELS.join(', ')}`);
const ref = values['reference-date'];
if (ref !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(ref)) fail('--reference-date must be YYYY-MM-DD');

const out = path.resolve(values.out);
mkdirSync(out, { recursive: true });
const manifest: string[] = [];
const t0 = Date.now();
for (let i = 0; i < count; i++) {
  const doc = await generateDocument({ type, seed: values.seed!, index: i, degrade: values.degrade, model: values.model as IneModel | undefined, referenceDate: ref });
  const base = `${type}-${String(i).padStart(4, '0')}`;
  const images: Record<string, string> = {};
  for (const [side, img] of Object.entries(doc.images)) {
    const name = `${base}-${side}.${img.ext}`;
    writeFileSync(path.join(out, name), img.data);
    images[side] = name;
  }
  const truth: GroundTruth = { ...doc.truth, images };
  writeFileSync(path.join(out, `${base}.json`), `${JSON.stringify(truth, null, 2)}\n`);
  manifest.push(`${base}.json`);
}
writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify({ type, seed: values.seed, count, degraded: values.degrade, documents: manifest }, null, 2)}\n`);
console.log(`generated ${count} ${type} document(s) in ${out} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
