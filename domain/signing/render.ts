/**
 * The finalized files of a document (pdf-lib), before their PAdES signature:
 * - the signed document: the original pages with each signature stamped in its placements, then a
 *   certificate-of-completion page (document SHA-256, each signer with time, IP, method, signature id,
 *   signatures without placement, and the audit chain head);
 * - `withAudit`: the same followed by the audit-trail pages (every entry with its hash);
 * - `certificateOnly`: the certificate page and the audit pages alone (`/certificate`).
 */
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFImage, type PDFPage } from 'pdf-lib';
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
}

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 48;

/** Replaces characters the standard (WinAnsi) fonts cannot encode. */
export function winAnsi(text: string): string {
  return text.normalize('NFC').replace(/[^\x20-\x7E\xA0-\xFF\u20AC\u2018\u2019\u201C\u201D\u2013\u2014\u2022]/g, '?');
}

class Writer {
  page!: PDFPage;
  y = 0;
  constructor(
    readonly doc: PDFDocument,
    readonly font: PDFFont,
    readonly bold: PDFFont,
    readonly mono: PDFFont,
    readonly header: string,
  ) {
    this.newPage();
  }
  newPage(): void {
    this.page = this.doc.addPage([A4.width, A4.height]);
    this.y = A4.height - MARGIN;
    this.page.drawText(winAnsi(this.header), { x: MARGIN, y: A4.height - 28, size: 8, font: this.font, color: rgb(0.4, 0.4, 0.4) });
  }
  ensure(h: number): void {
    if (this.y - h < MARGIN) this.newPage();
  }
  text(t: string, o: { size?: number; font?: PDFFont; indent?: number; color?: [number, number, number] } = {}): void {
    const size = o.size ?? 10;
    const font = o.font ?? this.font;
    const x = MARGIN + (o.indent ?? 0);
    const maxW = A4.width - MARGIN - x;
    for (const line of wrap(winAnsi(t), font, size, maxW)) {
      this.ensure(size + 4);
      this.y -= size + 4;
      this.page.drawText(line, { x, y: this.y, size, font, color: rgb(...(o.color ?? [0.1, 0.1, 0.1])) });
    }
  }
  gap(h: number): void {
    this.y -= h;
  }
}

