/**
 * Liveness measurement on `../shared/data/faces/antispoofing/` (7 images: live, print, replay). Prints,
 * per image, every signal (antispoof CNN, liveness CNN, FFT peak ratio and high-frequency share, the
 * screen-artefact score) and the combined decision at 0.5, then per-signal separation. Seven images are
 * a smoke test, not an accuracy figure. Run: `npm run face:eval:liveness`.
 */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { decodeImage } from '../models/face/image.ts';
import { FaceImage } from '../models/face/engine.ts';
import { livenessDecision, screenArtefactScore, screenFeatures } from '../domain/face/liveness.ts';

const dir = path.resolve(import.meta.dirname, '..', '../shared/data/faces/antispoofing');
if (!existsSync(path.join(dir, 'labels.csv'))) {
  console.warn(`skipped: ${dir}/labels.csv not found (shared data absent)`);
  process.exit(0);
}
const rows = readFileSync(path.join(dir, 'labels.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
const out: { label: string; s: Record<string, number> }[] = [];
for (const [file, label, attack] of rows) {
  const img = await decodeImage(readFileSync(path.join(dir, file!)), file);
  const fi = await FaceImage.from(img);
  try {
    const faces = await fi.detect(0.5);
    if (!faces.length) { console.log(`${file} (${label}) no face detected`); continue; }
    const f = faces.reduce((a, b) => (b.box.w * b.box.h > a.box.w * a.box.h ? b : a));
    const m = await fi.livenessModels(f);
    const feat = screenFeatures(img.data, img.width, img.height, f.box);
    const screen = screenArtefactScore(img.data, img.width, img.height, f.box);
    const d = livenessDecision({ ...m, screen }, 0.5);
    out.push({ label: label!, s: { antispoof: m.antispoof, liveness: m.liveness, peak: feat.peak, highFreq: feat.highFreq, screen, score: d.anti_spoofing_score } });
    console.log(`${file!.padEnd(38)} ${label!.padEnd(5)} ${(attack || '-').padEnd(11)} ${img.width}x${img.height} face ${f.box.w}x${f.box.h}  antispoof ${m.antispoof.toFixed(3)} liveness ${m.liveness.toFixed(3)} fft-peak ${feat.peak.toFixed(3)} hf ${feat.highFreq.toFixed(4)} screen ${screen.toFixed(3)} -> score ${d.anti_spoofing_score.toFixed(3)} is_live ${d.is_live}`);
  } finally { fi.dispose(); }
}
const correct = out.filter((o) => (o.s.score! >= 0.5) === (o.label === 'live')).length;
console.log(`combined decision at 0.5: ${correct}/${out.length} correct`);
for (const k of ['antispoof', 'liveness', 'peak', 'highFreq', 'screen', 'score']) {
  const live = out.filter((o) => o.label === 'live').map((o) => o.s[k]!), spoof = out.filter((o) => o.label !== 'live').map((o) => o.s[k]!);
  let wins = 0;
  for (const a of live) for (const b of spoof) wins += a > b ? 1 : a === b ? 0.5 : 0;
  console.log(`${k.padEnd(10)} live ${live.map((v) => v.toFixed(3)).join(' ')} | spoof ${spoof.map((v) => v.toFixed(3)).join(' ')} | P(live > spoof) ${(wins / (live.length * spoof.length)).toFixed(3)}`);
}

// Bona fide rate on the identity set: web photos and crops of real faces (not attack captures, though
// some are TV stills and downscaled), as a rough estimate of how often genuine users would be refused.
const labels = path.join(dir, '..', 'labels.csv');
if (existsSync(labels)) {
  const lines = readFileSync(labels, 'utf8').trim().split('\n').slice(1);
  let n = 0, live = 0;
  const refused: string[] = [];
  for (const line of lines) {
    const file = line.split(',')[0]!;
    if (!/,1,/.test(line)) continue;
    let fi: FaceImage | null = null;
    try {
      const img = await decodeImage(readFileSync(path.join(dir, '..', file)), file);
      fi = await FaceImage.from(img);
      const faces = await fi.detect(0.5);
      if (!faces.length) continue;
      const f = faces.reduce((a, b) => (b.box.w * b.box.h > a.box.w * a.box.h ? b : a));
      const d = livenessDecision({ ...(await fi.livenessModels(f)), screen: screenArtefactScore(img.data, img.width, img.height, f.box) }, 0.5);
      n++; if (d.is_live) live++; else refused.push(file);
    } catch { /* undecodable or too small: not part of this estimate */ } finally { fi?.dispose(); }
  }
  console.log(`identity-set photos judged live at 0.5: ${live}/${n} (${((100 * live) / Math.max(1, n)).toFixed(1)}%); refused: ${refused.join(', ')}`);
}
