/**
 * WSQ (FBI Wavelet Scalar Quantization) detection and decoding.
 *
 * Written from the FBI "WSQ Gray-scale Fingerprint Image Compression Specification" (IAFIS-IC-0110, v3):
 * - markers (spec Table 1): SOI FFA0, EOI FFA1, SOF FFA2, SOB FFA3, DTT FFA4, DQT FFA5, DHT FFA6,
 *   DRT FFA7, COM FFA8; entropy-coded data uses 0xFF00 byte stuffing;
 * - the wavelet decomposition tree (20 nodes) and the quantization tree (64 subbands, of which the first
 *   60 are coded) are laid out after the spec's appendix (the same split rules as NBIS `build_w_tree` /
 *   `build_q_tree`: odd lengths give the extra sample to the lowpass half, except where a node is
 *   spectrally inverted);
 * - Huffman tables are canonical (JPEG-style BITS/HUFFVAL); symbols 1-100 are zero runs, 101/102 an
 *   8-bit positive/negative coefficient, 103/104 a 16-bit one, 105/106 an 8/16-bit zero run, 107-254
 *   the coefficient `symbol - 180`;
 * - dequantization: `q * (p - C) + Z/2` for p > 0, `q * (p + C) - Z/2` for p < 0, 0 for p = 0, with the
 *   DQT bin centre C, bin widths q and zero-bin widths Z;
 * - synthesis with the DTT filters (odd, symmetric: the 9/7 biorthogonal pair of the spec) and
 *   whole-sample symmetric extension at both ends, columns then rows per node, deepest node first;
 * - pixels = round(x * r + m) clamped to 0..255 with the SOF shift m and scale r.
 *
 * Hostile input: every read is bounds-checked, dimensions are capped at {@link WSQ_MAX_SIDE} and
 * {@link WSQ_MAX_PIXELS} before any allocation, and the number of decoded coefficients is capped at the
 * subband total, so a cut, flipped or inflated file fails with an Error instead of hanging.
 * Even-length (asymmetric) filter banks, allowed by the spec but not used by FBI-certified encoders, are
 * refused with a clear error.
 */
import { fingerprintJobError } from '../../domain/fingerprint/errors.ts';
import type { GrayImage } from '../../domain/fingerprint/extract.ts';

/** Largest accepted side (px) of a WSQ image. */
export const WSQ_MAX_SIDE = 4000;
/** Largest accepted pixel count of a WSQ image. */
export const WSQ_MAX_PIXELS = 4_000_000;
const MIN_SIDE = 32;

const M = { SOI: 0xffa0, EOI: 0xffa1, SOF: 0xffa2, SOB: 0xffa3, DTT: 0xffa4, DQT: 0xffa5, DHT: 0xffa6, DRT: 0xffa7, COM: 0xffa8 } as const;

/** True when the bytes start with the WSQ SOI marker 0xFFA0 followed by another marker. */
export function isWsq(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0xff && b[1] === 0xa0 && b[2] === 0xff;
}

class WsqError extends Error {}

class Reader {
  pos = 0;
  constructor(readonly b: Uint8Array) {}
  need(n: number): void {
    if (this.pos + n > this.b.length) throw new WsqError(`truncated at byte ${this.pos}`);
  }
  u8(): number {
    this.need(1);
    return this.b[this.pos++]!;
  }
  u16(): number {
    this.need(2);
    const v = (this.b[this.pos]! << 8) | this.b[this.pos + 1]!;
    this.pos += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.b[this.pos]! * 0x1000000 + ((this.b[this.pos + 1]! << 16) | (this.b[this.pos + 2]! << 8) | this.b[this.pos + 3]!);
    this.pos += 4;
    return v;
  }
  /** A scaled value: exponent byte e then an integer v, giving v / 10^e. */
  scaled(intBytes: 2 | 4): number {
    const e = this.u8();
    const v = intBytes === 2 ? this.u16() : this.u32();
    return v / 10 ** e;
  }
}

interface Node { x: number; y: number; w: number; h: number }
interface WNode extends Node { invRow: boolean; invCol: boolean }
interface Huffman { maxCode: Int32Array; minCode: Int32Array; valPtr: Int32Array; values: Uint8Array }

/** Half length split: [first, second] halves of `len`; the odd sample goes to the first unless `firstShort`. */
function split(len: number, firstShort: boolean): [number, number] {
  if (len % 2 === 0) return [len / 2, len / 2];
  return firstShort ? [(len - 1) / 2, (len + 1) / 2] : [(len + 1) / 2, (len - 1) / 2];
}

