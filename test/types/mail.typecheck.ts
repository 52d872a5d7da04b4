import type { Mailer } from '../../infra/ports/mail.ts';
import type { OutboxMailer } from '../../infra/mail/outbox/outbox-mailer.ts';
import type { SmtpMailer } from '../../infra/mail/smtp/smtp-mailer.ts';
import type { Satisfies } from './satisfies.ts';

export type MailAdapters = [Satisfies<Mailer, OutboxMailer>, Satisfies<Mailer, SmtpMailer>];
