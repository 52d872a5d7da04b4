/**
 * E-mail verifier factory: wires the verifier's adapters (DNS stub resolver, SMTP prober, Gravatar
 * checker; ports in `infra/ports/email-verifier.ts`) from the `EMAIL_*` settings.
 */
import { createEmailVerifier as composeEmailVerifier, type EmailVerifier } from '../../domain/email/verify-email.ts';
import type { Config } from '../shared/adapter.ts';
import { preloadEmailLists } from '../../domain/email/lists.ts';
import { DnsMailResolver } from './dns-resolver.ts';
import { SmtpRecipientProber } from './smtp-probe.ts';
import { HttpGravatarChecker } from './gravatar.ts';

export interface EmailVerifierSettings {
  /** Recursive DNS servers (`ip`, `ip:port`, `[ipv6]:port`); empty = the system's resolv.conf. */
  dnsServers: string[];
  dnsTimeoutMs: number;
  dnsAttempts: number;
  dnsCacheSize: number;
  dnsMaxTtlSeconds: number;
  smtpHeloName: string;
  smtpMailFrom: string;
  smtpPort: number;
  smtpConnectTimeoutMs: number;
  smtpCommandTimeoutMs: number;
  smtpTotalTimeoutMs: number;
  smtpAllowPrivateAddresses: boolean;
  smtpMaxSessionsPerHost: number;
  gravatarEnabled: boolean;
  gravatarBaseUrl: string;
  gravatarTimeoutMs: number;
  batchConcurrency: number;
}

export const defaultEmailVerifierSettings: EmailVerifierSettings = {
  dnsServers: [],
  dnsTimeoutMs: 1500,
  dnsAttempts: 2,
  dnsCacheSize: 10_000,
  dnsMaxTtlSeconds: 3600,
  smtpHeloName: 'localhost',
  smtpMailFrom: 'verify@localhost',
  smtpPort: 25,
  smtpConnectTimeoutMs: 1500,
  smtpCommandTimeoutMs: 1500,
  smtpTotalTimeoutMs: 4500,
  smtpAllowPrivateAddresses: false,
  smtpMaxSessionsPerHost: 4,
  gravatarEnabled: false,
  gravatarBaseUrl: 'https://gravatar.com/avatar/',
  gravatarTimeoutMs: 800,
  batchConcurrency: 16,
};

export interface EmailVerifierBundle {
  verifier: EmailVerifier;
  resolver: DnsMailResolver;
}

/** Builds the verifier. @throws Error when a DNS server setting is not an IP address (with optional port). */
export function buildEmailVerifier(partial: Partial<EmailVerifierSettings> = {}): EmailVerifierBundle {
  const s = { ...defaultEmailVerifierSettings, ...partial };
  preloadEmailLists();
  const resolver = new DnsMailResolver({
    servers: s.dnsServers,
    timeoutMs: s.dnsTimeoutMs,
    attempts: s.dnsAttempts,
    cacheSize: s.dnsCacheSize,
    maxTtlSeconds: s.dnsMaxTtlSeconds,
  });
  const smtp = new SmtpRecipientProber({
    heloName: s.smtpHeloName,
    mailFrom: s.smtpMailFrom,
    port: s.smtpPort,
    connectTimeoutMs: s.smtpConnectTimeoutMs,
    commandTimeoutMs: s.smtpCommandTimeoutMs,
    totalTimeoutMs: s.smtpTotalTimeoutMs,
    allowPrivateAddresses: s.smtpAllowPrivateAddresses,
    maxSessionsPerHost: s.smtpMaxSessionsPerHost,
    resolveHost: (host) => resolver.resolveHostAddresses(host),
  });
  const gravatar = s.gravatarEnabled ? new HttpGravatarChecker({ baseUrl: s.gravatarBaseUrl, timeoutMs: s.gravatarTimeoutMs }) : undefined;
  const verifier = composeEmailVerifier({ resolver, smtp, gravatar, batchConcurrency: s.batchConcurrency });
  return { verifier, resolver };
}

/** The adapter of the verifier's network checks (one today: DNS over UDP/TCP + an SMTP probe). */
export function selectEmailVerifier(_config: Config): 'dns-smtp' {
  return 'dns-smtp';
}

/**
 * Builds the verifier from the validated configuration (`EMAIL_*`, docs/email.md). Loads the domain
 * lists (~120k domains) on the first call, so build it only in a process that verifies addresses.
 * @throws Error when a DNS server setting is not an IP address (with optional port).
 */
export function createEmailVerifier(c: Config): EmailVerifier {
  return buildEmailVerifier({
    dnsServers: c.EMAIL_DNS_SERVERS,
    dnsTimeoutMs: c.EMAIL_DNS_TIMEOUT_MS,
    dnsAttempts: c.EMAIL_DNS_ATTEMPTS,
    dnsCacheSize: c.EMAIL_DNS_CACHE_SIZE,
    smtpHeloName: c.EMAIL_SMTP_HELO_NAME,
    smtpMailFrom: c.EMAIL_SMTP_MAIL_FROM,
    smtpPort: c.EMAIL_SMTP_PORT,
    smtpConnectTimeoutMs: c.EMAIL_SMTP_CONNECT_TIMEOUT_MS,
    smtpCommandTimeoutMs: c.EMAIL_SMTP_COMMAND_TIMEOUT_MS,
    smtpTotalTimeoutMs: c.EMAIL_SMTP_TOTAL_TIMEOUT_MS,
    smtpAllowPrivateAddresses: c.EMAIL_SMTP_ALLOW_PRIVATE,
    smtpMaxSessionsPerHost: c.EMAIL_SMTP_MAX_SESSIONS_PER_HOST,
    gravatarEnabled: c.EMAIL_GRAVATAR,
    gravatarBaseUrl: c.EMAIL_GRAVATAR_BASE_URL,
    gravatarTimeoutMs: c.EMAIL_GRAVATAR_TIMEOUT_MS,
    batchConcurrency: c.EMAIL_BATCH_CONCURRENCY,
  }).verifier;
}