/** The 20-node wavelet tree (spec appendix): node i covers the region split at that decomposition step. */
function waveletTree(width: number, height: number): WNode[] {
  const t: WNode[] = Array.from({ length: 20 }, () => ({ x: 0, y: 0, w: 0, h: 0, invRow: false, invCol: false }));
  for (const i of [2, 4, 7, 9, 11, 13, 16, 18]) t[i]!.invRow = true;
  for (const i of [3, 5, 8, 9, 12, 13, 17, 18]) t[i]!.invCol = true;
  // quad split of node p1 into children p2..p2+3 (p2+3 only when `full`)
  const quad = (p1: number, p2: number, w: number, h: number, x: number, y: number, full: boolean): void => {
    Object.assign(t[p1]!, { x, y, w, h });
    const [w0, w1] = split(w, p1 === 4);
    const [h0, h1] = split(h, p1 === 5);
    Object.assign(t[p2]!, { x, y, w: w0, h: h0 });
    Object.assign(t[p2 + 1]!, { x: x + w0, y, w: w1, h: h0 });
    Object.assign(t[p2 + 2]!, { x, y: y + h0, w: w0, h: h1 });
    if (full) Object.assign(t[p2 + 3]!, { x: x + w0, y: y + h0, w: w1, h: h1 });
  };
  quad(0, 1, width, height, 0, 0, false);
  const [lx, lx2] = split(t[1]!.w, false);
  const [ly, ly2] = split(t[1]!.h, false);
  quad(4, 6, lx2, ly, lx, 0, true);
  quad(5, 10, lx, ly2, 0, ly, true);
  quad(14, 15, lx, ly, 0, 0, true);
  Object.assign(t[19]!, { x: 0, y: 0, w: Math.ceil(t[15]!.w / 2), h: Math.ceil(t[15]!.h / 2) });
  return t;
}

/** Four subbands of a region in raster order (p, p+1 top; p+2, p+3 bottom); odd halves give the extra sample first. */
function quad4(q: Node[], p: number, w: number, h: number, x: number, y: number, wFirstShort = false, hFirstShort = false): void {
  const [w0, w1] = split(w, wFirstShort);
  const [h0, h1] = split(h, hFirstShort);
  q[p] = { x, y, w: w0, h: h0 };
  q[p + 1] = { x: x + w0, y, w: w1, h: h0 };
  q[p + 2] = { x, y: y + h0, w: w0, h: h1 };
  q[p + 3] = { x: x + w0, y: y + h0, w: w1, h: h1 };
}

/** Sixteen subbands of a node: a 2x2 split whose quarters are each split 2x2 again (spec appendix). */
function quad16(q: Node[], p: number, w: number, h: number, x: number, y: number, invRow: boolean, invCol: boolean): void {
  const [tx, t2x] = split(w, invCol);
  const [ty, t2y] = split(h, invRow);
  quad4(q, p, tx, ty, x, y);
  quad4(q, p + 4, t2x, ty, x + tx, y, true, false);
  quad4(q, p + 8, tx, t2y, x, y + ty, false, true);
  quad4(q, p + 12, t2x, t2y, x + tx, y + ty, true, true);
}

/** The 64-subband quantization tree (spec appendix); subbands 0-59 carry coded coefficients. */
function quantTree(wt: WNode[]): Node[] {
  const q: Node[] = new Array(64);
  const n = (i: number) => wt[i]!;
  quad16(q, 3, n(14).w, n(14).h, n(14).x, n(14).y, false, false);
  quad16(q, 19, n(4).w, n(4).h, n(4).x, n(4).y, false, true);
  quad16(q, 48, n(0).w, n(0).h, n(0).x, n(0).y, false, false);
  quad16(q, 35, n(5).w, n(5).h, n(5).x, n(5).y, true, false);
  quad4(q, 0, n(19).w, n(19).h, n(19).x, n(19).y);
  return q;
}

function buildHuffman(counts: number[], values: Uint8Array): Huffman {
  const maxCode = new Int32Array(17).fill(-1);
  const minCode = new Int32Array(17);
  const valPtr = new Int32Array(17);
  let code = 0;
  let k = 0;
  for (let len = 1; len <= 16; len++) {
    const c = counts[len - 1]!;
    if (c > 0) {
      valPtr[len] = k;
      minCode[len] = code;
      code += c;
      k += c;
      maxCode[len] = code - 1;
    }
    code <<= 1;
  }
  return { maxCode, minCode, valPtr, values };
}

