/**
 * Queries of the usage read models (issue 14): what `/v1/usage/summary`, `/stats`, `/realtime` and
 * `/credits` answer. Field shapes follow the spec's "Usage records" (strings where it shows strings);
 * every choice the spec leaves open is documented in docs/usage.md.
 */
import type { Filter, ReadModelStore } from '../../infra/ports/read-models.ts';
import { PLANS, billingPeriod, type PlanName } from '../../domain/plans/plans.ts';
import { availableCredits, clientAvailable, clientUsedIn, type CreditState } from '../../domain/credits/credits.ts';
import { serviceGroup } from '../../domain/usage/usage.ts';
import { decomposeRange, floorTo, iso, monthKey, monthStart } from '../../domain/usage/time.ts';
import { usageEventsCollection, type UsageRecord } from '../usage-events/usage-events.ts';
import { ALL_ENDPOINTS, monthId, usageCollections, type Rollup } from './model.ts';
import { toCreditState } from './projection.ts';

/** `12.5%`: one decimal. */
const pct = (x: number) => `${x.toFixed(1)}%`;

/**
 * A white-label client's credit figures (docs/deployments.md, "Credits and limits"): its calls spend its
 * owner's credits, so its limit is its cap (else the owner's allowance), what it used this month is counted
 * on the owner's account, and what it may spend is the owner's balance bounded by the cap. Null for a
 * tenant that pays its own.
 */
async function clientFigures(cols: Awaited<ReturnType<typeof usageCollections>>, tenantId: string, account: CreditState, nowMs: number) {
  if (!account.billedTo) return null;
  const payer = toCreditState((await cols.credits.get(account.billedTo)) ?? undefined);
  const payerPlan = (await cols.tenants.get(account.billedTo))?.plan;
  const payerAllowance = payerPlan ? PLANS[payerPlan].monthlyCredits : 0;
  return {
    limit: account.monthlyCap ?? payerAllowance,
    used: clientUsedIn(payer, tenantId, billingPeriod(nowMs)),
    available: clientAvailable(payer, payerAllowance, tenantId, account.monthlyCap, nowMs),
  };
}

/** The usage summary of the current UTC month (spec: flat, no `data` wrapper). */
export async function usageSummary(store: ReadModelStore, tenantId: string, plan: PlanName, nowMs: number) {
  const cols = await usageCollections(store);
  const cur = await cols.months.get(monthId(tenantId, monthKey(nowMs)));
  const prev = await cols.months.get(monthId(tenantId, monthKey(monthStart(nowMs, -1))));
  const account = toCreditState((await cols.credits.get(tenantId)) ?? undefined);
  const client = await clientFigures(cols, tenantId, account, nowMs);
  const limit = client ? client.limit : PLANS[plan].monthlyCredits;
  const usedThisMonth = client ? client.used : account.period === monthKey(nowMs) ? account.monthlyUsed : 0;
  const current = cur?.calls ?? 0;
  const previous = prev?.calls ?? 0;
  const trend = previous === 0 ? (current === 0 ? '0.0%' : 'n/a') : `${current >= previous ? '+' : ''}${(((current - previous) / previous) * 100).toFixed(1)}%`;
  return {
    summary: {
      current_month_calls: current,
      previous_month_calls: previous,
      limit: limit ?? ('unlimited' as const),
      percent_used: limit === null ? '0.0%' : pct(Math.min(100, (usedThisMonth / limit) * 100)),
      trend,
      remaining_calls: client ? (client.available ?? ('unlimited' as const)) : limit === null ? ('unlimited' as const) : Math.max(0, limit - usedThisMonth),
    },
    by_endpoint: cur?.by_service ?? {},
    subscription_tier: PLANS[plan].tier,
    period: { start: iso(monthStart(nowMs)), end: iso(monthStart(nowMs, 1) - 1) },
  };
}

