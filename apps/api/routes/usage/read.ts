import { z } from 'zod';
import type { ApiApp } from '../../types.ts';
import type { Platform } from '../../../platform/types.ts';
import { UsageError } from '../../../../domain/usage/errors.ts';
import { parseUsageDate } from '../../../../domain/usage/time.ts';
import { PLANS } from '../../../../domain/plans/plans.ts';
import {
  REALTIME_INTERVALS,
  REALTIME_WINDOWS,
  usageCredits,
  usageRealtime,
  usageStats,
  usageSummary,
  type RealtimeInterval,
  type RealtimeWindow,
} from '../../../../projections/usage-analytics/queries.ts';
import { USAGE_ROUTE_CONFIG, mapUsageErrors, USAGE_ERROR_RESPONSES } from './common.ts';

/** Largest `/v1/usage/stats` page (spec, Limits). */
export const MAX_STATS_LIMIT = 1000;
/** Range of `/v1/usage/stats` without `start_date`: the 30 days before `end_date`. */
export const DEFAULT_STATS_DAYS = 30;

const num = z.number();
const SummaryResponse = z.object({
  success: z.literal(true),
  summary: z.object({
    current_month_calls: num.describe('Calls (any status) since the 1st of this month, UTC.'),
    previous_month_calls: num.describe('Calls in the previous UTC month.'),
    limit: z.union([num, z.literal('unlimited')]).describe("Credits, not calls: the plan's monthly credit allowance (a call costs one credit or more, see X-Credit-Cost), or `unlimited` (Enterprise)."),
    percent_used: z.string().describe('Credits, not calls: share of the monthly credit allowance (`limit`) spent this month, one decimal and `%` (at most 100%; `0.0%` on Enterprise).').meta({ example: '12.5%' }),
    trend: z.string().describe('Calls this month vs the previous month: signed percent, `n/a` when the previous month had none.').meta({ example: '+8.3%' }),
    remaining_calls: z.union([num, z.literal('unlimited')]).describe('Credits, not calls, despite its name (kept from the spec): the monthly credit allowance left, `limit` minus the credits spent this month (never below 0; purchased credits not included: see /v1/credits/balance), or `unlimited`.'),
  }),
  by_endpoint: z.record(z.string(), num).describe('Calls this month per service group (`face`, `ocr`, `usage`, ...).'),
  subscription_tier: z.string().meta({ example: 'pro' }),
  period: z.object({ start: z.string(), end: z.string() }).describe('This UTC month, first and last millisecond.'),
});

const StatsQuery = z.object({
  start_date: z.string().max(40).optional().describe(`ISO 8601 date (UTC day) or date-time; default: ${DEFAULT_STATS_DAYS} days before end_date.`),
  end_date: z.string().max(40).optional().describe('ISO 8601 date (the whole UTC day is included) or date-time; default: now.'),
  endpoint: z.string().max(200).optional().describe('Keeps calls whose route template contains this text (e.g. `/v1/face`).'),
  limit: z.string().max(12).optional().describe(`Records per page, default 100, max ${MAX_STATS_LIMIT} (above: 400 \`limit_exceeded\`).`),
  page: z.string().max(12).optional().describe('1-based page, default 1.'),
});

const StatsResponse = z.object({
  success: z.literal(true),
  data: z.array(
    z.object({
      id: z.string(),
      user_id: z.string().nullable().describe('The tenant id.'),
      endpoint: z.string().describe('Route template.'),
      method: z.string(),
      status_code: num,
      response_time: num.describe('Seconds.'),
      created_at: z.string(),
      request_size: num.describe('Bytes.'),
      response_size: num.describe('Bytes.'),
      ip_address: z.string(),
      user_agent: z.string().nullable(),
    }),
  ),
  pagination: z.object({ total: num, page: num, limit: num, total_pages: num }),
  statistics: z.object({
    total_calls: num,
    avg_response_time: z.string().describe('Seconds, 3 decimals.').meta({ example: '0.184' }),
    min_response_time: z.string(),
    max_response_time: z.string(),
    status_codes: z.record(z.string(), num),
  }),
  filters: z.object({ start_date: z.string(), end_date: z.string(), endpoint: z.string().nullable() }),
});

const RealtimeQuery = z.object({
  window: z.string().max(8).optional().describe('`1h` (default), `6h` or `24h`.'),
  interval: z.string().max(8).optional().describe('`1m`, `5m`, `15m` or `1h`; default `1m` for 1h, `5m` for 6h, `15m` for 24h.'),
});
const RealtimeResponse = z.object({
  success: z.literal(true),
  data: z.object({
    current_rate: num.describe('Calls per minute over the last 5 minutes.'),
    peak_rate: num.describe('Calls in the busiest minute of the window (never below current_rate).'),
    total_calls: num,
    error_rate: num.describe('Fraction (0-1) of calls answered with status >= 400.'),
    avg_response_time: num.describe('Seconds.'),
    by_endpoint: z.record(z.string(), num).describe('Calls per route template in the window.'),
    timeseries: z.array(z.object({ timestamp: z.string(), calls: num, errors: num, avg_response_time: num })).describe('Zero-filled, oldest first; the last interval is the current one.'),
  }),
  window: z.string(),
  interval: z.string(),
});
const CreditsResponse = z.object({
  success: z.literal(true),
  data: z.object({
    total_purchased: num.describe('Credits purchased or granted, all time (monthly allowances not included).'),
    total_used: num.describe('Credits charged, all time.'),
    remaining: num.nullable().describe('Credits available now (monthly allowance left + purchased); null = unlimited.'),
    usage_by_service: z.record(z.string(), num),
    estimated_monthly_burn: num.describe('Credits charged over the last 7 days / 7 x 30.'),
    days_remaining: num.nullable().describe('remaining / daily burn, rounded down; null when unlimited or nothing was spent in 7 days.'),
  }),
});