/** Bit reader over entropy-coded data; stops at a marker (0xFF followed by a non-zero byte). */
class Bits {
  private byte = 0;
  private left = 0;
  marker = 0;
  constructor(private r: Reader) {}
  reset(): void {
    this.left = 0;
    this.marker = 0;
  }
  /** One bit, or -1 when the next byte starts a marker (then `marker` is set and the reader sits after it). */
  bit(): number {
    if (this.left === 0) {
      const v = this.r.u8();
      if (v === 0xff) {
        const n = this.r.u8();
        if (n !== 0) {
          this.marker = 0xff00 | n;
          return -1;
        }
      }
      this.byte = v;
      this.left = 8;
    }
    this.left--;
    return (this.byte >> this.left) & 1;
  }
  bitsOrThrow(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const b = this.bit();
      if (b < 0) throw new WsqError('marker inside a coefficient');
      v = (v << 1) | b;
    }
    return v;
  }
}

/**
 * Decodes a WSQ file to 8-bit grey.
 * @returns pixels row-major, width, height and `ppi` from the NISTCOM comment (`PPI n`), or -1 if absent.
 * @throws Error (`WSQ: ...`) on a truncated or corrupt stream, unsupported filters or a side under 32 px;
 *   coded `image_too_large` when the frame declares more than {@link WSQ_MAX_SIDE} px a side or
 *   {@link WSQ_MAX_PIXELS} pixels (checked before any allocation).
 */
export function decodeWsq(bytes: Uint8Array): GrayImage & { ppi: number } {
  try {
    return decode(bytes);
  } catch (error) {
    if (error instanceof WsqError) throw new Error(`WSQ: ${error.message}`);
    throw error;
  }
}

