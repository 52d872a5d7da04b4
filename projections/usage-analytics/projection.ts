/**
 * The usage-analytics projection (issue 14): folds the usage events of every call (`ApiCallRecorded`,
 * and the batches of them, `ApiCallsRecorded`, folded call by call), the credit events (`domain/credits/credits.ts`), the tenancy plan events and the
 * alert events into the read models of `./model.ts`, and evaluates the tenants' alerts event by event as
 * it goes (hysteresis, `domain/usage/alerts.ts`). A firing is written to the outbox collection in the
 * same transaction as the checkpoint; the alert dispatcher (`workflows/usage-alerts`) starts its
 * notification workflow. Each batch: one `getMany` per collection, the fold in memory, one `putMany`.
 *
 * Counters are exact once per event because a batch and its checkpoint commit together (the runner) and
 * a replay truncates the collections first.
 */
import { PRIVACY_TENANT_PROFILE_ERASED } from '../../domain/privacy/offboarding.ts';
import type { RecordedEvent } from '../../infra/ports/event-store.ts';
import type { Projection } from '../projection.ts';
import { USAGE_EVENT_TYPES, serviceGroup, type ApiCallRecorded, type ApiCallsRecorded } from '../../domain/usage/usage.ts';
import { asSingleCallEvents } from '../usage-events/usage-events.ts';
import { CREDIT_EVENT_TYPES, availableCredits, evolveCredits, type CreditEvent, type CreditState } from '../../domain/credits/credits.ts';
import { PLANS, type PlanName } from '../../domain/plans/plans.ts';
import {
  ALERT_EVENT_TYPES,
  ALERT_WINDOWS,
  conditionHolds,
  stepAlert,
  type AlertCondition,
  type UsageAlertEvent,
} from '../../domain/usage/alerts.ts';
import { GRAINS, floorTo, iso, monthKey } from '../../domain/usage/time.ts';
import {
  ALL_ENDPOINTS,
  C,
  monthId,
  rollupId,
  usageCollections,
  type AlertDoc,
  type AlertOutboxDoc,
  type CreditAccount,
  type CreditDay,
  type MonthTotals,
  type Rollup,
  type TenantUsage,
} from './model.ts';

const TENANT_EVENTS = ['TenantCreated', 'TenantPlanChanged'] as const;
const HISTORY_KEPT = 50;

export function toCreditState(doc: CreditAccount | undefined): CreditState {
  return {
    period: doc?.period ?? null,
    monthlyUsed: doc?.monthly_used ?? 0,
    purchasedBalance: doc?.purchased_balance ?? 0,
    totalPurchased: doc?.total_purchased ?? 0,
    totalUsed: doc?.total_used ?? 0,
    usedByEndpoint: { ...(doc?.used_by_endpoint ?? {}) },
    open: new Map(Object.entries(doc?.open ?? {}).map(([id, r]) => [id, { ...r, holder: r.holder ?? null, leaseExpiresAt: r.leaseExpiresAt ?? null, client: r.client ?? null }])),
    billedTo: doc?.billed_to ?? null,
    monthlyCap: doc?.monthly_cap ?? null,
    clientUsed: new Map(Object.entries(doc?.client_used ?? {})),
    clientPeriod: doc?.client_period ?? null,
  };
}

function fromCreditState(tenantId: string, s: CreditState): CreditAccount {
  return {
    tenant_id: tenantId,
    period: s.period,
    monthly_used: s.monthlyUsed,
    purchased_balance: s.purchasedBalance,
    total_purchased: s.totalPurchased,
    total_used: s.totalUsed,
    used_by_endpoint: s.usedByEndpoint,
    open: Object.fromEntries(s.open),
    billed_to: s.billedTo,
    monthly_cap: s.monthlyCap,
    client_used: Object.fromEntries(s.clientUsed),
    client_period: s.clientPeriod,
  };
}

type Minute = { calls: number; errors: number; rt: number };

/** The documents one call counts in (see `targetsOf` in the projection). */
interface CallTargets {
  rollups: Rollup[];
  month: MonthTotals;
  service: string;
}

/**
 * Counts one call (status code, response time in seconds, credits charged) in its rollups and month,
 * in the order the per-call fold always used, so floating-point sums are the same whichever path folds it.
 */