function positiveInt(text: string | undefined, field: string, dflt: number): number {
  if (text === undefined || text === '') return dflt;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw new UsageError('invalid_parameter', `${field} must be a positive integer`, { field, value: text });
  return Number(text);
}

/** Parses `start_date`/`end_date` of `/stats` (and exports); raises `invalid_date_range` with both values. */
export function parseRange(start: string | undefined, end: string | undefined, nowMs: number, defaultDays: number): { from: number; to: number } {
  const details = { start_date: start ?? null, end_date: end ?? null };
  const to = end === undefined || end === '' ? nowMs : parseUsageDate(end, true);
  const from = start === undefined || start === '' ? (to === null ? null : to - defaultDays * 86_400_000) : parseUsageDate(start);
  if (from === null || to === null) throw new UsageError('invalid_date_range', 'start_date and end_date must be ISO 8601 dates (YYYY-MM-DD) or date-times', details);
  if (from > to) throw new UsageError('invalid_date_range', 'start_date is after end_date', details);
  return { from, to };
}

/** `/v1/usage/summary`, `/stats`, `/realtime`, `/credits`: read from the usage read models. */
export function registerUsageReads(app: ApiApp, platform: Platform): void {
  const store = () => platform.readModels;
  app.route({
    method: 'GET',
    url: '/v1/usage/summary',
    config: USAGE_ROUTE_CONFIG,
    schema: { tags: ['usage'], summary: 'Usage summary (current month)', description: 'Flat (no `data` wrapper), as the spec shows.', response: { ...USAGE_ERROR_RESPONSES, 200: SummaryResponse } },
    handler: async (request) => {
      const a = request.auth!;
      return { success: true as const, ...(await usageSummary(store(), a.tenantId, a.tenant.plan, platform.clock.now())) };
    },
  });

  app.route({
    method: 'GET',
    url: '/v1/usage/stats',
    config: USAGE_ROUTE_CONFIG,
    schema: { tags: ['usage'], summary: 'Detailed usage records and statistics', querystring: StatsQuery, response: { ...USAGE_ERROR_RESPONSES, 200: StatsResponse } },
    handler: async (request) =>
      mapUsageErrors(async () => {
        const q = request.query as z.infer<typeof StatsQuery>;
        if (q.limit !== undefined && /^\d{1,12}$/.test(q.limit) && Number(q.limit) > MAX_STATS_LIMIT) {
          throw new UsageError('limit_exceeded', `limit may be at most ${MAX_STATS_LIMIT}`, { limit: Number(q.limit), max: MAX_STATS_LIMIT });
        }
        const limit = positiveInt(q.limit, 'limit', 100);
        const page = positiveInt(q.page, 'page', 1);
        const { from, to } = parseRange(q.start_date, q.end_date, platform.clock.now(), DEFAULT_STATS_DAYS);
        const endpoint = q.endpoint === undefined || q.endpoint === '' ? null : q.endpoint;
        return { success: true as const, ...(await usageStats(store(), request.auth!.tenantId, { from, to, endpoint, limit, page })) };
      }),
  });

  app.route({
    method: 'GET',
    url: '/v1/usage/realtime',
    config: USAGE_ROUTE_CONFIG,
    schema: {
      tags: ['usage'],
      summary: 'Real-time usage',
      description: 'Not on the Free plan (403 `plan_upgrade_required`; spec, Limits: real-time monitoring).',
      querystring: RealtimeQuery,
      response: { ...USAGE_ERROR_RESPONSES, 200: RealtimeResponse },
    },
    handler: async (request) =>
      mapUsageErrors(async () => {
        const a = request.auth!;
        if (!PLANS[a.tenant.plan].realtimeMonitoring) {
          throw new UsageError('plan_upgrade_required', 'Real-time monitoring is not included in the Free plan', { plan: a.tenant.plan, feature: 'realtime' });
        }
        const q = request.query as z.infer<typeof RealtimeQuery>;
        const window = (q.window ?? '1h') as RealtimeWindow;
        if (!(window in REALTIME_WINDOWS)) throw new UsageError('invalid_parameter', 'window must be 1h, 6h or 24h', { field: 'window', value: q.window });
        const interval = (q.interval ?? ({ '1h': '1m', '6h': '5m', '24h': '15m' } as const)[window]) as RealtimeInterval;
        if (!(interval in REALTIME_INTERVALS)) throw new UsageError('invalid_parameter', 'interval must be 1m, 5m, 15m or 1h', { field: 'interval', value: q.interval });
        return { success: true as const, ...(await usageRealtime(store(), a.tenantId, window, interval, platform.clock.now())) };
      }),
  });

  app.route({
    method: 'GET',
    url: '/v1/usage/credits',
    config: USAGE_ROUTE_CONFIG,
    schema: { tags: ['usage'], summary: 'Credit consumption and burn forecast', response: { ...USAGE_ERROR_RESPONSES, 200: CreditsResponse } },
    handler: async (request) => {
      const a = request.auth!;
      return { success: true as const, data: await usageCredits(store(), a.tenantId, a.tenant.plan, platform.clock.now()) };
    },
  });
}
