import { z } from 'zod';
import { availableCredits, clientUsedIn, initialCreditState, monthlyRemaining, type CreditState } from '../../../../domain/credits/credits.ts';
import { PLANS, billingPeriod, nextResetUnix, type PlanName } from '../../../../domain/plans/plans.ts';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';

const Count = z.union([z.number().int(), z.literal('unlimited')]);

export const CreditsBalanceResponse = z.object({
  success: z.literal(true),
  data: z.object({
    available_credits: Count.describe('Credits that can be spent now: the monthly remainder plus purchased credits ("unlimited" on Enterprise).').meta({ example: 142 }),
    monthly_allowance: Count.describe('Credits included per month by the plan.').meta({ example: 20 }),
    monthly_remaining: Count.describe('Monthly allowance left in the current period (spent before purchased credits).'),
    monthly_used: z.number().int().describe('Monthly-allowance credits spent or reserved in the current period.'),
    purchased_credits: z.number().int().describe('Purchased credits left; they never expire.'),
    reserved_credits: z.number().int().describe('Credits held by calls in flight (charged on 2xx, released otherwise).'),
    total_purchased: z.number().int(),
    total_used: z.number().int().describe('Credits charged, all time.'),
    plan: z.enum(['free', 'basic', 'pro', 'enterprise']),
    billing_method: z.enum(['credits', 'admin_unlimited']),
    period: z.object({ start: z.string(), end: z.string() }).describe('Current billing period (UTC).'),
    reset_date: z.string().describe('When the monthly allowance resets (ISO 8601, 00:00 UTC on the 1st).'),
    white_label_client: z
      .object({
        monthly_cap: z.number().int().nullable().describe('Credits per month the owner lets this client spend (null = no cap: the owner\'s balance is the limit).'),
        used_this_month: z.number().int().describe('Credits this client spent or reserved this month (counted against the cap).'),
      })
      .optional()
      .describe('Present for the tenant of a white-label deployment: its calls spend its owner\'s credits (docs/deployments.md). `available_credits` is the owner\'s balance bounded by what is left of the cap; `monthly_allowance` is the cap (else the owner\'s allowance); the purchase figures are 0 and `total_used` counts this month only.'),
  }),
});
export type CreditsBalanceResponse = z.infer<typeof CreditsBalanceResponse>;

/** Texts of a billing period (`YYYY-MM`), kept for the period last asked (they change once a month). */
const periodTexts = { period: '', start: '', end: '', reset: '' };

/** The balance answer of a tenant on `planName` with credit state `state` at `now` (epoch ms). */
function balanceBody(planName: PlanName, state: CreditState, now: number): CreditsBalanceResponse {
  const plan = PLANS[planName];
  const available = availableCredits(state, plan.monthlyCredits, now);
  const remaining = monthlyRemaining(state, plan.monthlyCredits, now);
  const period = billingPeriod(now);
  if (periodTexts.period !== period) {
    const reset = nextResetUnix(now) * 1000;
    periodTexts.period = period;
    periodTexts.start = `${period}-01T00:00:00.000Z`;
    periodTexts.end = new Date(reset - 1).toISOString();
    periodTexts.reset = new Date(reset).toISOString();
  }
  let reserved = 0;
  for (const r of state.open.values()) reserved += r.amount;
  return {
    success: true as const,
    data: {
      available_credits: available ?? ('unlimited' as const),
      monthly_allowance: plan.monthlyCredits ?? ('unlimited' as const),
      monthly_remaining: remaining ?? ('unlimited' as const),
      monthly_used: state.period === period ? state.monthlyUsed : 0,
      purchased_credits: Math.max(0, state.purchasedBalance),
      reserved_credits: reserved,
      total_purchased: state.totalPurchased,
      total_used: state.totalUsed,
      plan: plan.name,
      billing_method: plan.billingMethod,
      period: { start: periodTexts.start, end: periodTexts.end },
      reset_date: periodTexts.reset,
    },
  };
}

/** `GET /v1/credits/balance`: the tenant's credit balance (spec: returns `available_credits`; the rest is ours). */
export function registerCreditsBalance(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/v1/credits/balance',
    config: { auth: { permission: 'read' }, rateClass: 'light', errorShape: 'flat' },
    schema: { tags: ['credits'], summary: 'Credit balance', description: 'Free of charge. Errors use the flat shape.', response: { 200: CreditsBalanceResponse } },
    // Synchronous when the ledger follows the log (API processes): no promise on the most called route.
    handler: (request) => {
      const tenantId = request.auth!.tenantId;
      if (ctx.credits.snapshotNow(tenantId).billedTo || !ctx.credits.isFollowing) {
        return clientBalanceBody(ctx, tenantId, request.auth!.tenant.plan);
      }
      if (ctx.credits.isFollowing) return balanceBody(request.auth!.tenant.plan, ctx.credits.snapshotNow(tenantId), ctx.clock.now());
      return ctx.credits.snapshot(tenantId).then((state) => balanceBody(request.auth!.tenant.plan, state, ctx.clock.now()));
    },
  });
}

/**
 * The balance of a white-label client (its calls spend its owner's credits, within its monthly cap), or,
 * for any other tenant, {@link balanceBody} after catching up with its stream.
 */
async function clientBalanceBody(ctx: Platform, tenantId: string, planName: PlanName): Promise<CreditsBalanceResponse> {
  const own = await ctx.credits.snapshot(tenantId);
  const now = ctx.clock.now();
  if (!own.billedTo) return balanceBody(planName, own, now);
  const bal = await ctx.credits.balance(tenantId, PLANS[planName].monthlyCredits);
  const payer = await ctx.credits.snapshot(own.billedTo);
  const base = balanceBody(planName, initialCreditState(), now);
  const period = billingPeriod(now);
  const used = clientUsedIn(payer, tenantId, period);
  let reserved = 0;
  for (const r of payer.open.values()) if (r.client === tenantId) reserved += r.amount;
  const available = bal.available ?? ('unlimited' as const);
  return {
    success: true as const,
    data: {
      ...base.data,
      available_credits: available,
      monthly_allowance: bal.allowance ?? ('unlimited' as const),
      monthly_remaining: available,
      monthly_used: used,
      purchased_credits: 0,
      reserved_credits: reserved,
      total_purchased: 0,
      total_used: used - reserved,
      white_label_client: { monthly_cap: bal.monthlyCap, used_this_month: used },
    },
  };
}
