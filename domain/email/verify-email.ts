/**
 * The e-mail verification use case: syntax, lists, alias, DNS, optional SMTP probe and Gravatar, combined into
 * the spec's result ("Email verification result") with its status and score rules, singly or in batches.
 *
 * Status (first rule that applies):
 * 1. `INVALID_FORMAT` syntax invalid (no other check runs);
 * 2. `DISPOSABLE` domain on the disposable list (whatever DNS says);
 * 3. `ERROR` the DNS upstream could not complete (SERVFAIL, REFUSED, timeout);
 * 4. `VALID` the domain has mail exchangers: MX records, or A/AAAA under the RFC 5321 §5.1 implicit-MX rule;
 * 5. `INVALID_DOMAIN` otherwise: NXDOMAIN, null MX (RFC 7505), no MX/A/AAAA, or an address literal
 *    (`user@[192.0.2.1]` is syntactically valid but names no mail domain to check).
 *
 * Score (spec, applied literally, clamped to 0-100): +20 valid syntax, +20 domain exists, +25 MX records,
 * +25 not disposable, +10 not role-based, -5 alias detected. So an unparseable address scores 35 (it is not
 * on the disposable list and has no role-based local part): "very poor". Bands (spec): 90-100 excellent,
 * 80-89 good, 60-79 fair, 40-59 poor, 0-39 very poor.
 *
 * `reachable` and `meta.smtp` never change the status or score: the probe is advisory (the spec says it often
 * yields `unknown` for major providers).
 */
import { canonicalAlias } from './alias.ts';
import { isDisposableDomain, isFreeProvider, isRoleBased, suggestCorrection } from './lists.ts';
import type { GravatarChecker, MailDomainLookup, MailDomainResolver, SmtpFlags, SmtpProber } from '../../infra/ports/email-verifier.ts';
import { parseEmailAddress } from './syntax.ts';

export type EmailStatus = 'VALID' | 'INVALID_FORMAT' | 'INVALID_DOMAIN' | 'DISPOSABLE' | 'ERROR';

/** `data` of `GET /v1/email/verify`, one item of the batch's `results`. */
export interface EmailVerificationResult {
  email: string;
  status: EmailStatus;
  /** Integer 0-100. */
  score: number;
  validations: {
    syntax: boolean;
    domain_exists: boolean;
    mx_records: boolean;
    is_disposable: boolean;
    is_role_based: boolean;
  };
  aliasOf: string | null;
  meta: {
    suggestion: string | null;
    free: boolean;
    gravatar: boolean;
    reachability: 'yes' | 'no' | 'unknown';
    smtp: SmtpFlags | null;
  };
  /** Seconds. */
  processing_time: number;
}

/** Batch `statistics` (spec): counts over the results, one per input address (duplicates included). */
export interface EmailBatchStatistics {
  total: number;
  valid: number;
  invalid_format: number;
  invalid_domain: number;
  disposable: number;
  role_based: number;
  has_alias: number;
}

export interface EmailVerifierDeps {
  resolver: MailDomainResolver;
  /** Needed for `reachable: true`; without it reachability stays `unknown`. */
  smtp?: SmtpProber;
  /** Off when absent (meta.gravatar false). */
  gravatar?: GravatarChecker;
  /** Monotonic milliseconds (default `performance.now`). */
  now?: () => number;
  /** Concurrent verifications inside one batch (default 16). */
  batchConcurrency?: number;
}

export interface VerifyOptions {
  reachable?: boolean;
}

/** Spec score rule (see module comment). */
export function scoreOf(v: EmailVerificationResult['validations'], hasAlias: boolean): number {
  let score = 0;
  if (v.syntax) score += 20;
  if (v.domain_exists) score += 20;
  if (v.mx_records) score += 25;
  if (!v.is_disposable) score += 25;
  if (!v.is_role_based) score += 10;
  if (hasAlias) score -= 5;
  return Math.max(0, Math.min(100, score));
}

/** Spec interpretation band of a score. */
export function scoreBand(score: number): 'excellent' | 'good' | 'fair' | 'poor' | 'very poor' {
  if (score >= 90) return 'excellent';
  if (score >= 80) return 'good';
  if (score >= 60) return 'fair';
  if (score >= 40) return 'poor';
  return 'very poor';
}

const seconds = (ms: number): number => Math.round(ms * 10) / 10_000;

export interface EmailVerifier {
  /** Verifies one address. Rejects only when a dependency throws unexpectedly (the route answers 500). */
  verify(email: string, options?: VerifyOptions): Promise<EmailVerificationResult>;
  /**
   * Verifies up to any number of addresses with a bounded pool; repeated addresses are verified once; results
   * keep the input order.
   */
  verifyBatch(emails: readonly string[], options?: VerifyOptions): Promise<{ results: EmailVerificationResult[]; statistics: EmailBatchStatistics }>;
}