export interface StatsQuery {
  /** Inclusive bounds, epoch ms. */
  from: number;
  to: number;
  /** Substring of the endpoint's route template (`/v1/face/verify`), or null for all. */
  endpoint: string | null;
  limit: number;
  page: number;
}

interface Acc {
  calls: number;
  rtSum: number;
  rtMin: number;
  rtMax: number;
  codes: Record<string, number>;
}

/** The tenant's endpoints matching a substring filter (null = no filter). */
async function matchingEndpoints(store: ReadModelStore, tenantId: string, filter: string | null): Promise<string[] | null> {
  if (filter === null) return null;
  const cols = await usageCollections(store);
  const t = await cols.tenants.get(tenantId);
  return (t?.endpoints ?? []).filter((e) => e.includes(filter));
}

/**
 * Exact statistics of [from, to] summed from the coarsest rollups that fit, with the sub-minute edges read
 * from the raw rows (`decomposeRange`). Cost grows with the number of buckets, not of calls.
 */
export async function rangeStatistics(store: ReadModelStore, tenantId: string, from: number, toExclusive: number, endpoints: string[] | null): Promise<Acc> {
  const cols = await usageCollections(store);
  const raw = await usageEventsCollection(store);
  const acc: Acc = { calls: 0, rtSum: 0, rtMin: Infinity, rtMax: -Infinity, codes: {} };
  if (endpoints !== null && endpoints.length === 0) return acc;
  // Bucket rows: the tenant's totals (`*`) without a filter; raw rows: every row without a filter.
  const bucketFilter: Filter = endpoints === null ? { endpoint: ALL_ENDPOINTS } : { endpoint: { $in: endpoints } };
  const rawFilter: Filter = endpoints === null ? {} : { endpoint: { $in: endpoints } };
  for (const piece of decomposeRange(from, toExclusive)) {
    if (piece.kind === 'raw') {
      const rows = await raw.find({ tenant_id: tenantId, created_at: { $gte: iso(piece.from), $lt: iso(piece.to) }, ...rawFilter });
      for (const r of rows) {
        acc.calls += 1;
        acc.rtSum += r.response_time;
        acc.rtMin = Math.min(acc.rtMin, r.response_time);
        acc.rtMax = Math.max(acc.rtMax, r.response_time);
        acc.codes[String(r.status_code)] = (acc.codes[String(r.status_code)] ?? 0) + 1;
      }
    } else {
      const rows: Rollup[] = await cols.rollups.find({ tenant_id: tenantId, grain: piece.grain, bucket: { $gte: iso(piece.from), $lt: iso(piece.to) }, ...bucketFilter });
      for (const r of rows) {
        acc.calls += r.calls;
        acc.rtSum += r.rt_sum;
        acc.rtMin = Math.min(acc.rtMin, r.rt_min);
        acc.rtMax = Math.max(acc.rtMax, r.rt_max);
        for (const [code, n] of Object.entries(r.status_codes)) acc.codes[code] = (acc.codes[code] ?? 0) + n;
      }
    }
  }
  return acc;
}

/** Seconds as the spec's string statistics: 3 decimals (milliseconds), `0.000` without calls. */
const seconds = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '0.000');

