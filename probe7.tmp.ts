import { generateDocument } from './test/generators/index.ts';
import { handlers } from './models/ocr/jobs.ts';
for (const [type, i, deg] of [['ine', 0, true], ['ine', 1, false], ['passport', 0, true]] as const) {
  const d = await generateDocument({ type, seed: 'auth', index: i, degrade: deg });
  const v = await handlers['ocr.authenticity']!({ image: new Uint8Array(d.images.front!.data), back: d.images.back ? new Uint8Array(d.images.back.data) : null, today: '2026-06-01' });
  console.log(type, i, deg, v.is_authentic, v.confidence, v.tampering_detected, v.quality_score, JSON.stringify(v.details.signals));
}
process.exit(0);