export function createEmailVerifier(deps: EmailVerifierDeps): EmailVerifier {
  const now = deps.now ?? (() => performance.now());
  const concurrency = Math.max(1, deps.batchConcurrency ?? 16);

  async function verify(email: string, options: VerifyOptions = {}): Promise<EmailVerificationResult> {
    const started = now();
    const parsed = parseEmailAddress(email);
    if (!parsed.valid) {
      const validations = { syntax: false, domain_exists: false, mx_records: false, is_disposable: false, is_role_based: false };
      return {
        email,
        status: 'INVALID_FORMAT',
        score: scoreOf(validations, false),
        validations,
        aliasOf: null,
        meta: { suggestion: null, free: false, gravatar: false, reachability: options.reachable ? 'no' : 'unknown', smtp: null },
        processing_time: seconds(now() - started),
      };
    }
    const { local, asciiDomain, domainKind } = parsed;
    const isDns = domainKind === 'dns';
    const is_disposable = isDns && isDisposableDomain(asciiDomain);
    const is_role_based = isRoleBased(local);
    const aliasOf = isDns ? canonicalAlias(local, asciiDomain) : null;
    const gravatarP = deps.gravatar ? deps.gravatar.hasGravatar(email).catch(() => false) : Promise.resolve(false);
    const lookup: MailDomainLookup = isDns ? await deps.resolver.lookupMailDomain(asciiDomain) : { kind: 'no_mail' };

    const domain_exists = isDns && (lookup.kind === 'mx' || lookup.kind === 'implicit' || lookup.kind === 'null_mx' || lookup.kind === 'no_mail');
    const mx_records = lookup.kind === 'mx' || lookup.kind === 'implicit';
    const validations = { syntax: true, domain_exists, mx_records, is_disposable, is_role_based };
    const status: EmailStatus = is_disposable
      ? 'DISPOSABLE'
      : lookup.kind === 'error'
        ? 'ERROR'
        : mx_records
          ? 'VALID'
          : 'INVALID_DOMAIN';

    let reachability: 'yes' | 'no' | 'unknown' = 'unknown';
    let smtp: SmtpFlags | null = null;
    if (options.reachable) {
      if (lookup.kind === 'mx' || lookup.kind === 'implicit') {
        if (deps.smtp) {
          const probe = await deps.smtp.probe(`${local}@${asciiDomain}`, asciiDomain, lookup.exchanges);
          reachability = probe.reachability;
          smtp = probe.smtp;
        }
      } else if (lookup.kind !== 'error') {
        // No mail exchanger at all: nothing can receive mail for this address.
        reachability = 'no';
        smtp = { host_exists: false, full_inbox: false, catch_all: false, deliverable: false, disabled: false };
      }
    }
    const gravatar = await gravatarP;
    return {
      email,
      status,
      score: scoreOf(validations, aliasOf !== null),
      validations,
      aliasOf,
      meta: {
        suggestion: isDns ? suggestCorrection(local, asciiDomain) : null,
        free: isDns && isFreeProvider(asciiDomain),
        gravatar,
        reachability,
        smtp,
      },
      processing_time: seconds(now() - started),
    };
  }

  async function verifyBatch(emails: readonly string[], options: VerifyOptions = {}) {
    const unique = [...new Set(emails)];
    const byEmail = new Map<string, EmailVerificationResult>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < unique.length) {
        const email = unique[next++]!;
        byEmail.set(email, await verify(email, options));
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, unique.length) }, worker));
    const results = emails.map((e) => byEmail.get(e)!);
    return { results, statistics: statisticsOf(results) };
  }

  return { verify, verifyBatch };
}

/** Batch statistics (spec "Batch statistics"). */
export function statisticsOf(results: readonly EmailVerificationResult[]): EmailBatchStatistics {
  const s: EmailBatchStatistics = { total: results.length, valid: 0, invalid_format: 0, invalid_domain: 0, disposable: 0, role_based: 0, has_alias: 0 };
  for (const r of results) {
    if (r.status === 'VALID') s.valid++;
    else if (r.status === 'INVALID_FORMAT') s.invalid_format++;
    else if (r.status === 'INVALID_DOMAIN') s.invalid_domain++;
    else if (r.status === 'DISPOSABLE') s.disposable++;
    if (r.validations.is_role_based) s.role_based++;
    if (r.aliasOf !== null) s.has_alias++;
  }
  return s;
}
