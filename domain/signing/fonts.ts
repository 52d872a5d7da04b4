/**
 * Fonts of the certificate of completion and of typed signatures, so a name prints as it was written
 * (`Zoë 李小龍`, not `Zoë ???`). Two OFL families from npm packages, both Noto Sans:
 * - `@embedpdf/fonts-latin`: Latin (every European language, Vietnamese), Greek and Cyrillic;
 * - `@embedpdf/fonts-sc`: Noto Sans CJK SC (Hans), which also covers traditional Han characters,
 *   Japanese kana and full-width forms.
 * Only the characters a PDF uses are embedded: each font is cut by HarfBuzz's subsetter
 * (`subset-font`), a few KB per file (pdf-lib's own subsetting breaks these fonts: pdftoppm and MuPDF
 * draw nothing). What neither font covers (emoji, Hangul, Arabic, Devanagari...) cannot be printed:
 * names and titles holding such characters are refused when the document is created (422
 * `unsupported_characters`, {@link unprintableCharacters}); free text written later (a decline reason,
 * a user agent) prints them as `?`.
 *
 * Size cost: the two packages add 53 MB to `node_modules` (12 MB of Latin weights, 41 MB of CJK
 * weights); three Latin faces (2 MB) and one CJK face (8.4 MB) are read, once per process, when a
 * certificate is rendered or a name checked.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fontkit from '@pdf-lib/fontkit';

const require = createRequire(import.meta.url);
const fontsOf = (pkg: string) => join(dirname(require.resolve(pkg)), '..', 'fonts');
const LATIN = fontsOf('@embedpdf/fonts-latin');
const CJK = fontsOf('@embedpdf/fonts-sc');

/** The font files used, by face. */
export const FONT_FILES = {
  regular: join(LATIN, 'NotoSans-Regular.ttf'),
  bold: join(LATIN, 'NotoSans-Bold.ttf'),
  italic: join(LATIN, 'NotoSans-Italic.ttf'),
  cjk: join(CJK, 'NotoSansHans-Regular.otf'),
} as const;
export type Face = keyof typeof FONT_FILES;

const bytes = new Map<Face, Buffer>();
/** The bytes of a face's font file (read once per process). */
export function fontBytes(face: Face): Buffer {
  let b = bytes.get(face);
  if (!b) {
    b = readFileSync(FONT_FILES[face]);
    bytes.set(face, b);
  }
  return b;
}

let coverage: { latin: Set<number>; cjk: Set<number> } | null = null;
function sets() {
  coverage ??= {
    latin: new Set(fontkit.create(fontBytes('regular')).characterSet),
    cjk: new Set(fontkit.create(fontBytes('cjk')).characterSet),
  };
  return coverage;
}

/** True when the Latin family (regular, bold and italic share one character set) has the code point. */
export function inLatin(cp: number): boolean {
  return sets().latin.has(cp);
}

/** True when the code point can be printed by one of the two families. */
export function isPrintable(cp: number): boolean {
  const s = sets();
  return s.latin.has(cp) || s.cjk.has(cp);
}

/**
 * The distinct characters of `text` (after NFC) that neither font can print, in order of appearance;
 * empty when everything prints. Line breaks and tabs are not judged here.
 */
export function unprintableCharacters(text: string): string[] {
  const out = new Set<string>();
  for (const ch of text.normalize('NFC')) {
    if (ch === '\n' || ch === '\r' || ch === '\t') continue;
    if (!isPrintable(ch.codePointAt(0)!)) out.add(ch);
  }
  return [...out];
}

/** `text` ready to draw: NFC, no-break spaces as spaces, every unprintable character as `?`. */
export function printable(text: string): string {
  let out = '';
  for (const ch of text.normalize('NFC').replace(/[\u00A0\u202F\u2007]/g, ' ')) out += ch === '\n' || isPrintable(ch.codePointAt(0)!) ? ch : '?';
  return out;
}

type Subset = (font: Buffer, text: string, options: { targetFormat: 'truetype' }) => Promise<Buffer>;
const subsetFont = require('subset-font') as Subset;

/**
 * A face cut down to the characters of `text` (plus space and `?`), as an OpenType font file
 * (TrueType outlines for the Latin faces, CFF for the CJK one) for pdf-lib to embed whole.
 */
export async function subsetFace(face: Face, text: string): Promise<Buffer> {
  return subsetFont(fontBytes(face), `${text} ?`, { targetFormat: 'truetype' });
}