function decode(bytes: Uint8Array): GrayImage & { ppi: number } {
  const r = new Reader(bytes);
  if (r.u16() !== M.SOI) throw new WsqError('missing SOI marker');
  let lo: Float64Array | null = null; // synthesis lowpass filter
  let hi: Float64Array | null = null; // synthesis highpass filter
  let binCentre = NaN;
  let qBin: Float64Array | null = null;
  let zBin: Float64Array | null = null;
  const huff = new Map<number, Huffman>();
  let ppi = -1;

  const readTable = (marker: number): void => {
    const start = r.pos;
    const len = r.u16();
    if (len < 2) throw new WsqError('bad segment length');
    r.need(len - 2);
    const end = start + len;
    if (marker === M.DTT) {
      const hsz = r.u8();
      const lsz = r.u8();
      if (hsz % 2 === 0 || lsz % 2 === 0) throw new WsqError('even-length (asymmetric) wavelet filters are not supported');
      if (hsz < 1 || lsz < 1 || hsz > 31 || lsz > 31) throw new WsqError('bad filter length');
      // The table carries half of each analysis filter; the synthesis filters are their modulated
      // counterparts: g1[c+k] = (-1)^k h0[k], g0[c+k] = (-1)^k h1[k], mirrored about the centre c.
      const half = (n: number): Float64Array => {
        const a = new Float64Array((n + 1) / 2);
        for (let k = 0; k < a.length; k++) {
          const sign = r.u8();
          const v = r.scaled(4);
          a[k] = sign ? -v : v;
        }
        return a;
      };
      const fill = (n: number, a: Float64Array): Float64Array => {
        const f = new Float64Array(n);
        const c = (n - 1) / 2;
        for (let k = 0; k < a.length; k++) f[c + k] = f[c - k] = (k % 2 ? -1 : 1) * a[k]!;
        return f;
      };
      hi = fill(hsz, half(hsz));
      lo = fill(lsz, half(lsz));
    } else if (marker === M.DQT) {
      binCentre = r.scaled(2);
      qBin = new Float64Array(64);
      zBin = new Float64Array(64);
      for (let i = 0; i < 64; i++) {
        qBin[i] = r.scaled(2);
        zBin[i] = r.scaled(2);
      }
    } else if (marker === M.DHT) {
      while (r.pos < end) {
        const id = r.u8();
        const counts: number[] = [];
        let total = 0;
        for (let i = 0; i < 16; i++) total += counts[i] = r.u8();
        if (total > 256 || total === 0) throw new WsqError('bad Huffman table');
        r.need(total);
        const values = bytes.slice(r.pos, r.pos + total);
        r.pos += total;
        huff.set(id, buildHuffman(counts, values));
      }
    } else if (marker === M.COM) {
      const text = new TextDecoder('latin1').decode(bytes.subarray(r.pos, end));
      const m = /^NIST_COM[\s\S]*?\nPPI (\d+)/.exec(text);
      if (m) ppi = Number(m[1]);
    } else if (marker === M.DRT) {
      // restart interval: not needed to decode a stream without restart markers
    } else {
      throw new WsqError(`unexpected marker 0x${marker.toString(16)}`);
    }
    if (r.pos > end) throw new WsqError('segment overruns its length');
    r.pos = end;
  };

  // tables up to the frame header
  let marker = r.u16();
  while (marker !== M.SOF) {
    readTable(marker);
    marker = r.u16();
  }
  const sofStart = r.pos;
  const sofLen = r.u16();
  r.u8(); // black
  r.u8(); // white
  const height = r.u16();
  const width = r.u16();
  const shift = r.scaled(2);
  const scale = r.scaled(2);
  r.pos = sofStart + sofLen;
  if (width > WSQ_MAX_SIDE || height > WSQ_MAX_SIDE || width * height > WSQ_MAX_PIXELS) {
    throw fingerprintJobError('image_too_large', `The WSQ frame declares ${width}x${height} px; at most ${WSQ_MAX_SIDE} px a side and ${WSQ_MAX_PIXELS} pixels`, { width, height, max_side: WSQ_MAX_SIDE, max_pixels: WSQ_MAX_PIXELS });
  }
  if (width < MIN_SIDE || height < MIN_SIDE) throw new WsqError(`image size ${width}x${height} is under ${MIN_SIDE} px a side`);
  if (!(scale > 0)) throw new WsqError('bad scale in the frame header');

  const wt = waveletTree(width, height);
  const qt = quantTree(wt);
  for (const n of [...wt, ...qt]) if (n.w < 1 || n.h < 1) throw new WsqError('image too small for the decomposition');

  // entropy-coded blocks
  let total = 0;
  const coded = (i: number) => qBin !== null && qBin[i]! !== 0;
  const bits = new Bits(r);
  let q: Int32Array | null = null;
  let n = 0;
  marker = r.u16();
  while (marker !== M.EOI) {
    if (marker !== M.SOB) {
      readTable(marker);
      marker = r.u16();
      continue;
    }
    const sobStart = r.pos;
    const sobLen = r.u16();
    const table = huff.get(r.u8());
    r.pos = sobStart + sobLen;
    if (!table) throw new WsqError('block uses an undefined Huffman table');
    if (!q) {
      if (!qBin) throw new WsqError('no quantization table before the first block');
      for (let i = 0; i < 60; i++) if (coded(i)) total += qt[i]!.w * qt[i]!.h;
      q = new Int32Array(total);
    }
    bits.reset();
    for (;;) {
      // one Huffman symbol
      let code = bits.bit();
      if (code < 0) break;
      let len = 1;
      while (code > table.maxCode[len]!) {
        if (++len > 16) throw new WsqError('invalid Huffman code');
        const b = bits.bit();
        if (b < 0) break;
        code = (code << 1) | b;
      }
      if (bits.marker) break; // padding before the marker
      const sym = table.values[table.valPtr[len]! + code - table.minCode[len]!];
      if (sym === undefined) throw new WsqError('invalid Huffman code');
      let run = 0;
      let value = 0;
      if (sym >= 1 && sym <= 100) run = sym;
      else if (sym > 106 && sym < 0xff) value = sym - 180;
      else if (sym === 101) value = bits.bitsOrThrow(8);
      else if (sym === 102) value = -bits.bitsOrThrow(8);
      else if (sym === 103) value = bits.bitsOrThrow(16);
      else if (sym === 104) value = -bits.bitsOrThrow(16);
      else if (sym === 105) run = bits.bitsOrThrow(8);
      else if (sym === 106) run = bits.bitsOrThrow(16);
      else throw new WsqError(`invalid coefficient code ${sym}`);
      if (run > 0) {
        if (n + run > total) throw new WsqError('more coefficients than the subbands hold');
        n += run; // q is zero-initialised
      } else {
        if (n >= total) throw new WsqError('more coefficients than the subbands hold');
        q[n++] = value;
      }
    }
    marker = bits.marker;
  }
  if (!q || !lo || !hi) throw new WsqError('missing block, transform or quantization table');
  if (n !== total) throw new WsqError(`stream ends after ${n} of ${total} coefficients`);

  // dequantization into the subband layout
  const f = new Float64Array(width * height);
  let k = 0;
  for (let i = 0; i < 60; i++) {
    if (!coded(i)) continue;
    const s = qt[i]!;
    const qb = qBin![i]!;
    const zh = zBin![i]! / 2;
    for (let y = 0; y < s.h; y++) {
      let o = (s.y + y) * width + s.x;
      for (let x = 0; x < s.w; x++, o++) {
        const p = q[k++]!;
        f[o] = p === 0 ? 0 : p > 0 ? qb * (p - binCentre) + zh : qb * (p + binCentre) - zh;
      }
    }
  }

  // synthesis, deepest node first: columns (invCol), then rows (invRow)
  const maxLen = Math.max(width, height);
  const line = new Float64Array(maxLen);
  const out = new Float64Array(maxLen);
  for (let i = 19; i >= 0; i--) {
    const nd = wt[i]!;
    for (let x = 0; x < nd.w; x++) {
      const base = nd.y * width + nd.x + x;
      for (let y = 0; y < nd.h; y++) line[y] = f[base + y * width]!;
      synth1d(line, out, nd.h, lo, hi, nd.invCol);
      for (let y = 0; y < nd.h; y++) f[base + y * width] = out[y]!;
    }
    for (let y = 0; y < nd.h; y++) {
      const base = (nd.y + y) * width + nd.x;
      for (let x = 0; x < nd.w; x++) line[x] = f[base + x]!;
      synth1d(line, out, nd.w, lo, hi, nd.invRow);
      for (let x = 0; x < nd.w; x++) f[base + x] = out[x]!;
    }
  }

  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) {
    const v = Math.floor(f[i]! * scale + shift + 0.5);
    data[i] = v < 0 ? 0 : v > 255 ? 255 : v;
  }
  return { data, width, height, ppi };
}

