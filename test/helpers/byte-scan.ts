/**
 * Byte scans for erasure tests (issue 28): what the service wrote is read raw, file by file, and searched
 * for marker strings and the byte renderings of templates, so a deleted row lingering in a SQLite free
 * page or WAL, a stale HNSW snapshot or a log line is found.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** A named byte sequence to look for. */
export interface Needle {
  /** What it is, for the failure message (never the bytes themselves). */
  name: string;
  bytes: Buffer;
}

/** A needle for a string, in UTF-8. */
export const textNeedle = (name: string, text: string): Needle => ({ name, bytes: Buffer.from(text, 'utf8') });

/** The IEEE 754 binary16 bits of `x`, rounded to nearest even (as usearch's f16 quantisation stores them). */
export function f16Bits(x: number): number {
  const u = new Uint32Array(new Float32Array([x]).buffer)[0]!;
  const sign = (u >>> 16) & 0x8000;
  let exp = ((u >>> 23) & 0xff) - 127 + 15;
  let mant = u & 0x7fffff;
  if (exp >= 0x1f) return sign | 0x7c00; // overflow to infinity (templates are unit vectors: never)
  if (exp <= 0) {
    // Subnormal half: shift the implicit bit in, round to nearest even.
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    const half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    return sign | (rest > mid || (rest === mid && half & 1) ? half + 1 : half);
  }
  const rest = mant & 0x1fff;
  mant >>>= 13;
  if (rest > 0x1000 || (rest === 0x1000 && mant & 1)) {
    mant++;
    if (mant === 0x400) {
      mant = 0;
      exp++;
    }
  }
  return sign | (exp << 10) | mant;
}

/** Floats `start .. start+length` of `v` as float32 little-endian bytes. */
export function f32Window(v: Float32Array, start: number, length: number): Buffer {
  return Buffer.from(v.slice(start, start + length).buffer);
}

/** Floats `start .. start+length` of `v` as binary16 little-endian bytes. */
export function f16Window(v: Float32Array, start: number, length: number): Buffer {
  const b = Buffer.alloc(2 * length);
  for (let i = 0; i < length; i++) b.writeUInt16LE(f16Bits(v[start + i]!), 2 * i);
  return b;
}

/** Every regular file under `dir`, recursively (absolute paths). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(p));
    else if (entry.isFile()) out.push(p);
  }
  return out;
}

/** One needle found in one source. */
export interface Hit {
  needle: string;
  source: string;
  offset: number;
}

/** Searches `sources` (name -> bytes) for every needle; returns each needle found, with where. */
export function scanBuffers(sources: ReadonlyArray<readonly [string, Buffer]>, needles: readonly Needle[]): Hit[] {
  const hits: Hit[] = [];
  for (const [source, bytes] of sources) {
    for (const n of needles) {
      const offset = bytes.indexOf(n.bytes);
      if (offset >= 0) hits.push({ needle: n.name, source, offset });
    }
  }
  return hits;
}

/** Reads every file under each of `dirs` and searches it for the needles (paths relative to their dir). */
export function scanDirs(dirs: readonly string[], needles: readonly Needle[]): Hit[] {
  const sources: Array<[string, Buffer]> = [];
  for (const dir of dirs) {
    for (const f of filesUnder(dir)) if (statSync(f).size > 0) sources.push([`${path.basename(dir)}/${path.relative(dir, f)}`, readFileSync(f)]);
  }
  return scanBuffers(sources, needles);
}
