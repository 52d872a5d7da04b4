/**
 * The finalized files of a document (pdf-lib), before their PAdES signature:
 * - the signed document: the original pages with each signature stamped in its placements, then a
 *   certificate-of-completion page (document SHA-256, each signer with time, IP, method, signature id,
 *   signatures without placement, and the audit chain head);
 * - `withAudit`: the same followed by the audit-trail pages (every entry with its hash);
 * - `certificateOnly`: the certificate page and the audit pages alone (`/certificate`).
 */
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFImage, type PDFPage } from 'pdf-lib';
import fontkit from '@pdf-lib/fontkit';
import { DEFAULT_LOCALE, LANGUAGE_TAGS, formatDateTime, formatNumber } from '../shared/locale.ts';
import { inLatin, printable, subsetFace, type Face } from './fonts.ts';
import { SIGNING_MESSAGES } from './messages.ts';
import type { AuditEntry } from './audit.ts';
import type { DocumentState, SignerState } from './document.ts';

export interface RenderInput {
  original: Uint8Array;
  state: DocumentState;
  /** PNG bytes of drawn signatures by signer id. */
  images: Map<string, Uint8Array>;
  audit: AuditEntry[];
  /** Hash of the last audit entry before finalize (printed on the certificate). */
  chainHead: string;
  finalizedAt: string;
  /** Name of the service's signing certificate (printed). */
  signerName: string;
  mode: 'document' | 'withAudit' | 'certificateOnly';
  /** e.firma documents (`certificateOnly`): SHA-256 of the final signed PDF, printed under the original's. */
  finalSha256?: string | null;
}

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 48;

/**
 * A font that draws each run of text with the Latin face, or with the CJK face for characters the Latin
 * one lacks (see `fonts.ts`); text is made {@link printable} first. `standard` wraps a PDF standard font
 * (Courier for hashes: ASCII only).
 */
export interface TextFont {
  width(text: string, size: number): number;
  draw(page: PDFPage, text: string, o: { x: number; y: number; size: number; color: ReturnType<typeof rgb> }): void;
}

function mixedFont(latin: PDFFont, cjk: PDFFont | null): TextFont {
  const runs = (text: string): [PDFFont, string][] => {
    const out: [PDFFont, string][] = [];
    for (const ch of printable(text)) {
      const f = cjk && !inLatin(ch.codePointAt(0)!) && ch !== ' ' ? cjk : latin;
      const last = out.at(-1);
      if (last && last[0] === f) last[1] += ch;
      else out.push([f, ch]);
    }
    return out;
  };
  return {
    width: (text, size) => runs(text).reduce((w, [f, t]) => w + f.widthOfTextAtSize(t, size), 0),
    draw(page, text, o) {
      let x = o.x;
      for (const [f, t] of runs(text)) {
        page.drawText(t, { x, y: o.y, size: o.size, font: f, color: o.color });
        x += f.widthOfTextAtSize(t, o.size);
      }
    },
  };
}

function standard(font: PDFFont): TextFont {
  const ascii = (t: string) => t.replace(/[^\x20-\x7E]/g, '?');
  return {
    width: (text, size) => font.widthOfTextAtSize(ascii(text), size),
    draw: (page, text, o) => page.drawText(ascii(text), { ...o, font }),
  };
}

class Writer {
  page!: PDFPage;
  y = 0;
  constructor(
    readonly doc: PDFDocument,
    readonly font: TextFont,
    readonly bold: TextFont,
    readonly mono: TextFont,
    readonly header: string,
  ) {
    this.newPage();
  }
  newPage(): void {
    this.page = this.doc.addPage([A4.width, A4.height]);
    this.y = A4.height - MARGIN;
    this.font.draw(this.page, this.header, { x: MARGIN, y: A4.height - 28, size: 8, color: rgb(0.4, 0.4, 0.4) });
  }
  ensure(h: number): void {
    if (this.y - h < MARGIN) this.newPage();
  }
  text(t: string, o: { size?: number; font?: TextFont; indent?: number; color?: [number, number, number] } = {}): void {
    const size = o.size ?? 10;
    const font = o.font ?? this.font;
    const x = MARGIN + (o.indent ?? 0);
    const maxW = A4.width - MARGIN - x;
    for (const line of wrap(t, font, size, maxW)) {
      this.ensure(size + 4);
      this.y -= size + 4;
      font.draw(this.page, line, { x, y: this.y, size, color: rgb(...(o.color ?? [0.1, 0.1, 0.1])) });
    }
  }
  gap(h: number): void {
    this.y -= h;
  }
}

function wrap(text: string, font: TextFont, size: number, maxW: number): string[] {
  const out: string[] = [];
  for (const para of printable(text).split('\n')) {
    let line = '';
    for (const word of para.split(/(\s+)/)) {
      const next = line + word;
      if (font.width(next, size) <= maxW || line === '') {
        line = next;
        // A single over-long token (a hash, a run of CJK characters): cut it.
        while (font.width(line, size) > maxW && [...line].length > 1) {
          const chars = [...line];
          let cut = chars.length - 1;
          while (cut > 1 && font.width(chars.slice(0, cut).join(''), size) > maxW) cut--;
          out.push(chars.slice(0, cut).join(''));
          line = chars.slice(cut).join('');
        }
      } else {
        out.push(line.trimEnd());
        line = word.trimStart();
      }
    }
    out.push(line.trimEnd());
  }
  return out;
}

