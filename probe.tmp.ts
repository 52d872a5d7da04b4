import { generateDocument } from './test/generators/index.ts';
import { readIneFront } from './models/ocr/pipeline.ts';
for (const i of (process.env.IDX ?? '1').split(',').map(Number)) {
const doc = await generateDocument({ type: 'ine', seed: process.env.SEED ?? 'dev', index: i, degrade: true });
const page = await readIneFront(new Uint8Array(doc.images.front!.data));
console.log('#', i, doc.truth.extra.model, page.skewDeg.toFixed(1), page.timings);
for (const l of page.lines) console.log(JSON.stringify(l.text), l.engine, l.confidence.toFixed(2), l.box.x.toFixed(0), l.box.y.toFixed(0), l.box.w.toFixed(0), l.box.h.toFixed(0));
}
process.exit(0);
