/**
 * Measures the authenticity cues and the score on genuine degraded INE fronts against capture and edit
 * attacks of the same cards (`test/generators/attacks.ts`: screen, photocopy, edit, no_face).
 *
 *   node --import tsx scripts/authenticity-eval.ts [--count 100] [--start 0] [--seed authn-eval] \
 *     [--attacks screen,photocopy,edit,no_face] [--json out.json]
 *
 * For each cue: the rate at which it fails (flags) on genuine fronts and on each attack, with the
 * thresholds of `CUE_THRESHOLDS` / `errorLevelAnalysis`; then `is_authentic` rates. Runs the
 * `ocr.authenticity` job's measurement in-process (front only, no back). `--json` keeps every raw
 * measurement, for choosing thresholds on one seed and reporting on another.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { scoreAuthenticity } from '../domain/ocr/authenticity.ts';
import { measureAuthenticity, type CueMeasurements } from '../models/ocr/authenticity.ts';
import { attackedIneFront, ATTACKS, type Attack } from '../test/generators/attacks.ts';

const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '100' },
    start: { type: 'string', default: '0' },
    seed: { type: 'string', default: 'authn-eval' },
    attacks: { type: 'string', default: ATTACKS.join(',') },
    json: { type: 'string' },
    progress: { type: 'string', default: '20' },
  },
});
const variants = ['genuine', ...(args.attacks!.split(',') as Attack[])] as const;
const count = Number(args.count);
const start = Number(args.start);
type Row = { index: number; variant: string; error?: string; signals?: Record<string, boolean | null>; oldSignals?: Record<string, boolean | null>; cues?: CueMeasurements; isAuthentic?: boolean; oldIsAuthentic?: boolean; confidence?: number; ms: number };
const rows: Row[] = [];
const t0 = performance.now();

for (let i = start; i < start + count; i++) {
  for (const v of variants) {
    const img = await attackedIneFront(args.seed!, i, v);
    const t = performance.now();
    try {
      const m = await measureAuthenticity({ image: new Uint8Array(img.image), documentType: 'ine', today: '2026-06-01' }, { compareScoring100: true });
      const s = scoreAuthenticity(m.signals, m.quality, 'eval');
      // The image cues of scoring 1.0.0 (Krawetz ELA, lag-2..6 autocorrelation <= 0.35, HSV saturation >= 0.04, skin tone).
      const c = m.cues;
      const o = c.scoring100!;
      const old = scoreAuthenticity({ ...m.signals, no_local_recompression: c.ela.passed, not_screen_capture: o.moirePeak <= 0.35, not_photocopy: o.saturation >= 0.04, face_in_photo_area: o.skinPassed ?? m.signals.face_in_photo_area }, m.quality, 'eval');
      rows.push({ index: i, variant: v, signals: s.details.signals, oldSignals: old.details.signals, cues: m.cues, isAuthentic: s.is_authentic, oldIsAuthentic: old.is_authentic, confidence: s.confidence, ms: performance.now() - t });
    } catch (e) {
      rows.push({ index: i, variant: v, error: (e as { code?: string }).code ?? String(e), ms: performance.now() - t });
    }
  }
  const done = i - start + 1;
  if (Number(args.progress) && done % Number(args.progress) === 0) console.error(`  ${done}/${count} cards, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : '-');
const signals = ['no_local_recompression', 'not_screen_capture', 'not_photocopy', 'face_in_photo_area', 'mrz_check_digits', 'curp_consistent', 'expected_layout', 'image_quality'];
console.log(`\nseed ${args.seed}, cards ${start}-${start + count - 1}: share of images on which each signal FAILED (false), then is_authentic`);
console.log(`${'signal'.padEnd(24)}${variants.map((v) => v.padStart(12)).join('')}`);
for (const sig of signals) {
  const cells = variants.map((v) => {
    const rs = rows.filter((r) => r.variant === v && r.signals);
    return pct(rs.filter((r) => r.signals![sig] === false).length, rs.length).padStart(12);
  });
  console.log(`${sig.padEnd(24)}${cells.join('')}`);
}
for (const sig of ['no_local_recompression', 'not_screen_capture', 'not_photocopy', 'face_in_photo_area']) {
  const cells = variants.map((v) => {
    const rs = rows.filter((r) => r.variant === v && r.oldSignals);
    return pct(rs.filter((r) => r.oldSignals![sig] === false).length, rs.length).padStart(12);
  });
  console.log(`${`${sig} (1.0.0)`.padEnd(24)}${cells.join('')}`);
}
console.log(`${'is_authentic (1.0.0)'.padEnd(24)}${variants.map((v) => { const rs = rows.filter((r) => r.variant === v); return pct(rs.filter((r) => r.oldIsAuthentic).length, rs.length).padStart(12); }).join('')}`);
console.log(`${'is_authentic'.padEnd(24)}${variants.map((v) => { const rs = rows.filter((r) => r.variant === v); return pct(rs.filter((r) => r.isAuthentic).length, rs.length).padStart(12); }).join('')}`);
console.log(`${'errors (no result)'.padEnd(24)}${variants.map((v) => String(rows.filter((r) => r.variant === v && r.error).length).padStart(12)).join('')}`);
console.log(`${'mean ms / image'.padEnd(24)}${variants.map((v) => { const rs = rows.filter((r) => r.variant === v); return (rs.reduce((s, r) => s + r.ms, 0) / rs.length).toFixed(0).padStart(12); }).join('')}`);
if (args.json) writeFileSync(args.json, JSON.stringify({ seed: args.seed, start, count, rows }, null, 1));
