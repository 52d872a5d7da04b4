/**
 * Subscription plans, exactly as the interface spec's "Limits" section (Plans table and the paragraph
 * on heavy and light operations). Credits are US cents (spec: "One credit equals one US cent").
 */
export const PLAN_NAMES = ['free', 'basic', 'pro', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Plan {
  name: PlanName;
  /** Display name used in `X-RateLimit-Tier`. */
  tier: string;
  /** Monthly credit allowance; null = unlimited (Enterprise). */
  monthlyCredits: number | null;
  /** Standard requests per minute. */
  requestsPerMinute: number;
  /** Concurrent requests in flight. */
  concurrentRequests: number;
  realtimeMonitoring: boolean;
  /** Export history kept, in days. */
  exportHistoryDays: number;
  /** Usage alerts allowed; null = unlimited. */
  alerts: number | null;
  /**
   * Live white-label deployments (`/api/deployments`) a tenant on this plan may have; null = unlimited. Not
   * in the spec's plan table: chosen in issue 31 (docs/deployments.md, "How many"). A deployment's client
   * spends its owner's credits, so the cap bounds tenants and keys, not money.
   */
  deployments: number | null;
  billingMethod: 'credits' | 'admin_unlimited';
}

/**
 * Whether plan `a` is above plan `b` in {@link PLAN_NAMES}' order (free < basic < pro < enterprise: each
 * gives at least what the one before it gives, in credits and limits).
 */
export function planAbove(a: PlanName, b: PlanName): boolean {
  return PLAN_NAMES.indexOf(a) > PLAN_NAMES.indexOf(b);
}

export const PLANS: Record<PlanName, Plan> = {
  free: { name: 'free', tier: 'free', monthlyCredits: 20, requestsPerMinute: 10, concurrentRequests: 1, realtimeMonitoring: false, exportHistoryDays: 7, alerts: 0, deployments: 1, billingMethod: 'credits' },
  basic: { name: 'basic', tier: 'basic', monthlyCredits: 4000, requestsPerMinute: 60, concurrentRequests: 3, realtimeMonitoring: true, exportHistoryDays: 30, alerts: 1, deployments: 5, billingMethod: 'credits' },
  pro: { name: 'pro', tier: 'pro', monthlyCredits: 20000, requestsPerMinute: 300, concurrentRequests: 10, realtimeMonitoring: true, exportHistoryDays: 90, alerts: 5, deployments: 25, billingMethod: 'credits' },
  enterprise: { name: 'enterprise', tier: 'enterprise', monthlyCredits: null, requestsPerMinute: 1000, concurrentRequests: 50, realtimeMonitoring: true, exportHistoryDays: 365, alerts: null, deployments: null, billingMethod: 'admin_unlimited' },
};

/** Rate classes (spec, Limits): heavy = 50% of the standard per-minute limit, light = 2x. */
export type RateClass = 'heavy' | 'standard' | 'light';
export const RATE_CLASS_FACTOR: Record<RateClass, number> = { heavy: 0.5, standard: 1, light: 2 };

/** Per-tenant overrides an operator may set (`npm run cli -- tenant limits`); null = unlimited. */
export interface LimitOverrides {
  requestsPerMinute?: number | null;
  concurrentRequests?: number | null;
}

/** Effective per-minute limit of a rate class; null when the operator lifted the limit. */
export function perMinuteLimit(plan: Plan, rateClass: RateClass, overrides: LimitOverrides = {}): number | null {
  const base = overrides.requestsPerMinute === undefined ? plan.requestsPerMinute : overrides.requestsPerMinute;
  if (base === null) return null;
  return Math.max(1, Math.floor(base * RATE_CLASS_FACTOR[rateClass]));
}

/** Effective concurrency limit; null when lifted. */
export function concurrencyLimit(plan: Plan, overrides: LimitOverrides = {}): number | null {
  return overrides.concurrentRequests === undefined ? plan.concurrentRequests : overrides.concurrentRequests;
}

/**
 * Credit cost per successful call (spec, Limits, "Credit cost per successful call"), keyed by
 * `METHOD route-template` as Fastify registers it; the edge charges from it (apps/api/edge.ts).
 */
export const CREDIT_COSTS = {
  'POST /v1/ocr/extract/id': 3,
  'POST /v1/ocr/extract/document': 2,
  'POST /v1/ocr/verify/authenticity': 3,
  'POST /v1/face/verify': 2,
  'POST /v1/face/analyze': 1,
  'POST /v1/face/detect': 1,
  'POST /v1/face/landmarks': 1,
  'POST /v1/face/liveness': 3,
  'POST /v1/face-matching/enroll': 2,
  'POST /v1/face-matching/search': 2,
  'POST /v1/face-matching/verify/:subjectId': 2,
  'POST /v1/fingerprint-matching/enroll': 2,
  'POST /v1/fingerprint-matching/search': 2,
  'POST /v1/fingerprint-matching/verify/:subjectId': 2,
  'GET /v1/email/verify': 1,
  'POST /v1/email/verify/batch': 1,
  'POST /v1/signing/documents': 5,
  'POST /v1/mex/renapo/get-curp': 5,
  'POST /v1/mex/ine/validate-voter-list': 15,
} as const satisfies Record<string, number>;

/** Billing period of an instant: `YYYY-MM` in UTC (monthly credits reset on the 1st, UTC). */
export function billingPeriod(epochMs: number): string {
  // Called on every response: reuse the answer while the instant stays within the same UTC minute.
  const minute = Math.floor(epochMs / 60_000);
  if (minute !== periodCache.minute) {
    periodCache.minute = minute;
    periodCache.period = new Date(epochMs).toISOString().slice(0, 7);
  }
  return periodCache.period;
}
const periodCache = { minute: Number.NaN, period: '' };

/** Unix seconds of the next monthly reset (00:00 UTC on the 1st of the next month). */
export function nextResetUnix(epochMs: number): number {
  const d = new Date(epochMs);
  return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000);
}

