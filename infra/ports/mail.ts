/**
 * Mail port: signing invitations and alert e-mails.
 * Adapters: `infra/mail/smtp` (SMTP to a configured host) and `infra/mail/outbox` (the embedded default
 * with no SMTP host configured: writes RFC 5322 `.eml` files to `DATA_DIR/outbox`).
 */
export interface MailMessage {
  from: string;
  to: string | string[];
  subject: string;
  text: string;
  html?: string;
  headers?: Record<string, string>;
}

export interface Mailer {
  /** Returns the Message-ID assigned to the message. */
  send(message: MailMessage): Promise<{ messageId: string }>;
  close(): Promise<void>;
}
