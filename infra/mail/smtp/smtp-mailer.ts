import nodemailer from 'nodemailer';
import type { MailMessage, Mailer } from '../../ports/mail.ts';
import { structuredRecipients } from '../address.ts';

/** SMTP mail adapter (nodemailer). `url` is e.g. `smtp://user:pass@mail.example.com:587`. */
export class SmtpMailer implements Mailer {
  private readonly transport;

  constructor(url: string, options: { tlsRejectUnauthorized?: boolean } = {}) {
    const u = new URL(url);
    if (options.tlsRejectUnauthorized === false) u.searchParams.set('tls.rejectUnauthorized', 'false');
    this.transport = nodemailer.createTransport(u.toString());
  }

  async send(message: MailMessage): Promise<{ messageId: string }> {
    const info = await this.transport.sendMail({ ...message, to: structuredRecipients(message.to) });
    return { messageId: info.messageId };
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}