function wrap(text: string, font: PDFFont, size: number, maxW: number): string[] {
  const out: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(/(\s+)/)) {
      const next = line + word;
      if (font.widthOfTextAtSize(next, size) <= maxW || line === '') {
        line = next;
        // A single over-long token (a hash): cut it.
        while (font.widthOfTextAtSize(line, size) > maxW && line.length > 1) {
          let cut = line.length - 1;
          while (cut > 1 && font.widthOfTextAtSize(line.slice(0, cut), size) > maxW) cut--;
          out.push(line.slice(0, cut));
          line = line.slice(cut);
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

async function drawSignature(page: PDFPage, box: { x: number; y: number; width: number; height: number }, s: SignerState, image: PDFImage | null, fonts: { script: PDFFont; small: PDFFont }, cover: boolean): Promise<void> {
  if (cover) page.drawRectangle({ x: box.x, y: box.y, width: box.width, height: box.height, color: rgb(1, 1, 1) });
  const labelSize = Math.max(5, Math.min(7, box.height * 0.18));
  const sigH = box.height - labelSize - 2;
  if (image) {
    const scale = Math.min(box.width / image.width, sigH / image.height);
    page.drawImage(image, { x: box.x, y: box.y + labelSize + 2, width: image.width * scale, height: image.height * scale });
  } else {
    const name = winAnsi(s.typed_name ?? s.name);
    let size = Math.min(sigH * 0.8, 24);
    while (size > 6 && fonts.script.widthOfTextAtSize(name, size) > box.width) size -= 1;
    page.drawText(name, { x: box.x + 2, y: box.y + labelSize + 4, size, font: fonts.script, color: rgb(0.05, 0.1, 0.45) });
  }
  let label = winAnsi(`Signed by ${s.name} · ${s.signed_at ?? ''} · ${s.signature_id ?? ''}`);
  while (label.length > 8 && fonts.small.widthOfTextAtSize(label, labelSize) > box.width - 2) label = label.slice(0, -2);
  page.drawText(label, { x: box.x + 1, y: box.y + 1, size: labelSize, font: fonts.small, color: rgb(0.3, 0.3, 0.3) });
}

/** Builds the unsigned final PDF (see the module comment); the caller signs it (`pades.ts`). */
export async function renderFinal(input: RenderInput): Promise<PDFDocument> {
  const { state } = input;
  const doc = input.mode === 'certificateOnly' ? await PDFDocument.create() : await PDFDocument.load(input.original, { updateMetadata: false });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const mono = await doc.embedFont(StandardFonts.Courier);
  const script = await doc.embedFont(StandardFonts.TimesRomanItalic);
  const images = new Map<string, PDFImage>();
  for (const [id, png] of input.images) images.set(id, await doc.embedPng(png));
  const signed = state.signers.filter((s) => s.status === 'signed').sort((a, b) => a.order - b.order);

  if (input.mode !== 'certificateOnly') {
    const pages = doc.getPages();
    for (const s of signed) {
      for (const f of s.fields) {
        const page = pages[f.page - 1];
        if (page) await drawSignature(page, f, s, images.get(s.id) ?? null, { script, small: font }, f.from_tag === true);
      }
    }
  }

  const w = new Writer(doc, font, bold, mono, `Sello · Certificate of completion · ${state.document_id}`);
  w.text('Certificate of completion', { size: 20, font: bold });
  w.gap(6);
  w.text(`Document: ${state.title}`, { size: 12, font: bold });
  w.text(`Document id: ${state.document_id}`);
  w.text(`File: ${state.file.name} (${state.file.pages} pages, ${state.file.size} bytes)`);
  w.text(`SHA-256 of the uploaded PDF:`);
  w.text(state.document_sha256, { font: mono, size: 9, indent: 12 });
  w.text(`Created ${state.created_at}; all signers signed ${state.completed_at ?? '-'}; finalized ${input.finalizedAt}`);
  w.gap(10);
  w.text(`Signers (${signed.length})`, { size: 13, font: bold });
  for (const s of signed) {
    w.gap(4);
    w.ensure(110);
    w.text(`${s.order}. ${s.name} <${s.email}>${s.role ? ` · ${s.role}` : ''}`, { font: bold });
    w.text(`Signed at ${s.signed_at} from IP ${s.ip_address} · method: ${s.method === 'drawn' ? 'drawn signature' : 'typed name'} · consent to sign electronically given`, { indent: 12, size: 9 });
    w.text(`Signature id ${s.signature_id} · invited ${s.sent_at ?? '-'} · first viewed ${s.viewed_at ?? '-'}`, { indent: 12, size: 9 });
    w.text(`User agent: ${s.user_agent ?? '-'}`, { indent: 12, size: 8, color: [0.35, 0.35, 0.35] });
    if (s.fields.length === 0) {
      // No placement: the signature goes here.
      w.ensure(50);
      w.y -= 46;
      await drawSignature(w.page, { x: MARGIN + 12, y: w.y, width: 220, height: 44 }, s, images.get(s.id) ?? null, { script, small: font }, false);
    } else {
      w.text(`Signature placed on page(s) ${[...new Set(s.fields.map((f) => f.page))].join(', ')}`, { indent: 12, size: 9 });
    }
  }
  w.gap(10);
  w.text('Audit trail integrity', { size: 13, font: bold });
  w.text(`Each audit entry carries the SHA-256 of the previous one, the first chained to the document hash above. ${input.audit.length} entries; hash of the last entry before finalize:`, { size: 9 });
  w.text(input.chainHead, { font: mono, size: 9, indent: 12 });
  w.text(`Verify: npm run cli -- signing audit --document ${state.document_id}`, { size: 8, color: [0.35, 0.35, 0.35] });
  w.gap(6);
  w.text(`This file is sealed with a PAdES signature by "${input.signerName}" covering every page and this certificate.`, { size: 8, color: [0.35, 0.35, 0.35] });

  if (input.mode !== 'document') {
    w.newPage();
    w.text('Audit trail', { size: 16, font: bold });
    for (const [i, e] of input.audit.entries()) {
      w.gap(3);
      w.ensure(40);
      const who = e.signer ? `${e.signer.name} <${e.signer.email}>` : e.recipients ? `to ${e.recipients.join(', ')}` : e.user ? `by ${e.user}` : '';
      w.text(`${i + 1}. ${e.timestamp}  ${e.event}  ${who}${e.ip_address ? `  IP ${e.ip_address}` : ''}${e.reason ? `  reason: ${e.reason}` : ''}`, { size: 9 });
      w.text(`hash ${e.hash}`, { font: mono, size: 7, indent: 12, color: [0.35, 0.35, 0.35] });
    }
  }
  doc.setTitle(winAnsi(state.title));
  doc.setSubject(`Sello document ${state.document_id}`);
  doc.setProducer('Sello');
  doc.setCreator('Sello signing');
  doc.setModificationDate(new Date(input.finalizedAt));
  return doc;
}
