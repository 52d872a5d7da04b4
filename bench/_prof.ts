import { handlers } from '../models/ocr/jobs.ts';
import { setOcrSettings } from '../models/ocr/settings.ts';
import { generateDocument } from '../test/generators/index.ts';
setOcrSettings({ recBatch: 1, recThreads: 1, tesseractWorkers: 1 });
const docs = await Promise.all([0, 1, 2, 3, 4].map((i) => generateDocument({ type: 'ine', seed: 'bench', index: i, degrade: true })));
await handlers['ocr.readPage']({ image: new Uint8Array(docs[0]!.images.front!.data), kind: 'ineFront' });
for (const d of docs.slice(1)) await handlers['ocr.readPage']({ image: new Uint8Array(d.images.front!.data), kind: 'ineFront' });
process.exit(0);