/** `/v1/usage/stats`: the calls of [from, to] newest first, one page, with exact statistics of the whole range. */
export async function usageStats(store: ReadModelStore, tenantId: string, q: StatsQuery) {
  const endpoints = await matchingEndpoints(store, tenantId, q.endpoint);
  const acc = await rangeStatistics(store, tenantId, q.from, q.to + 1, endpoints);
  const raw = await usageEventsCollection(store);
  const rows: UsageRecord[] =
    acc.calls === 0 || (q.page - 1) * q.limit >= acc.calls
      ? []
      : await raw.find(
          { tenant_id: tenantId, created_at: { $gte: iso(q.from), $lte: iso(q.to) }, ...(endpoints === null ? {} : { endpoint: { $in: endpoints } }) },
          { sort: [{ field: 'created_at', order: 'desc' }], limit: q.limit, offset: (q.page - 1) * q.limit },
        );
  return {
    data: rows.map((r) => ({
      id: r.id,
      user_id: r.user_id,
      endpoint: r.endpoint,
      method: r.method,
      status_code: r.status_code,
      response_time: r.response_time,
      created_at: r.created_at,
      request_size: r.request_size,
      response_size: r.response_size,
      ip_address: r.ip_address,
      user_agent: r.user_agent,
    })),
    pagination: { total: acc.calls, page: q.page, limit: q.limit, total_pages: Math.ceil(acc.calls / q.limit) },
    statistics: {
      total_calls: acc.calls,
      avg_response_time: seconds(acc.calls ? acc.rtSum / acc.calls : NaN),
      min_response_time: seconds(acc.rtMin),
      max_response_time: seconds(acc.rtMax),
      status_codes: acc.codes,
    },
    filters: { start_date: iso(q.from), end_date: iso(q.to), endpoint: q.endpoint },
  };
}

export const REALTIME_WINDOWS = { '1h': 60, '6h': 360, '24h': 1440 } as const;
export const REALTIME_INTERVALS = { '1m': 1, '5m': 5, '15m': 15, '1h': 60 } as const;
export type RealtimeWindow = keyof typeof REALTIME_WINDOWS;
export type RealtimeInterval = keyof typeof REALTIME_INTERVALS;

/**
 * `/v1/usage/realtime`: the last `window` in `interval` buckets (aligned to UTC, zero-filled, oldest
 * first; the last one is the current, partial bucket). Rates are calls per minute (`current_rate`: the last 5
 * minutes' mean; `peak_rate`: the window's busiest minute, so never below it); `error_rate` is the
 * fraction (0-1) of calls with status >= 400; times in seconds.
 */
export async function usageRealtime(store: ReadModelStore, tenantId: string, window: RealtimeWindow, interval: RealtimeInterval, nowMs: number) {
  const cols = await usageCollections(store);
  const step = REALTIME_INTERVALS[interval] * 60_000;
  const lastBucket = floorTo(nowMs, step);
  const count = Math.ceil(REALTIME_WINDOWS[window] / REALTIME_INTERVALS[interval]);
  const first = lastBucket - (count - 1) * step;
  const grain = interval === '1h' ? 'h' : 'm';
  const rows = await cols.rollups.find({ tenant_id: tenantId, grain, endpoint: ALL_ENDPOINTS, bucket: { $gte: iso(first), $lte: iso(nowMs) } });
  const points = Array.from({ length: count }, (_, i) => ({ t: first + i * step, calls: 0, errors: 0, rt: 0 }));
  for (const r of rows) {
    const p = points[Math.floor((Date.parse(r.bucket) - first) / step)];
    if (!p) continue;
    p.calls += r.calls;
    p.errors += r.errors;
    p.rt += r.rt_sum;
  }
  // The rates come from the window's minute rollups (the rows above, or with hourly buckets read for the
  // window: at most 1,440): `current_rate` from the last five minutes, `peak_rate` the busiest minute (an
  // interval's average would put the peak under the current rate).
  const minutes = grain === 'm' ? rows : await cols.rollups.find({ tenant_id: tenantId, grain: 'm', endpoint: ALL_ENDPOINTS, bucket: { $gte: iso(first), $lte: iso(nowMs) } });
  const recentFrom = floorTo(nowMs, 60_000) - 5 * 60_000;
  let lastFive = 0;
  let peakMinute = 0;
  for (const r of minutes) {
    peakMinute = Math.max(peakMinute, r.calls);
    if (Date.parse(r.bucket) > recentFrom) lastFive += r.calls;
  }
  const byEndpoint = await callsByEndpoint(store, tenantId, first, nowMs + 1);
  const total = points.reduce((s, p) => s + p.calls, 0);
  const errors = points.reduce((s, p) => s + p.errors, 0);
  const rtSum = points.reduce((s, p) => s + p.rt, 0);
  const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;
  return {
    data: {
      current_rate: round(lastFive / 5, 2),
      peak_rate: peakMinute,
      total_calls: total,
      error_rate: total ? round(errors / total) : 0,
      avg_response_time: total ? round(rtSum / total, 6) : 0,
      by_endpoint: byEndpoint,
      timeseries: points.map((p) => ({ timestamp: iso(p.t), calls: p.calls, errors: p.errors, avg_response_time: p.calls ? round(p.rt / p.calls, 6) : 0 })),
    },
    window,
    interval,
  };
}

