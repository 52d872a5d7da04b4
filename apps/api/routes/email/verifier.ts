/**
 * One e-mail verifier per application context, built on first use from the `EMAIL_*` settings (so servers
 * that never verify an address do not load the ~120k-domain lists).
 */
import type { AppContext } from '../../context.ts';
import type { EmailVerifier } from '../../../../domain/email/verify-email.ts';
import { buildEmailVerifier } from '../../../../infra/email-verifier/index.ts';

const verifiers = new WeakMap<AppContext, EmailVerifier>();

/** The context's verifier (built from `ctx.config` the first time). */
export function emailVerifierFor(ctx: AppContext): EmailVerifier {
  let v = verifiers.get(ctx);
  if (!v) {
    const c = ctx.config;
    v = buildEmailVerifier({
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
    verifiers.set(ctx, v);
  }
  return v;
}

/** Replaces the context's verifier (tests: a verifier that fails, to exercise the 500 answer). */
export function overrideEmailVerifier(ctx: AppContext, verifier: EmailVerifier): void {
  verifiers.set(ctx, verifier);
}
