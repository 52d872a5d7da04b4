import nodemailer from 'nodemailer';
import { mkdir, writeFile } from 'node:fs/promises';
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

  async close(): Promise<void> {
    this.transport.close();
  }
}
