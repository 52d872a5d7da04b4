import nodemailer from 'nodemailer';
import { mkdir, open, readFile, readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MailMessage, Mailer } from '../../ports/mail.ts';
import { structuredRecipients } from '../address.ts';

/**
 * Embedded mail adapter for a machine with no SMTP host: nodemailer builds the RFC 5322 message
 * (stream transport) and it is written to `<dir>/<timestamp>-<id>.eml`, where an operator or a test
 * can read it.
 */
export class OutboxMailer implements Mailer {
  private readonly transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  constructor(private readonly dir: string) {}

  async send(message: MailMessage): Promise<{ messageId: string }> {
    const info = (await this.transport.sendMail({ ...message, to: structuredRecipients(message.to) })) as { messageId: string; message: Buffer };
    await mkdir(this.dir, { recursive: true });
    const safeId = info.messageId.replace(/[^A-Za-z0-9.@-]/g, '');
    await writeFile(join(this.dir, `${Date.now()}-${safeId}.eml`), info.message);
    return { messageId: info.messageId };
  }

  /**
   * Deletes the `.eml` files whose `To` or `Cc` header names `address` (case-insensitive): each is first
   * overwritten with zeros and flushed, then unlinked. Returns how many.
   */
  async eraseRecipient(address: string): Promise<number> {
    const wanted = address.trim().toLowerCase();
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => n.endsWith('.eml'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    let n = 0;
    for (const name of names) {
      const file = join(this.dir, name);
      let bytes: Buffer;
      try {
        bytes = await readFile(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      if (!recipientsOf(bytes).includes(wanted)) continue;
      const fh = await open(file, 'r+');
      try {
        await fh.write(Buffer.alloc(bytes.length), 0, bytes.length, 0);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await unlink(file);
      n++;
    }
    return n;
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

/**
 * The addresses (lower case) of a stored message's `To` and `Cc` headers: the header block (up to the
 * first empty line), unfolded (RFC 5322 2.2.3); each address is the part in angle brackets or the bare
 * addr-spec (the mailer writes only bare addr-specs, `InvalidMailAddressError` otherwise).
 */
export function recipientsOf(eml: Buffer): string[] {
  const text = eml.toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const head = (end < 0 ? text : text.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  const out: string[] = [];
  for (const line of head.split(/\r?\n/)) {
    const m = /^(to|cc):(.*)$/i.exec(line);
    if (!m) continue;
    for (const a of m[2]!.matchAll(/<([^<>\s]+@[^<>\s]+)>|([^\s<>,;:"]+@[^\s<>,;:"]+)/g)) out.push((a[1] ?? a[2]!).toLowerCase());
  }
  return out;
}