interface Fonts {
  font: TextFont;
  bold: TextFont;
  mono: TextFont;
  script: TextFont;
}

async function drawSignature(page: PDFPage, box: { x: number; y: number; width: number; height: number }, s: SignerState, image: PDFImage | null, fonts: Fonts, label: string, cover: boolean): Promise<void> {
  if (cover) page.drawRectangle({ x: box.x, y: box.y, width: box.width, height: box.height, color: rgb(1, 1, 1) });
  const labelSize = Math.max(5, Math.min(7, box.height * 0.18));
  const sigH = box.height - labelSize - 2;
  if (image) {
    const scale = Math.min(box.width / image.width, sigH / image.height);
    page.drawImage(image, { x: box.x, y: box.y + labelSize + 2, width: image.width * scale, height: image.height * scale });
  } else {
    const name = s.typed_name ?? s.name;
    let size = Math.min(sigH * 0.8, 24);
    while (size > 6 && fonts.script.width(name, size) > box.width) size -= 1;
    fonts.script.draw(page, name, { x: box.x + 2, y: box.y + labelSize + 4, size, color: rgb(0.05, 0.1, 0.45) });
  }
  let text = [...printable(label)];
  while (text.length > 8 && fonts.font.width(text.join(''), labelSize) > box.width - 2) text = text.slice(0, -2);
  fonts.font.draw(page, text.join(''), { x: box.x + 1, y: box.y + 1, size: labelSize, color: rgb(0.3, 0.3, 0.3) });
}

/**
 * Embeds the certificate's fonts cut to the characters of `text` (everything the file will print): the
 * Latin faces always, the CJK face only when some character needs it.
 */
async function embedFonts(doc: PDFDocument, text: string): Promise<Fonts> {
  doc.registerFontkit(fontkit);
  const chars = [...new Set(printable(text))].filter((c) => c !== '\n');
  const latinChars = chars.filter((c) => inLatin(c.codePointAt(0)!)).join('');
  const cjkChars = chars.filter((c) => !inLatin(c.codePointAt(0)!)).join('');
  // No ligatures: an `fi` glyph would drop out of copied and extracted text (pdftotext read `Certi cado`).
  const embed = async (face: Face, t: string) => doc.embedFont(await subsetFace(face, t), { subset: false, features: { liga: false, clig: false, dlig: false } });
  const [regular, bold, italic, cjk] = await Promise.all([embed('regular', latinChars), embed('bold', latinChars), embed('italic', latinChars), cjkChars ? embed('cjk', cjkChars) : null]);
  return { font: mixedFont(regular, cjk), bold: mixedFont(bold, cjk), script: mixedFont(italic, cjk), mono: standard(await doc.embedFont(StandardFonts.Courier)) };
}

