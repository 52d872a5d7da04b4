import { generateDocument } from './test/generators/index.ts';
import { intake } from './models/ocr/intake.ts';
import { getPaddle, getTesseract, readIneFront, readPage } from './models/ocr/pipeline.ts';
const docs = await Promise.all([0,1,2,3].map(i => generateDocument({ type: 'ine', seed: 'cpu', index: i, degrade: true })));
await getPaddle(); await getTesseract();
await readIneFront(new Uint8Array(docs[0]!.images.front!.data));
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
for (const d of docs) {
  let c = cpu(); const img = await intake(new Uint8Array(d.images.front!.data)); const ci = cpu() - c;
  const ocr = await getPaddle();
  c = cpu(); const q = await ocr.detect(img.image, 960); const cd = cpu() - c;
  c = cpu(); await ocr.recognize(img.image, q); const cr = cpu() - c;
  c = cpu(); await readIneFront(new Uint8Array(d.images.front!.data)); const cf = cpu() - c;
  c = cpu(); await readPage(new Uint8Array(d.images.back!.data), { mrzFirst: true }); const cb = cpu() - c;
  console.log(`cpu ms: intake ${ci.toFixed(0)} det ${cd.toFixed(0)} rec ${cr.toFixed(0)} (${q.length} boxes) | full front ${cf.toFixed(0)} back ${cb.toFixed(0)} | img ${img.image.width}x${img.image.height}`);
}
process.exit(0);