/** Whole-sample symmetric reflection of index i into 0..n-1. */
function reflect(i: number, n: number): number {
  if (n === 1) return 0;
  const p = 2 * (n - 1);
  i %= p;
  if (i < 0) i += p;
  return i > n - 1 ? p - i : i;
}

const PAD = 16; // > half the longest accepted filter (31 taps)
let extLo = new Float64Array(0);
let extHi = new Float64Array(0);

/**
 * One-dimensional synthesis of `n` samples from their lowpass (ceil(n/2)) and highpass (floor(n/2))
 * halves stored in `src` (highpass first when `inv`, the spec's spectral inversion). The lowpass samples
 * sit at even positions and the highpass ones at odd positions of the full-rate signal (zeros between),
 * which is whole-sample symmetric about 0 and n-1 because the filters are odd-length and symmetric; the
 * output is the sum of both upsampled signals convolved with their synthesis filters.
 */
function synth1d(src: Float64Array, dst: Float64Array, n: number, lo: Float64Array, hi: Float64Array, inv: boolean): void {
  const llen = (n + 1) >> 1;
  const hlen = n >> 1;
  const lOff = inv ? hlen : 0;
  const hOff = inv ? 0 : llen;
  const size = n + 2 * PAD;
  if (extLo.length < size) {
    extLo = new Float64Array(size);
    extHi = new Float64Array(size);
  }
  for (let i = -PAD; i < n + PAD; i++) {
    const p = reflect(i, n);
    if (p & 1) {
      extLo[i + PAD] = 0;
      extHi[i + PAD] = src[hOff + (p >> 1)]!;
    } else {
      extLo[i + PAD] = src[lOff + (p >> 1)]!;
      extHi[i + PAD] = 0;
    }
  }
  const lh = (lo.length - 1) / 2;
  const hh = (hi.length - 1) / 2;
  const lc = PAD - lh;
  const hc = PAD - hh;
  const ll = lo.length;
  const hl = hi.length;
  // Reflection keeps parity, so only taps landing on even (lowpass) or odd (highpass) positions count.
  for (let x = 0; x < n; x++) {
    let s = 0;
    for (let j = (lh - x) & 1; j < ll; j += 2) s += lo[j]! * extLo[x + j + lc]!;
    for (let j = (hh - x + 1) & 1; j < hl; j += 2) s += hi[j]! * extHi[x + j + hc]!;
    dst[x] = s;
  }
}
