import { generateDocument } from './test/generators/index.ts';
import { handlers } from './models/ocr/jobs.ts';
import { readBill } from './models/ocr/pipeline.ts';
const type = (process.env.T ?? 'electricity_bill') as any;
for (const i of (process.env.IDX ?? '0,1').split(',').map(Number)) {
  const doc = await generateDocument({ type, seed: process.env.SEED ?? 'dev', index: i, degrade: true });
  if (process.env.LINES) { const p = await readBill(new Uint8Array(doc.images.front!.data)); for (const l of p.lines) console.log(JSON.stringify(l.text), l.engine, l.box.x.toFixed(0), l.box.y.toFixed(0), l.box.h.toFixed(0)); }
  try {
    const r = await handlers['ocr.extractDocument']!({ image: new Uint8Array(doc.images.front!.data), documentType: type, today: '2026-06-01' });
    const t = doc.truth.fields as any;
    console.log('#', i, (doc.truth.extra as any).layout);
    for (const k of Object.keys(t)) if (t[k] !== r.fields[k]) console.log('  ', k, JSON.stringify(t[k]), '->', JSON.stringify(r.fields[k]));
  } catch (e) { console.log('#', i, (e as any).code, (e as any).message); }
}
process.exit(0);
