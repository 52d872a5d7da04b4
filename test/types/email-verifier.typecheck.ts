import type { GravatarChecker, MailDomainResolver, SmtpProber } from '../../infra/ports/email-verifier.ts';
import type { DnsMailResolver } from '../../infra/email-verifier/dns-resolver.ts';
import type { SmtpRecipientProber } from '../../infra/email-verifier/smtp-probe.ts';
import type { HttpGravatarChecker } from '../../infra/email-verifier/gravatar.ts';
import type { Satisfies } from './satisfies.ts';

export type EmailVerifierAdapters = [
  Satisfies<MailDomainResolver, DnsMailResolver>,
  Satisfies<SmtpProber, SmtpRecipientProber>,
  Satisfies<GravatarChecker, HttpGravatarChecker>,
];
