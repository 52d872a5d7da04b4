/**
 * The synthetic 1:N gallery of the fingerprint benchmark, regenerated deterministically from a seed.
 *
 * Sources: our extractor's templates of the 320 FVC2002 DB1_B-DB4_B prints (40 fingers × 8 impressions;
 * DB2 at 569 ppi), cached under /tmp by a hash of extract.ts, mcc.ts and the image files' sizes.
 * Gallery slot g:
 * - g < 40, the mates: impression 1 of finger g under a random rigid transform (rotation ±17°, translation
 *   ±30 px); probes are impressions 2-8 of the same fingers, so every probe has exactly one mate.
 * - g ≥ 40, background fingers: a random source print made into a different finger by a random mirror, a
 *   smooth random displacement field (two sinusoids per axis, amplitude 10-18 px, wavelength 140-260 px),
 *   a smooth random turn of the minutia directions (amplitude 0.35-0.7 rad), a random rotation and
 *   translation, 2 px / 0.05 rad jitter and 20% of the minutiae dropped. That the result is no longer a
 *   mate of its source finger was measured once (docs/fingerprint.md, 1:N search: median best score of
 *   background templates made from the probe's own finger 58.6, of its mate 83.4).
 * Each slot has its own generator state (seed, g), so the gallery of N templates is the first N slots
 * of any larger one and the 1k, 10k, 100k runs share their templates.
 * Cylinders are built by `buildCylindersFast` (identical to mcc.ts's) and cached in one binary file per
 * (seed, sources, code) under /tmp/sello-fp-bench/.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '../domain/shared/mulberry32.ts';
import { decodeFingerprint } from '../models/fingerprint/image.ts';
import { extractMinutiae } from '../domain/fingerprint/extract.ts';
import { buildCylindersFast } from '../domain/fingerprint/cylinders-fast.ts';
import { CW, withGeometry, type CylinderSet } from '../domain/fingerprint/mcc.ts';
import { compactCylinders } from '../domain/fingerprint/gallery.ts';
import type { FingerprintTemplate, Minutia } from '../domain/fingerprint/template.ts';

import { FVC_PPI as PPI, FVC_ROOT } from '../scripts/fvc2002.ts';

export { FVC_ROOT };
const CACHE = '/tmp/sello-fp-bench';
/** Bump when the generation below changes (invalidates the cache). */
const GEN_VERSION = 'gallery-v2';
const LW = CW / 6;

export interface Sources {
  /** 320 templates: index = finger × 8 + (impression − 1), finger 0-39 (DB1 101-110, DB2 101-110, ...). */
  templates: FingerprintTemplate[];
  names: string[];
  /** CPU ms of extraction + cylinders of each DB1_B print when extracted in this run (empty when cached). */
  extractionCpuMs: number[];
}

const codeHash = (): string => {
  const h = createHash('sha1');
  for (const f of ['../domain/fingerprint/extract.ts', '../domain/fingerprint/mcc.ts', '../domain/fingerprint/cylinders-fast.ts', './fingerprint-gallery.ts']) h.update(readFileSync(new URL(f, import.meta.url)));
  return h.digest('hex').slice(0, 12);
};

function imageList(): Array<{ db: string; file: string; name: string }> {
  const out: Array<{ db: string; file: string; name: string }> = [];
  for (const db of ['DB1_B', 'DB2_B', 'DB3_B', 'DB4_B']) for (let f = 101; f <= 110; f++) for (let i = 1; i <= 8; i++) out.push({ db, file: join(FVC_ROOT, db, `${f}_${i}.tif`), name: `${db}/${f}_${i}` });
  return out;
}

/** Extracts (or reads from the cache) the 320 source templates. */
export async function loadSources(opts: { fresh?: boolean } = {}): Promise<Sources> {
  const list = imageList();
  const h = createHash('sha1').update(codeHash());
  for (const it of list) h.update(`${it.name}:${statSync(it.file).size}`);
  const file = join(CACHE, `sources-${h.digest('hex').slice(0, 12)}.json`);
  if (!opts.fresh && existsSync(file)) {
    const cached = JSON.parse(readFileSync(file, 'utf8')) as { templates: FingerprintTemplate[] };
    return { templates: cached.templates, names: list.map((x) => x.name), extractionCpuMs: [] };
  }
  const templates: FingerprintTemplate[] = [];
  const extractionCpuMs: number[] = [];
  for (const it of list) {
    const img = await decodeFingerprint(new Uint8Array(readFileSync(it.file)), PPI[it.db]);
    const c0 = process.cpuUsage();
    const { template } = extractMinutiae(img);
    buildCylindersFast(template);
    const c = process.cpuUsage(c0);
    if (it.db === 'DB1_B') extractionCpuMs.push((c.user + c.system) / 1000);
    templates.push(template);
  }
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(file, JSON.stringify({ templates }));
  return { templates, names: list.map((x) => x.name), extractionCpuMs };
}

/** mulberry32 (domain/shared/mulberry32.ts) seeded by (seed, slot). */
function rng(seed: number, slot: number): () => number {
  return mulberry32((Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(slot + 1, 0xc2b2ae35)) >>> 0);
}

/** Rotation by `a` (radians, counter-clockwise as seen, y down) about the origin, then translation. */
function rigid(ms: Minutia[], a: number, tx: number, ty: number): Minutia[] {
  const c = Math.cos(a), s = Math.sin(a);
  return ms.map((m) => ({ ...m, x: c * m.x + s * m.y + tx, y: -s * m.x + c * m.y + ty, angle: m.angle + a }));
}

