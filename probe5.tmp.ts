import { generateDocument } from './test/generators/index.ts';
import { readPassport } from './models/ocr/pipeline.ts';
for (const i of (process.env.IDX ?? '0').split(',').map(Number)) {
const doc = await generateDocument({ type: 'passport', seed: 'dev3', index: i, degrade: true });
const page = await readPassport(new Uint8Array(doc.images.front!.data));
for (const l of page.lines) console.log(JSON.stringify(l.text), [...l.text].filter(c => c.charCodeAt(0) > 127).map(c => c + ':' + c.charCodeAt(0).toString(16)).join(' '), l.engine, l.box.x.toFixed(0), l.box.y.toFixed(0), l.box.h.toFixed(0));
console.log(doc.truth.fields);
}
process.exit(0);
