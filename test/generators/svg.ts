/** Small SVG helpers for the document renderers (rasterised by sharp's librsvg). */
import type { Rng } from './rng.ts';

/** Escapes text for SVG content and attributes. */
export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Font families: the UI text uses DejaVu (Debian `fonts-dejavu-core`), the MRZ OCR-B (Debian `fonts-ocr-b`). */
export const FONT = { sans: 'DejaVu Sans', condensed: 'DejaVu Sans Condensed', serif: 'DejaVu Serif', mono: 'DejaVu Sans Mono', ocrb: 'OCR B' } as const;

/** Options of {@link text}. */
export interface TextOpts {
  size: number;
  weight?: 'normal' | 'bold';
  family?: string;
  fill?: string;
  anchor?: 'start' | 'middle' | 'end';
  spacing?: number;
  /** Forces the rendered width (librsvg `textLength`), for fixed-pitch lines like the MRZ. */
  length?: number;
}

/** A `<text>` element at baseline `(x, y)`. */
export function text(x: number, y: number, s: string, o: TextOpts): string {
  const attrs = [
    `x="${x.toFixed(1)}"`, `y="${y.toFixed(1)}"`, `font-family="${o.family ?? FONT.sans}"`, `font-size="${o.size}"`,
    `font-weight="${o.weight ?? 'normal'}"`, `fill="${o.fill ?? '#111'}"`, `text-anchor="${o.anchor ?? 'start'}"`,
  ];
  if (o.spacing !== undefined) attrs.push(`letter-spacing="${o.spacing}"`);
  if (o.length !== undefined) attrs.push(`textLength="${o.length.toFixed(1)}" lengthAdjust="spacing"`);
  return `<text ${attrs.join(' ')} xml:space="preserve">${esc(s)}</text>`;
}

/** A security-print style background: gradient plus fine guilloche waves. */
export function guilloche(rng: Rng, w: number, h: number, c1: string, c2: string, line: string): string {
  const id = `g${rng.int(0, 1e9)}`;
  let waves = '';
  const n = 26;
  const phase = rng.range(0, Math.PI * 2);
  for (let i = 0; i < n; i++) {
    const y0 = (h / n) * i;
    let d = `M0 ${y0.toFixed(1)}`;
    for (let x = 0; x <= w; x += 16) d += ` L${x} ${(y0 + Math.sin(x / 47 + i * 0.5 + phase) * 12 + Math.cos(x / 113 + i) * 6).toFixed(1)}`;
    waves += `<path d="${d}" stroke="${line}" stroke-width="0.8" fill="none" opacity="0.55"/>`;
  }
  return `<defs><linearGradient id="${id}" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${c1}"/><stop offset="1" stop-color="${c2}"/></linearGradient></defs>
<rect width="${w}" height="${h}" fill="url(#${id})"/>${waves}`;
}

/** A decorative QR-like block (finder patterns and random modules; not a decodable code). */
export function fakeQr(rng: Rng, x: number, y: number, size: number): string {
  const n = 29;
  const m = size / n;
  let out = `<rect x="${x}" y="${y}" width="${size}" height="${size}" fill="#fff"/>`;
  const finder = (cx: number, cy: number) =>
    `<rect x="${x + cx * m}" y="${y + cy * m}" width="${7 * m}" height="${7 * m}" fill="#000"/><rect x="${x + (cx + 1) * m}" y="${y + (cy + 1) * m}" width="${5 * m}" height="${5 * m}" fill="#fff"/><rect x="${x + (cx + 2) * m}" y="${y + (cy + 2) * m}" width="${3 * m}" height="${3 * m}" fill="#000"/>`;
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const inFinder = (r < 8 && c < 8) || (r < 8 && c >= n - 8) || (r >= n - 8 && c < 8);
      if (!inFinder && rng.chance(0.5)) out += `<rect x="${(x + c * m).toFixed(1)}" y="${(y + r * m).toFixed(1)}" width="${m.toFixed(2)}" height="${m.toFixed(2)}" fill="#000"/>`;
    }
  }
  return out + finder(0, 0) + finder(n - 7, 0) + finder(0, n - 7);
}

/** A handwritten-looking signature stroke. */
export function signature(rng: Rng, x: number, y: number, w: number, h: number): string {
  let d = `M${x} ${y + h / 2}`;
  for (let i = 1; i <= 9; i++) d += ` Q${(x + (w * (i - 0.5)) / 9).toFixed(1)} ${(y + rng.range(0, h)).toFixed(1)} ${(x + (w * i) / 9).toFixed(1)} ${(y + rng.range(h * 0.2, h * 0.8)).toFixed(1)}`;
  return `<path d="${d}" stroke="#1b2a6b" stroke-width="2" fill="none"/>`;
}

/** Embeds a PNG as an `<image>`. */
export function image(x: number, y: number, w: number, h: number, png: Buffer, opacity = 1): string {
  return `<image x="${x}" y="${y}" width="${w}" height="${h}" opacity="${opacity}" preserveAspectRatio="none" href="data:image/png;base64,${png.toString('base64')}"/>`;
}