/** The minutiae of gallery slot g (see the file's docstring). */
export function galleryMinutiae(src: Sources, seed: number, g: number): Minutia[] {
  const r = rng(seed, g);
  if (g < 40) return rigid(src.templates[g * 8]!.minutiae, (r() - 0.5) * 0.6, (r() - 0.5) * 60, (r() - 0.5) * 60);
  const base = src.templates[Math.floor(r() * src.templates.length)]!.minutiae;
  const n = base.length;
  let cx = 0, cy = 0;
  for (const m of base) { cx += m.x / n; cy += m.y / n; }
  const mirror = r() < 0.5;
  const wave = () => {
    const dir = r() * 2 * Math.PI, lam = 140 + r() * 120, ph = r() * 2 * Math.PI;
    const kx = (Math.cos(dir) * 2 * Math.PI) / lam, ky = (Math.sin(dir) * 2 * Math.PI) / lam;
    return (x: number, y: number) => Math.sin(kx * x + ky * y + ph);
  };
  const ax = 10 + r() * 8, ay = 10 + r() * 8, at = 0.35 + r() * 0.35;
  const wx = wave(), wy = wave(), wt = wave();
  const out: Minutia[] = [];
  for (const m of base) {
    const keep = r() >= 0.2;
    const jx = (r() - 0.5) * 4, jy = (r() - 0.5) * 4, ja = (r() - 0.5) * 0.1;
    if (!keep) continue;
    let x = m.x - cx, y = m.y - cy, a = m.angle;
    if (mirror) { x = -x; a = Math.PI - a; }
    out.push({ ...m, x: x + ax * wx(x, y) + jx, y: y + ay * wy(x, y) + jy, angle: a + at * wt(x, y) + ja });
  }
  return rigid(out, (r() - 0.5) * 2 * Math.PI, 200 + (r() - 0.5) * 60, 250 + (r() - 0.5) * 60);
}

/**
 * The first N slots' cylinders (from the cache when it holds at least N of this seed and code).
 * `onProgress` is called every 10,000 templates built.
 */
export function loadGallery(src: Sources, seed: number, N: number, onProgress?: (done: number) => void): { sets: CylinderSet[]; cached: boolean } {
  // Keyed by content, not by source files: the source minutiae and the cylinders of the first 64 slots as
  // this code builds them, so a change elsewhere in the matcher keeps the cache while any change to what
  // is cached (minutiae, generation, cylinder bits) invalidates it.
  const h = createHash('sha1').update(`${GEN_VERSION}:${seed}`);
  for (const t of src.templates) h.update(JSON.stringify(t.minutiae));
  h.update(writeSets(Array.from({ length: Math.min(64, N) }, (_, g) => buildCylindersFast({ minutiae: galleryMinutiae(src, seed, g) }))));
  const file = join(CACHE, `gallery-${h.digest('hex').slice(0, 12)}.bin`);
  if (existsSync(file)) {
    const sets = readSets(readFileSync(file), N);
    if (sets.length >= N) return { sets: sets.slice(0, N), cached: true };
  }
  const sets: CylinderSet[] = [];
  for (let g = 0; g < N; g++) {
    sets.push(buildCylindersFast({ minutiae: galleryMinutiae(src, seed, g) }));
    if (onProgress && (g + 1) % 10_000 === 0) onProgress(g + 1);
  }
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(file, writeSets(sets));
  return { sets, cached: false };
}

/** Binary layout per set: n (u32), then n×CW bits, n×LW mask (u32), x, y, angle (f32), flip (u32 0/1). */
function writeSets(sets: CylinderSet[]): Buffer {
  let words = 1;
  for (const s of sets) words += 1 + s.n * (CW + LW + 4);
  const out = new Uint32Array(words);
  const f = new Float32Array(out.buffer);
  out[0] = sets.length;
  let o = 1;
  for (const s of sets) {
    out[o++] = s.n;
    out.set(s.bits, o); o += s.n * CW;
    out.set(s.mask, o); o += s.n * LW;
    f.set(s.x, o); o += s.n;
    f.set(s.y, o); o += s.n;
    f.set(s.angle, o); o += s.n;
    out.set(s.flip, o); o += s.n;
  }
  return Buffer.from(out.buffer);
}

function readSets(buf: Buffer, max: number): CylinderSet[] {
  const words = new Uint32Array(buf.buffer, buf.byteOffset, buf.byteLength >> 2).slice();
  const count = Math.min(words[0]!, max);
  const out: CylinderSet[] = [];
  let o = 1;
  for (let i = 0; i < count; i++) {
    const n = words[o++]!;
    const seg = words.subarray(o, o + n * (CW + LW + 4));
    const pf = new Float32Array(seg.buffer, seg.byteOffset, seg.length);
    const at = n * (CW + LW);
    // withGeometry masks bits and mask in place (in this private copy of the file); compactCylinders
    // then copies every array into one buffer, so a set does not keep the whole file alive when dropped.
    out.push(compactCylinders(withGeometry(n, pf.subarray(at, at + n), pf.subarray(at + n, at + 2 * n), pf.subarray(at + 2 * n, at + 3 * n),
      seg.subarray(0, n * CW), seg.subarray(n * CW, at), seg.subarray(at + 3 * n, at + 4 * n))));
    o += n * (CW + LW + 4);
  }
  return out;
}