function foldCall(targets: CallTargets, statusCode: number, responseTime: number, credits: number): void {
  const isError = statusCode >= 400;
  const code = String(statusCode);
  for (const r of targets.rollups) {
    r.calls += 1;
    if (isError) r.errors += 1;
    r.rt_sum += responseTime;
    r.rt_min = Math.min(r.rt_min, responseTime);
    r.rt_max = Math.max(r.rt_max, responseTime);
    r.status_codes[code] = (r.status_codes[code] ?? 0) + 1;
    r.credits += credits;
  }
  const m = targets.month;
  m.calls += 1;
  if (isError) m.errors += 1;
  m.credits += credits;
  m.by_service[targets.service] = (m.by_service[targets.service] ?? 0) + 1;
}

/**
 * A number naming call `i`'s (minute, endpoint) pair within batch `d` (`minute`: the call's instant floored
 * to the minute, epoch ms); exact, as minutes since 1970 times the batch's string count stay under 2^53.
 */
function minuteEndpointKey(d: ApiCallsRecorded['data'], i: number, minute: number): number {
  return (minute / 60_000) * d.strings.length + d.endpoint[i]!;
}

function eventTime(e: RecordedEvent): number {
  const d = e.data as Record<string, unknown>;
  const t = d.created_at ?? d.reserved_at ?? d.committed_at ?? d.released_at ?? d.granted_at ?? d.changed_at ?? d.updated_at ?? d.deleted_at ?? d.notified_at;
  const ms = typeof t === 'string' ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? Date.parse(e.recordedAt) : ms;
}

const isWindowed = (c: AlertCondition) => c.metric === 'error_rate' || c.metric === 'avg_response_time';

