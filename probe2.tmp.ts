import { generateDocument } from './test/generators/index.ts';
import { handlers } from './models/ocr/jobs.ts';
const doc = await generateDocument({ type: 'ine', seed: 'dev', index: 1, degrade: true });
const r = await handlers['ocr.extractId']!({ front: new Uint8Array(doc.images.front!.data), back: new Uint8Array(doc.images.back!.data), documentType: 'ine', today: '2026-06-01' });
console.log(JSON.stringify(r.fields), JSON.stringify(doc.truth.fields));
process.exit(0);
