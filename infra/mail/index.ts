/**
 * Mailer factory: the one place where configuration (`MAIL`, `SMTP_URL`) selects the adapter. Adding an
 * adapter is one branch here plus its run of `test/contract/mail.contract.ts`.
 */
import { join, resolve } from 'node:path';
import type { Mailer } from '../ports/mail.ts';
import { OutboxMailer } from './outbox/outbox-mailer.ts';
import { SmtpMailer } from './smtp/smtp-mailer.ts';
import { unknownAdapter, type Config } from '../shared/adapter.ts';

export type MailAdapter = NonNullable<Config['MAIL']>;

/** `MAIL` when set; otherwise `smtp` when `SMTP_URL` is set, else `outbox`. */
export function selectMailer(config: Config): MailAdapter {
  return config.MAIL ?? (config.SMTP_URL ? 'smtp' : 'outbox');
}

/**
 * Creates the configured mailer. `outbox`: `.eml` files in `DATA_DIR/outbox`; `smtp`: `SMTP_URL`.
 * @throws Error when `smtp` is selected without `SMTP_URL`.
 */
export function createMailer(config: Config): Mailer {
  const adapter = selectMailer(config);
  switch (adapter) {
    case 'outbox':
      return new OutboxMailer(join(resolve(config.DATA_DIR), 'outbox'));
    case 'smtp':
      if (!config.SMTP_URL) throw new Error('MAIL=smtp needs SMTP_URL');
      return new SmtpMailer(config.SMTP_URL);
    default:
      return unknownAdapter('mail', adapter);
  }
}
