/**
 * What the e-mail verifier needs from the outside world. Adapters: `infra/email-verifier/` (a DNS stub
 * resolver over UDP/TCP, an SMTP recipient probe, a Gravatar HEAD check).
 */

/** One mail exchanger: host name (A-label form, no trailing dot) and RFC 5321 preference (lower first). */
export interface MailExchanger {
  exchange: string;
  priority: number;
}

/**
 * Outcome of the mail-domain look-up (RFC 5321 §5.1):
 * - `mx`: explicit MX records, sorted by preference;
 * - `implicit`: no MX but A/AAAA records, so the domain itself is the mail host ("implicit MX");
 * - `null_mx`: a single MX with preference 0 and exchange "." (RFC 7505): the domain accepts no mail;
 * - `no_mail`: the name exists but has neither MX nor A/AAAA;
 * - `nxdomain`: the name does not exist (RCODE 3);
 * - `error`: the upstream could not complete (SERVFAIL, REFUSED, timeout, network error).
 */
export type MailDomainLookup =
  | { kind: 'mx'; exchanges: MailExchanger[] }
  | { kind: 'implicit'; exchanges: MailExchanger[] }
  | { kind: 'null_mx' }
  | { kind: 'no_mail' }
  | { kind: 'nxdomain' }
  | { kind: 'error'; reason: 'servfail' | 'refused' | 'timeout' | 'network' | 'bad_response' };

export interface MailDomainResolver {
  /** Looks up how `asciiDomain` (lower-case A-label form) receives mail. Never rejects. */
  lookupMailDomain(asciiDomain: string): Promise<MailDomainLookup>;
}

/** `meta.smtp` of the spec's result. */
export interface SmtpFlags {
  /** An SMTP server answered with a 220 greeting. */
  host_exists: boolean;
  /** The recipient was refused with a "mailbox full" code (452/552, enhanced 4.2.2/5.2.2). */
  full_inbox: boolean;
  /** The server also accepted a random recipient at the same domain. */
  catch_all: boolean;
  /** `RCPT TO` for the address was accepted (250/251). */
  deliverable: boolean;
  /** The mailbox exists but is disabled (enhanced 5.2.1, or a 5xx text saying so). */
  disabled: boolean;
}

export interface SmtpProbeResult {
  smtp: SmtpFlags;
  reachability: 'yes' | 'no' | 'unknown';
}

export interface SmtpProber {
  /** Probes `address` at the given exchangers (preference order). Never rejects; bounded in time. */
  probe(address: string, asciiDomain: string, exchanges: readonly MailExchanger[]): Promise<SmtpProbeResult>;
}

export interface GravatarChecker {
  /** True when a Gravatar exists for the address. Never rejects; answers false when unsure. */
  hasGravatar(address: string): Promise<boolean>;
}