export const usageAnalyticsProjection: Projection = {
  name: 'usage-analytics',
  collections: Object.values(C),
  eventTypes: [...USAGE_EVENT_TYPES, ...CREDIT_EVENT_TYPES, ...TENANT_EVENTS, ...ALERT_EVENT_TYPES, PRIVACY_TENANT_PROFILE_ERASED],
  // Every call's event lands here: big batches mean fewer round trips per event (bench/usage.bench.ts).
  // A batch event holds up to 1,000 calls: 500 of them bound a batch's memory (500,000 calls at most).
  batchSize: 500,
  async apply(logged, { store }) {
    const cols = await usageCollections(store);
    const tenantOf = (e: RecordedEvent) => (e.data as { tenant_id?: string | null }).tenant_id ?? null;
    const tenantIds = [...new Set(logged.map(tenantOf).filter((t): t is string => t !== null))];
    if (tenantIds.length === 0) return;
    const alertList = await cols.alerts.find({ tenant_id: { $in: tenantIds } });
    // A tenant with alerts (stored, or created in this batch) has its batch events folded call by call, as
    // if each call had its own event: its alerts are evaluated after every call, as before. Every other
    // tenant's batch events are folded from their columns (`case 'ApiCallsRecorded'` below, {@link foldCall}): same documents, same sums
    // in the same order, without an object and an ISO 8601 text per call (issue 18).
    const callByCall = new Set(alertList.map((a) => a.tenant_id));
    for (const e of logged) if (ALERT_EVENT_TYPES.includes(e.type as never) && tenantOf(e)) callByCall.add(tenantOf(e)!);
    const events = logged.some((e) => e.type === 'ApiCallsRecorded' && callByCall.has(tenantOf(e)!))
      ? asSingleCallEvents(logged, (e) => callByCall.has(tenantOf(e)!))
      : logged;

    // ISO 8601 text of the bucket starts, once per bucket per batch instead of per event and grain (the
    // same strings as iso(); Date#toISOString was a tenth of the projection's CPU in bench/usage.bench.ts).
    const isoOfBucket = new Map<number, string>();
    const bucketIso = (start: number): string => {
      let text = isoOfBucket.get(start);
      if (text === undefined) isoOfBucket.set(start, (text = iso(start)));
      return text;
    };
    /** monthKey(ms): a UTC day starts at a multiple of 86,400,000 ms, so its month is the instant's. */
    const monthOf = (ms: number): string => bucketIso(floorTo(ms, 86_400_000)).slice(0, 7);

    // --- load what this batch touches ----------------------------------------------------------------
    const rollupIds: string[] = [];
    const monthIds: string[] = [];
    const dayIds: string[] = [];
    /** The ids a call of tenant `t` to `endpoint` at `ms` (epoch ms) folds into. */
    const callIds = (t: string, endpoint: string, ms: number) => {
      for (const g of GRAINS) {
        const bucket = bucketIso(floorTo(ms, g.ms));
        rollupIds.push(rollupId(t, g.name, bucket, endpoint), rollupId(t, g.name, bucket, ALL_ENDPOINTS));
      }
      monthIds.push(monthId(t, monthOf(ms)));
    };
    for (const e of events) {
      const t = tenantOf(e);
      if (!t) continue;
      if (e.type === 'ApiCallRecorded') {
        const d = (e as unknown as ApiCallRecorded).data;
        callIds(t, d.endpoint, Date.parse(d.created_at));
      } else if (e.type === 'ApiCallsRecorded') {
        const d = (e as unknown as ApiCallsRecorded).data;
        // Once per (endpoint, minute) of the batch: every bucket of a minute is the same for its calls.
        const seen = new Set<number>();
        for (let i = 0; i < d.created_at.length; i++) {
          const minute = floorTo(d.created_at[i]!, 60_000);
          const k = minuteEndpointKey(d, i, minute);
          if (seen.has(k)) continue;
          seen.add(k);
          callIds(t, d.strings[d.endpoint[i]!]!, minute);
        }
      } else if (e.type === 'CreditsCommitted') {
        dayIds.push(monthId(t, iso(eventTime(e)).slice(0, 10)));
      }
    }
    // Sequential: inside the batch's transaction the PostgreSQL adapter holds a single connection.
    const tenants = await cols.tenants.getMany(tenantIds);
    const credits = await cols.credits.getMany(tenantIds);
    const rollups = await cols.rollups.getMany(rollupIds);
    const months = await cols.months.getMany(monthIds);
    const days = await cols.creditDays.getMany(dayIds);
    const creditStates = new Map(tenantIds.map((t) => [t, toCreditState(credits.get(t))]));
    const alerts = new Map(alertList.map((a) => [a.id, a]));
    const deletedAlerts = new Set<string>();
    const outbox: Array<[string, AlertOutboxDoc]> = [];
    const touchedAlerts = new Set<string>();

    // Windowed alert metrics: the tenant's per-minute totals over the longest window, as stored before
    // this batch; the batch's calls are added as they are folded.
    const windows = new Map<string, Map<number, Minute>>();
    const needsWindow = new Set<string>();
    for (const a of alertList) if (isWindowed(a.condition)) needsWindow.add(a.tenant_id);
    for (const e of events) {
      if ((e.type === 'UsageAlertCreated' || e.type === 'UsageAlertUpdated') && isWindowed((e.data as { condition: AlertCondition }).condition)) {
        needsWindow.add(tenantOf(e)!);
      }
    }
    for (const t of needsWindow) {
      let first = Infinity; // a loop, not Math.min(...): a batch may hold 500,000 calls
      for (const e of events) if (tenantOf(e) === t) first = Math.min(first, eventTime(e));
      const from = floorTo(first, 60_000) - 1440 * 60_000;
      const stored = await cols.rollups.find({ tenant_id: t, grain: 'm', endpoint: ALL_ENDPOINTS, bucket: { $gte: iso(from) } });
      const map = new Map<number, Minute>();
      for (const r of stored) {
        const k = Date.parse(r.bucket);
        const m = map.get(k) ?? { calls: 0, errors: 0, rt: 0 };
        m.calls += r.calls;
        m.errors += r.errors;
        m.rt += r.rt_sum;
        map.set(k, m);
      }
      windows.set(t, map);
    }

    // Only documents that changed are written back.
    const dirtyTenants = new Set<string>();
    const dirtyCredits = new Set<string>();
    const tenantDoc = (t: string): TenantUsage => {
      let doc = tenants.get(t);
      if (!doc) {
        tenants.set(t, (doc = { tenant_id: t, plan: null, endpoints: [] }));
        dirtyTenants.add(t);
      }
      return doc;
    };

    const metricValue = (a: AlertDoc, at: number): number | null => {
      const t = a.tenant_id;
      switch (a.condition.metric) {
        case 'credits_remaining': {
          const plan = tenantDoc(t).plan;
          if (!plan) return null;
          return availableCredits(creditStates.get(t)!, PLANS[plan].monthlyCredits, at);
        }
        case 'calls_this_month':
          return months.get(monthId(t, monthKey(at)))?.calls ?? 0;
        case 'error_rate':
        case 'avg_response_time': {
          const map = windows.get(t);
          if (!map) return null;
          const minutes = ALERT_WINDOWS[a.condition.window ?? '1h'];
          const end = floorTo(at, 60_000);
          const start = end - (minutes - 1) * 60_000;
          let calls = 0;
          let errors = 0;
          let rt = 0;
          for (const [k, m] of map) {
            if (k < start || k > end) continue;
            calls += m.calls;
            errors += m.errors;
            rt += m.rt;
          }
          if (calls === 0) return null;
          return a.condition.metric === 'error_rate' ? Math.round((errors / calls) * 10000) / 100 : Math.round((rt / calls) * 1e6) / 1e6;
        }
        default:
          return null;
      }
    };

    const evaluate = (a: AlertDoc, at: number) => {
      if (!a.enabled || deletedAlerts.has(a.id)) return;
      const value = metricValue(a, at);
      const step = stepAlert(a.state, conditionHolds(a.condition, value));
      a.last_value = value;
      a.last_evaluated_at = iso(at);
      if (step.state === 'armed' && a.state === 'triggered' && a.history[0] && a.history[0].cleared_at === null) a.history[0].cleared_at = iso(at);
      a.state = step.state;
      touchedAlerts.add(a.id);
      if (!step.fire) return;
      a.triggered_count += 1;
      const fireId = `${a.id}-${a.triggered_count}`;
      a.last_triggered_at = iso(at);
      a.history.unshift({ fire_id: fireId, fired_at: iso(at), value: value!, cleared_at: null, notifications: null });
      a.history.length = Math.min(a.history.length, HISTORY_KEPT);
      outbox.push([
        fireId,
        { id: fireId, tenant_id: a.tenant_id, alert_id: a.id, alert_name: a.name, condition: a.condition, notification: a.notification, value: value!, fired_at: iso(at), status: 'pending' },
      ]);
    };
    const evaluateTenant = (t: string, at: number) => {
      for (const a of alerts.values()) if (a.tenant_id === t) evaluate(a, at);
    };
    const hasAlerts = new Set(alertList.map((a) => a.tenant_id));

    /**
     * The documents a call of tenant `t` to `endpoint` at `ms` (epoch ms) counts in: its rollups (each
     * grain's bucket, for the endpoint then for all endpoints) and its month, created at the first call
     * that touches them; records the endpoint on the tenant's document.
     */
    const targetsOf = (t: string, endpoint: string, ms: number): CallTargets => {
      const service = serviceGroup(endpoint);
      const list: Rollup[] = [];
      for (const g of GRAINS) {
        const bucket = bucketIso(floorTo(ms, g.ms));
        for (const ep of [endpoint, ALL_ENDPOINTS]) {
          const id = rollupId(t, g.name, bucket, ep);
          let r = rollups.get(id);
          if (!r) {
            // rt_min/rt_max start at +/-Infinity and take the first call's time in foldCall (as before).
            r = { tenant_id: t, grain: g.name, bucket, endpoint: ep, service: ep === ALL_ENDPOINTS ? ALL_ENDPOINTS : service, calls: 0, errors: 0, rt_sum: 0, rt_min: Infinity, rt_max: -Infinity, status_codes: {}, credits: 0 } satisfies Rollup;
            rollups.set(id, r);
          }
          list.push(r);
        }
      }
      const month = monthOf(ms);
      const mid = monthId(t, month);
      let m = months.get(mid);
      if (!m) months.set(mid, (m = { tenant_id: t, month, calls: 0, errors: 0, credits: 0, by_service: {} } satisfies MonthTotals));
      const td = tenantDoc(t);
      if (!td.endpoints.includes(endpoint)) {
        td.endpoints.push(endpoint);
        dirtyTenants.add(t);
      }
      return { rollups: list, month: m, service };
    };

    // --- fold ----------------------------------------------------------------------------------------
    for (const e of events) {
      const t = tenantOf(e);
      if (!t) continue;
      const at = eventTime(e);
      switch (e.type) {
        case 'ApiCallRecorded': {
          const d = (e as unknown as ApiCallRecorded).data;
          const ms = Date.parse(d.created_at);
          foldCall(targetsOf(t, d.endpoint, ms), d.status_code, d.response_time, d.credits_charged);
          const w = windows.get(t);
          if (w) {
            const k = floorTo(ms, 60_000);
            const mm = w.get(k) ?? { calls: 0, errors: 0, rt: 0 };
            mm.calls += 1;
            if (d.status_code >= 400) mm.errors += 1;
            mm.rt += d.response_time;
            w.set(k, mm);
          }
          break;
        }
        case 'ApiCallsRecorded': {
          // Only tenants without alerts get here (the others' batches were expanded call by call above).
          const d = (e as unknown as ApiCallsRecorded).data;
          const byMinute = new Map<number, CallTargets>();
          for (let i = 0; i < d.created_at.length; i++) {
            const minute = floorTo(d.created_at[i]!, 60_000);
            const k = minuteEndpointKey(d, i, minute);
            let targets = byMinute.get(k);
            if (!targets) byMinute.set(k, (targets = targetsOf(t, d.strings[d.endpoint[i]!]!, minute)));
            foldCall(targets, d.status_code[i]!, d.response_time[i]!, d.credits_charged[i]!);
          }
          break;
        }
        case 'CreditsPurchased':
        case 'CreditsReserved':
        case 'CreditsCommitted':
        case 'CreditsReleased':
        case 'CreditAccountLinked':
        case 'CreditCapSet': {
          evolveCredits(creditStates.get(t)!, e as unknown as CreditEvent);
          dirtyCredits.add(t);
          if (e.type === 'CreditsCommitted') {
            const day = iso(at).slice(0, 10);
            const id = monthId(t, day);
            let cd = days.get(id);
            if (!cd) days.set(id, (cd = { tenant_id: t, day, credits: 0 } satisfies CreditDay));
            cd.credits += (e.data as { amount: number }).amount;
          }
          break;
        }
        case PRIVACY_TENANT_PROFILE_ERASED:
          // Off-boarding destroyed the tenant's profile key: its alerts' notification targets (e-mail
          // addresses, webhook URL) read as erased, as `UsageAlertCreated`/`Updated` do on replay.
          for (const a of alerts.values()) {
            if (a.tenant_id !== t) continue;
            a.notification = {} as typeof a.notification;
            touchedAlerts.add(a.id);
          }
          break;
        case 'TenantCreated':
        case 'TenantPlanChanged':
          tenantDoc(t).plan = (e.data as { plan: PlanName }).plan;
          dirtyTenants.add(t);
          break;
        case 'UsageAlertCreated':
        case 'UsageAlertUpdated':
        case 'UsageAlertDeleted':
        case 'UsageAlertNotified': {
          const ev = e as unknown as UsageAlertEvent;
          if (ev.type === 'UsageAlertCreated') {
            const d = ev.data;
            alerts.set(d.alert_id, {
              id: d.alert_id, tenant_id: t, name: d.name, type: 'threshold', condition: d.condition, notification: d.notification, enabled: d.enabled,
              state: 'armed', last_value: null, last_evaluated_at: null, triggered_count: 0, last_triggered_at: null, history: [], created_at: d.created_at, updated_at: d.created_at,
            });
            hasAlerts.add(t);
            touchedAlerts.add(d.alert_id);
          } else if (ev.type === 'UsageAlertUpdated') {
            const a = alerts.get(ev.data.alert_id);
            if (!a) break;
            const changed = JSON.stringify(a.condition) !== JSON.stringify(ev.data.condition) || (!a.enabled && ev.data.enabled);
            Object.assign(a, { name: ev.data.name, condition: ev.data.condition, notification: ev.data.notification, enabled: ev.data.enabled, updated_at: ev.data.updated_at });
            if (changed) a.state = 'armed';
            touchedAlerts.add(a.id);
          } else if (ev.type === 'UsageAlertDeleted') {
            alerts.delete(ev.data.alert_id);
            deletedAlerts.add(ev.data.alert_id);
          } else {
            const a = alerts.get(ev.data.alert_id);
            const h = a?.history.find((x) => x.fire_id === ev.data.fire_id);
            if (a && h) {
              h.notifications = { webhook: ev.data.webhook, email: ev.data.email, notified_at: ev.data.notified_at };
              touchedAlerts.add(a.id);
            }
          }
          break;
        }
        default:
          break;
      }
      // A reservation is a transient dip (released if the call fails): alerts look at settled balances.
      if (hasAlerts.has(t) && e.type !== 'UsageAlertNotified' && e.type !== 'UsageAlertDeleted' && e.type !== 'CreditsReserved') evaluateTenant(t, at);
    }

    // --- write ---------------------------------------------------------------------------------------
    await cols.rollups.putMany([...rollups]);
    await cols.months.putMany([...months]);
    await cols.tenants.putMany([...dirtyTenants].map((t) => [t, tenants.get(t)!] as const));
    await cols.credits.putMany([...dirtyCredits].map((t) => [t, fromCreditState(t, creditStates.get(t)!)] as const));
    await cols.creditDays.putMany([...days]);
    await cols.alerts.putMany([...touchedAlerts].filter((id) => alerts.has(id)).map((id) => [id, alerts.get(id)!] as const));
    for (const id of deletedAlerts) await cols.alerts.delete(id);
    if (outbox.length) await cols.outbox.putMany(outbox);
  },
};