/** Calls per endpoint in [from, toExclusive), exact, from the per-endpoint rollups (coarsest that fit) and raw edges. */
async function callsByEndpoint(store: ReadModelStore, tenantId: string, from: number, toExclusive: number): Promise<Record<string, number>> {
  const cols = await usageCollections(store);
  const raw = await usageEventsCollection(store);
  const out: Record<string, number> = {};
  for (const piece of decomposeRange(from, toExclusive)) {
    const rows =
      piece.kind === 'raw'
        ? await raw.find({ tenant_id: tenantId, created_at: { $gte: iso(piece.from), $lt: iso(piece.to) } })
        : await cols.rollups.find({ tenant_id: tenantId, grain: piece.grain, endpoint: { $ne: ALL_ENDPOINTS }, bucket: { $gte: iso(piece.from), $lt: iso(piece.to) } });
    for (const r of rows) out[r.endpoint] = (out[r.endpoint] ?? 0) + ('calls' in r ? (r.calls as number) : 1);
  }
  return out;
}

/** Days of committed credits the burn rate averages over. */
export const BURN_DAYS = 7;

/**
 * `/v1/usage/credits`: purchased, used and remaining credits, used credits per service group, and the
 * burn forecast: `estimated_monthly_burn` = credits committed over the last 7 UTC days (today included)
 * / 7 x 30, rounded; `days_remaining` = floor(remaining / daily burn). Unlimited plans: `remaining` and
 * `days_remaining` null; nothing burnt in 7 days: `days_remaining` null.
 */
export async function usageCredits(store: ReadModelStore, tenantId: string, plan: PlanName, nowMs: number) {
  const cols = await usageCollections(store);
  const state = toCreditState((await cols.credits.get(tenantId)) ?? undefined);
  const client = await clientFigures(cols, tenantId, state, nowMs);
  const remaining = client ? client.available : availableCredits(state, PLANS[plan].monthlyCredits, nowMs);
  const byService: Record<string, number> = {};
  for (const [endpoint, n] of Object.entries(state.usedByEndpoint)) {
    const s = serviceGroup(endpoint);
    byService[s] = (byService[s] ?? 0) + n;
  }
  const today = floorTo(nowMs, 86_400_000);
  const since = iso(today - (BURN_DAYS - 1) * 86_400_000).slice(0, 10);
  const days = await cols.creditDays.find({ tenant_id: tenantId, day: { $gte: since } });
  const burnt = days.reduce((s, d) => s + d.credits, 0);
  const daily = burnt / BURN_DAYS;
  return {
    total_purchased: state.totalPurchased,
    // A white-label client's spending is on its owner's account: this month's is what is known per client.
    total_used: client ? client.used : state.totalUsed,
    remaining,
    usage_by_service: byService,
    estimated_monthly_burn: Math.round(daily * 30),
    days_remaining: remaining === null || daily === 0 ? null : Math.floor(remaining / daily),
  };
}

/** The tenant's alerts, oldest first. */
export async function listAlerts(store: ReadModelStore, tenantId: string) {
  const cols = await usageCollections(store);
  return cols.alerts.find({ tenant_id: tenantId }, { sort: [{ field: 'created_at', order: 'asc' }] });
}
