/**
 * Merges `scripts/authenticity-eval.ts --json` outputs (e.g. two halves run in parallel) and prints the
 * combined table, re-scoring `is_authentic` with the current `scoreAuthenticity` from the stored signals.
 *
 *   node --import tsx scripts/authenticity-report.ts a.json b.json
 */
import { readFileSync } from 'node:fs';
import { scoreAuthenticity } from '../domain/ocr/authenticity.ts';

type Row = { index: number; variant: string; error?: string; signals?: Record<string, boolean | null>; oldSignals?: Record<string, boolean | null>; ms: number };
const files = process.argv.slice(2);
const runs = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as { seed: string; start: number; count: number; rows: Row[] });
const rows = runs.flatMap((r) => r.rows);
const variants = [...new Set(rows.map((r) => r.variant))];
const cards = new Set(rows.map((r) => r.index)).size;
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : '-');
const line = (label: string, f: (rs: Row[]) => string) => console.log(`${label.padEnd(32)}${variants.map((v) => f(rows.filter((r) => r.variant === v)).padStart(12)).join('')}`);
console.log(`seed ${[...new Set(runs.map((r) => r.seed))].join(',')}, ${cards} cards per variant: share of images on which each signal FAILED`);
console.log(`${''.padEnd(32)}${variants.map((v) => v.padStart(12)).join('')}`);
for (const sig of ['no_local_recompression', 'not_screen_capture', 'not_photocopy', 'face_in_photo_area', 'curp_consistent', 'expected_layout']) {
  line(sig, (rs) => pct(rs.filter((r) => r.signals?.[sig] === false).length, rs.filter((r) => r.signals).length));
}
for (const sig of ['no_local_recompression', 'not_screen_capture', 'not_photocopy', 'face_in_photo_area']) {
  line(`${sig} (1.0.0)`, (rs) => pct(rs.filter((r) => r.oldSignals?.[sig] === false).length, rs.filter((r) => r.oldSignals).length));
}
const authentic = (s: Record<string, boolean | null> | undefined) => !!s && scoreAuthenticity(s, 1, 'report').is_authentic;
// Scoring 1.0.0: its cues, and is_authentic = confidence >= 0.7 and no tampering (capture cues not decisive).
line('is_authentic (1.0.0)', (rs) => pct(rs.filter((r) => { if (!r.oldSignals) return false; const o = scoreAuthenticity(r.oldSignals, 1, 'r'); return o.confidence >= 0.7 && !o.tampering_detected; }).length, rs.length));
line('is_authentic (current)', (rs) => pct(rs.filter((r) => authentic(r.signals)).length, rs.length));
line('errors (no result)', (rs) => String(rs.filter((r) => r.error).length));
line('mean s / image (whole job)', (rs) => (rs.reduce((s, r) => s + r.ms, 0) / rs.length / 1000).toFixed(2));