/** Builds the unsigned final PDF (see the module comment); the caller signs it (`pades.ts`). */
export async function renderFinal(input: RenderInput): Promise<PDFDocument> {
  const { state } = input;
  const locale = state.locale ?? DEFAULT_LOCALE;
  const m = SIGNING_MESSAGES[locale.language].certificate;
  const when = (at: string | null | undefined) => (at ? formatDateTime(at, locale, 'precise') : '-');
  const doc = input.mode === 'certificateOnly' ? await PDFDocument.create() : await PDFDocument.load(input.original, { updateMetadata: false });
  const signed = state.signers.filter((s) => s.status === 'signed').sort((a, b) => a.order - b.order);
  const stamp = (s: SignerState) => m.stamp(s.name, when(s.signed_at), s.signature_id ?? '');

  // Every line of the certificate and the audit pages is planned first: the fonts are cut to their characters.
  const printed: string[] = [m.header(state.document_id)];
  const plan: Array<(w: Writer, f: Fonts) => Promise<void> | void> = [];
  const text = (t: string, o: { size?: number; font?: 'bold' | 'mono'; indent?: number; color?: [number, number, number] } = {}) => {
    printed.push(t);
    plan.push((w, f) => w.text(t, { ...o, font: o.font ? f[o.font] : f.font }));
  };
  text(m.title, { size: 20, font: 'bold' });
  plan.push((w) => w.gap(6));
  text(m.document(state.title), { size: 12, font: 'bold' });
  text(m.documentId(state.document_id));
  text(m.file(state.file.name, state.file.pages, formatNumber(state.file.size, locale)));
  text(m.sha);
  text(state.document_sha256, { font: 'mono', size: 9, indent: 12 });
  if (input.finalSha256) {
    text(m.finalSha);
    text(input.finalSha256, { font: 'mono', size: 9, indent: 12 });
  }
  text(m.timeline(when(state.created_at), when(state.completed_at), when(input.finalizedAt)));
  text(m.timesIn(locale.timeZone), { size: 8, color: [0.35, 0.35, 0.35] });
  plan.push((w) => w.gap(10));
  text(m.signers(signed.length), { size: 13, font: 'bold' });
  for (const s of signed) {
    plan.push((w) => {
      w.gap(4);
      w.ensure(110);
    });
    text(`${s.order}. ${s.name} <${s.email}>${s.role ? ` · ${s.role}` : ''}`, { font: 'bold' });
    if (s.efirma) {
      // e.firma (issue 29): the certificate's holder, issuer, serial and the OCSP answer at signing time.
      const e = s.efirma;
      text(m.efirmaSignedAt(when(s.signed_at), s.ip_address ?? '-'), { indent: 12, size: 9 });
      text(m.efirmaHolder(e.holder_name, e.rfc ?? '-', e.curp ?? '-'), { indent: 12, size: 9 });
      if (e.representative_rfc || e.representative_curp) text(m.efirmaRepresentative(e.representative_rfc ?? '-', e.representative_curp ?? '-'), { indent: 12, size: 9 });
      text(m.efirmaCertificate(e.issuer, e.certificate_serial), { indent: 12, size: 9 });
      text(m.efirmaOcsp(e.ocsp_status, when(e.ocsp_produced_at), e.ocsp_responder), { indent: 12, size: 9 });
    } else {
      text(m.signedAt(when(s.signed_at), s.ip_address ?? '-', s.method === 'drawn'), { indent: 12, size: 9 });
    }
    text(m.signatureLine(s.signature_id ?? '-', when(s.sent_at), when(s.viewed_at)), { indent: 12, size: 9 });
    text(m.userAgent(s.user_agent ?? '-'), { indent: 12, size: 8, color: [0.35, 0.35, 0.35] });
    if (s.efirma) {
      // Its signature is the PAdES one in the signed PDF: nothing is drawn.
    } else if (s.fields.length === 0) {
      // No placement: the signature goes here.
      plan.push(async (w, f) => {
        w.ensure(50);
        w.y -= 46;
        await drawSignature(w.page, { x: MARGIN + 12, y: w.y, width: 220, height: 44 }, s, images.get(s.id) ?? null, f, stamp(s), false);
      });
    } else {
      text(m.placedOn([...new Set(s.fields.map((f) => f.page))].join(', ')), { indent: 12, size: 9 });
    }
  }
  plan.push((w) => w.gap(10));
  text(m.integrity, { size: 13, font: 'bold' });
  text(m.integrityText(input.audit.length), { size: 9 });
  text(input.chainHead, { font: 'mono', size: 9, indent: 12 });
  text(m.verify(state.document_id), { size: 8, color: [0.35, 0.35, 0.35] });
  plan.push((w) => w.gap(6));
  text(signed.some((s) => s.efirma) ? m.efirmaSealed(input.signerName) : m.sealed(input.signerName), { size: 8, color: [0.35, 0.35, 0.35] });
  if (input.mode !== 'document') {
    plan.push((w) => w.newPage());
    text(m.auditTrail, { size: 16, font: 'bold' });
    for (const [i, e] of input.audit.entries()) {
      plan.push((w) => {
        w.gap(3);
        w.ensure(40);
      });
      const who = e.signer ? `${e.signer.name} <${e.signer.email}>` : e.recipients ? m.to(e.recipients.join(', ')) : e.user ? m.by(e.user) : '';
      text(`${i + 1}. ${when(e.timestamp)}  ${e.event}  ${who}${e.ip_address ? `  IP ${e.ip_address}` : ''}${e.reason ? `  ${m.reason(e.reason)}` : ''}`, { size: 9 });
      text(m.hash(e.hash), { font: 'mono', size: 7, indent: 12, color: [0.35, 0.35, 0.35] });
    }
  }
  for (const s of signed) printed.push(`${s.typed_name ?? s.name} ${stamp(s)}`);

  const fonts = await embedFonts(doc, printed.join('\n'));
  const images = new Map<string, PDFImage>();
  for (const [id, png] of input.images) images.set(id, await doc.embedPng(png));

  if (input.mode !== 'certificateOnly') {
    const pages = doc.getPages();
    for (const s of signed) {
      for (const f of s.fields) {
        const page = pages[f.page - 1];
        if (page) await drawSignature(page, f, s, images.get(s.id) ?? null, fonts, stamp(s), f.from_tag === true);
      }
    }
  }
  const w = new Writer(doc, fonts.font, fonts.bold, fonts.mono, m.header(state.document_id));
  for (const step of plan) await step(w, fonts);

  doc.setTitle(printable(state.title));
  doc.setSubject(`Sello document ${state.document_id}`);
  doc.setProducer('Sello');
  doc.setCreator('Sello signing');
  doc.setLanguage(LANGUAGE_TAGS[locale.language]);
  doc.setModificationDate(new Date(input.finalizedAt));
  return doc;
}
