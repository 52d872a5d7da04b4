/** Helpers of the signing tests: PDFs made with pdf-lib, the outbox's invitation links, the validators. */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** An A4 PDF of `pages` pages with some text; `tags` adds `{{signature:N}}` text tags on the last page. */
export async function makePdf(pages = 2, options: { tags?: number[]; title?: string } = {}): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) {
    const p = doc.addPage([595.28, 841.89]);
    p.drawText(`${options.title ?? 'Contrato de prestación de servicios'} — página ${i + 1} de ${pages}`, { x: 50, y: 780, size: 14, font });
    for (let l = 0; l < 25; l++) p.drawText(`Cláusula ${l + 1}. El cliente y el proveedor acuerdan los términos descritos en este documento.`, { x: 50, y: 740 - l * 22, size: 10, font });
    if (i === pages - 1) (options.tags ?? []).forEach((n, k) => p.drawText(`{{signature:${n}}}`, { x: 60 + k * 250, y: 120, size: 12, font }));
  }
  return Buffer.from(await doc.save());
}

/** Decodes quoted-printable soft breaks and escapes (enough to read links out of an .eml). */
export function decodeQp(s: string): string {
  return s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
}

export interface OutboxMail {
  file: string;
  raw: string;
  to: string;
  subject: string;
  /** Decoded body (all parts). */
  body: string;
}

/** Every `.eml` in `DATA_DIR/outbox`, oldest first. */
export function readOutbox(dataDir: string): OutboxMail[] {
  const dir = join(dataDir, 'outbox');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .map((f) => {
      const raw = readFileSync(join(dir, f), 'utf8');
      const header = (name: string) => new RegExp(`^${name}: (.*(?:\\r?\\n[ \\t].*)*)`, 'mi').exec(raw)?.[1]?.replace(/\r?\n[ \t]/g, ' ') ?? '';
      return { file: f, raw, to: header('To'), subject: header('Subject'), body: decodeQp(raw) };
    });
}

/** The personal signing link in a mail (path + query). */
export function linkOf(mail: OutboxMail): string {
  const m = /(\/sign\/doc_[0-9a-f]{24}\?t=sl_[A-Za-z0-9_-]{43})/.exec(mail.body);
  if (!m) throw new Error(`no signing link in ${mail.file}`);
  return m[1]!;
}

/** Polls `fn` until it returns a truthy value (or throws after `timeoutMs`). */
export async function waitFor<T>(fn: () => T | Promise<T>, timeoutMs = 15_000, what = 'condition'): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** True when Debian's validators are installed (`poppler-utils`, `qpdf`). */
export function haveValidators(): boolean {
  return spawnSync('pdfsig', ['-v']).status !== null && spawnSync('qpdf', ['--version']).status === 0;
}

/** `pdfsig` output (it exits 0 whatever the verdict: read the text). */
export function pdfsig(file: string): string {
  const r = spawnSync('pdfsig', ['-nocert', file], { encoding: 'utf8' });
  return `${r.stdout}\n${r.stderr}`;
}

/** `qpdf --check` output and exit status (0 ok, 2 errors, 3 warnings). */
export function qpdfCheck(file: string): { status: number | null; output: string } {
  const r = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

export { execFileSync };
