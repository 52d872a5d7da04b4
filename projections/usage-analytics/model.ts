/**
 * Read models of usage analytics (issue 14), written by `./projection.ts` and read by
 * `domain/usage/queries.ts`. Every collection is keyed so a replay rebuilds it identically.
 */
import type { Collection, ReadModelStore } from '../../infra/ports/read-models.ts';
import type { AlertCondition, AlertNotification } from '../../domain/usage/alerts.ts';
import type { PlanName } from '../../domain/plans/plans.ts';
import type { Reservation } from '../../domain/credits/credits.ts';

/**
 * Counters of one (tenant, grain, bucket, endpoint): `grain` m/h/d (UTC minute, hour, day), `bucket` its
 * first instant (ISO 8601). Response times in seconds. `errors` = calls with status >= 400.
 * Id `<tenant>|<grain>|<bucket>|<endpoint>`.
 */
export interface Rollup extends Record<string, unknown> {
  tenant_id: string;
  grain: 'm' | 'h' | 'd';
  bucket: string;
  endpoint: string;
  service: string;
  calls: number;
  errors: number;
  rt_sum: number;
  rt_min: number;
  rt_max: number;
  /** Calls per HTTP status code. */
  status_codes: Record<string, number>;
  credits: number;
}

/** Calls of one tenant in one UTC month (`YYYY-MM`), per service group. Id `<tenant>|<month>`. */
export interface MonthTotals extends Record<string, unknown> {
  tenant_id: string;
  month: string;
  calls: number;
  errors: number;
  credits: number;
  by_service: Record<string, number>;
}

/** Per tenant: its plan (from tenancy events) and every endpoint it called (for the `endpoint` filter). Id = tenant id. */
export interface TenantUsage extends Record<string, unknown> {
  tenant_id: string;
  plan: PlanName | null;
  endpoints: string[];
}

/** The credit account folded from the credit events (`domain/credits/credits.ts`, `evolveCredits`). Id = tenant id. */
export interface CreditAccount extends Record<string, unknown> {
  tenant_id: string;
  period: string | null;
  monthly_used: number;
  purchased_balance: number;
  total_purchased: number;
  total_used: number;
  used_by_endpoint: Record<string, number>;
  open: Record<string, Reservation>;
  /** White-label client: the payer of its calls, and its monthly cap (absent on accounts written before them). */
  billed_to?: string | null;
  monthly_cap?: number | null;
  /** Payer: credits each client used in `client_period`. */
  client_used?: Record<string, number>;
  client_period?: string | null;
}

/** Credits committed on one UTC day (`YYYY-MM-DD`). Id `<tenant>|<day>`. */
export interface CreditDay extends Record<string, unknown> {
  tenant_id: string;
  day: string;
  credits: number;
}

/** One firing of an alert as shown in its record. */
export interface AlertFiring {
  fire_id: string;
  fired_at: string;
  value: number;
  cleared_at: string | null;
  notifications: UsageAlertNotifications | null;
}
export interface UsageAlertNotifications {
  webhook: { status: 'success' | 'failed'; attempts: number; response_status: number | null; error_message: string | null } | null;
  email: { status: 'sent' | 'failed'; message_id: string | null; error_message: string | null } | null;
  notified_at: string;
}

/** The alert record the API returns (docs/usage.md, "Alert record"). Id = alert id. */
export interface AlertDoc extends Record<string, unknown> {
  id: string;
  tenant_id: string;
  name: string;
  type: 'threshold';
  condition: AlertCondition;
  notification: AlertNotification;
  enabled: boolean;
  /** `armed` (waiting for the condition) or `triggered` (fired; re-armed when the condition clears). */
  state: 'armed' | 'triggered';
  last_value: number | null;
  last_evaluated_at: string | null;
  triggered_count: number;
  last_triggered_at: string | null;
  /** The latest 50 firings, newest first. */
  history: AlertFiring[];
  created_at: string;
  updated_at: string;
}

/** A firing waiting for its notification workflow to be started (an outbox in the read models). Id = fire id. */
export interface AlertOutboxDoc extends Record<string, unknown> {
  id: string;
  tenant_id: string;
  alert_id: string;
  alert_name: string;
  condition: AlertCondition;
  notification: AlertNotification;
  value: number;
  fired_at: string;
  status: 'pending' | 'dispatched';
}

export const C = {
  rollups: 'usage_rollups',
  months: 'usage_months',
  tenants: 'usage_tenants',
  credits: 'credit_accounts',
  creditDays: 'credit_days',
  alerts: 'usage_alerts',
  outbox: 'usage_alert_outbox',
} as const;

export interface UsageCollections {
  rollups: Collection<Rollup>;
  months: Collection<MonthTotals>;
  tenants: Collection<TenantUsage>;
  credits: Collection<CreditAccount>;
  creditDays: Collection<CreditDay>;
  alerts: Collection<AlertDoc>;
  outbox: Collection<AlertOutboxDoc>;
}

/** Declares (idempotently) and opens the usage collections on `store`. */
export async function usageCollections(store: ReadModelStore): Promise<UsageCollections> {
  return {
    rollups: await store.collection<Rollup>(C.rollups, { indexes: [['tenant_id', 'grain', 'bucket']] }),
    months: await store.collection<MonthTotals>(C.months),
    tenants: await store.collection<TenantUsage>(C.tenants),
    credits: await store.collection<CreditAccount>(C.credits),
    creditDays: await store.collection<CreditDay>(C.creditDays, { indexes: [['tenant_id', 'day']] }),
    alerts: await store.collection<AlertDoc>(C.alerts, { indexes: [['tenant_id', 'created_at']] }),
    outbox: await store.collection<AlertOutboxDoc>(C.outbox, { indexes: ['status'] }),
  };
}

/**
 * The `endpoint` of a tenant's total rollups: every call is counted under its endpoint AND under `*`, so
 * queries without an endpoint filter (statistics, the real-time series, the page, exports) read one row
 * per bucket instead of one per endpoint.
 */
export const ALL_ENDPOINTS = '*';

export const rollupId = (tenant: string, grain: string, bucket: string, endpoint: string) => `${tenant}|${grain}|${bucket}|${endpoint}`;
export const monthId = (tenant: string, month: string) => `${tenant}|${month}`;