/**
 * Default retention periods of personal data per plan (issue 28, item 5; docs/privacy.md, "Retention"),
 * in days; `null` = kept until the tenant deletes it. A tenant's admin changes them with
 * `PUT /v1/privacy/retention` or `npm run cli -- privacy retention`.
 * - `biometricTemplatesDays`: face and fingerprint templates, counted from a subject's latest enrolment.
 * - `documentsDays`: signing uploads, page images and drawn signature images, counted from the end of the
 *   document (finalization, expiry or cancellation); the sealed final PDFs are not covered.
 * - `signedDocumentsDays`: finalized signing documents (the whole document), counted from finalization.
 *   Ten years by default: the Código de Comercio (art. 38) asks merchants to keep commercial records that long.
 * - `usageIpDays`: the client IP addresses of usage rows are truncated (IPv4 to its /24, IPv6 to its /48)
 *   after this many days; 90 on every plan (issue 28).
 */
export interface PlanRetention {
  biometricTemplatesDays: number | null;
  documentsDays: number | null;
  signedDocumentsDays: number | null;
  usageIpDays: number | null;
}

/** {@link PlanRetention} of each plan. */
export const PLAN_RETENTION: Record<PlanName, PlanRetention> = {
  free: { biometricTemplatesDays: 365, documentsDays: 30, signedDocumentsDays: 3650, usageIpDays: 90 },
  basic: { biometricTemplatesDays: null, documentsDays: 90, signedDocumentsDays: 3650, usageIpDays: 90 },
  pro: { biometricTemplatesDays: null, documentsDays: 365, signedDocumentsDays: 3650, usageIpDays: 90 },
  enterprise: { biometricTemplatesDays: null, documentsDays: 365, signedDocumentsDays: 3650, usageIpDays: 90 },
};
