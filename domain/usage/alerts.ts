/**
 * Usage alerts (issue 14): threshold conditions on usage metrics, event-sourced per tenant on the
 * stream `usage-alerts-<tenantId>`, evaluated by the usage-analytics projection as usage and credit
 * events are projected (never by polling), with hysteresis: an alert fires when its condition becomes
 * true, and is re-armed only once the condition is false again.
 */
import type { PlanName } from '../plans/plans.ts';
import { PLANS } from '../plans/plans.ts';
import { UsageError } from './errors.ts';

/** Metrics an alert may watch (docs/usage.md). */
export const ALERT_METRICS = {
  /** Credits available now: the month's allowance left plus purchased credits. Never fires on Enterprise (unlimited). */
  credits_remaining: 'credits',
  /** Calls (any status) in the current UTC month. */
  calls_this_month: 'calls',
  /** Percent (0-100) of calls answered with HTTP status >= 400 over `condition.window`. */
  error_rate: 'percent',
  /** Average response time in seconds over `condition.window`. */
  avg_response_time: 'seconds',
} as const;
export type AlertMetric = keyof typeof ALERT_METRICS;

/** Operators, by name or symbol. */
export const ALERT_OPERATORS = { lt: '<', lte: '<=', gt: '>', gte: '>=', eq: '==' } as const;
export type AlertOperator = keyof typeof ALERT_OPERATORS;
const OPERATOR_ALIASES: Record<string, AlertOperator> = { '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte', '==': 'eq', '=': 'eq', less_than: 'lt', greater_than: 'gt' };

/** Windows of the windowed metrics (`error_rate`, `avg_response_time`), in minutes. Default `1h`. */
export const ALERT_WINDOWS = { '5m': 5, '15m': 15, '1h': 60, '24h': 1440 } as const;
export type AlertWindow = keyof typeof ALERT_WINDOWS;
export const MAX_ALERT_WINDOW_MINUTES = 1440;

export interface AlertCondition {
  metric: AlertMetric;
  operator: AlertOperator;
  value: number;
  /** Only for windowed metrics. */
  window?: AlertWindow;
}

export interface AlertNotification {
  webhook_url: string | null;
  email: string | null;
}

export type UsageAlertCreated = {
  type: 'UsageAlertCreated';
  data: {
    alert_id: string;
    tenant_id: string;
    name: string;
    type: 'threshold';
    condition: AlertCondition;
    notification: AlertNotification;
    enabled: boolean;
    /** The signing secret, AES-256-GCM sealed (domain/webhooks/secret-box.ts) with the alert id as AAD. */
    secret_sealed: string;
    created_at: string;
  };
};
export type UsageAlertUpdated = {
  type: 'UsageAlertUpdated';
  data: { alert_id: string; tenant_id: string; name: string; condition: AlertCondition; notification: AlertNotification; enabled: boolean; updated_at: string };
};
export type UsageAlertDeleted = { type: 'UsageAlertDeleted'; data: { alert_id: string; tenant_id: string; deleted_at: string } };
/** Outcome of one firing's notifications, appended by the notification workflow. */
export type UsageAlertNotified = {
  type: 'UsageAlertNotified';
  data: {
    alert_id: string;
    tenant_id: string;
    fire_id: string;
    webhook: { status: 'success' | 'failed'; attempts: number; response_status: number | null; error_message: string | null } | null;
    email: { status: 'sent' | 'failed'; message_id: string | null; error_message: string | null } | null;
    notified_at: string;
  };
};
export type UsageAlertEvent = UsageAlertCreated | UsageAlertUpdated | UsageAlertDeleted | UsageAlertNotified;
export const ALERT_EVENT_TYPES = ['UsageAlertCreated', 'UsageAlertUpdated', 'UsageAlertDeleted', 'UsageAlertNotified'] as const;

export const alertsStream = (tenantId: string) => `usage-alerts-${tenantId}`;

/** The tenant's alert definitions (the aggregate the commands decide on). */
export interface AlertsState {
  alerts: Map<string, { name: string; condition: AlertCondition; notification: AlertNotification; enabled: boolean; secretSealed: string; createdAt: string }>;
}
export const initialAlertsState = (): AlertsState => ({ alerts: new Map() });

export function evolveAlerts(state: AlertsState, event: UsageAlertEvent): AlertsState {
  switch (event.type) {
    case 'UsageAlertCreated': {
      const d = event.data;
      state.alerts.set(d.alert_id, { name: d.name, condition: d.condition, notification: d.notification, enabled: d.enabled, secretSealed: d.secret_sealed, createdAt: d.created_at });
      return state;
    }
    case 'UsageAlertUpdated': {
      const a = state.alerts.get(event.data.alert_id);
      if (a) Object.assign(a, { name: event.data.name, condition: event.data.condition, notification: event.data.notification, enabled: event.data.enabled });
      return state;
    }
    case 'UsageAlertDeleted':
      state.alerts.delete(event.data.alert_id);
      return state;
    case 'UsageAlertNotified':
      return state;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** Alerts a plan allows (spec, Limits: 0, 1, 5, unlimited); null = unlimited. */
export const alertCap = (plan: PlanName): number | null => PLANS[plan].alerts;

/** Raw alert input as the API receives it (create: every field; update: any subset). */
export interface AlertInput {
  name?: unknown;
  type?: unknown;
  condition?: { metric?: unknown; operator?: unknown; value?: unknown; window?: unknown } | undefined;
  notification?: { webhook_url?: unknown; email?: unknown } | undefined;
  enabled?: unknown;
}

const EMAIL = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/;

/**
 * Validates and normalises an alert body; for an update `base` supplies the fields not given.
 * @throws UsageError `invalid_alert` (400) naming the field.
 */
export function normaliseAlert(input: AlertInput, base?: { name: string; condition: AlertCondition; notification: AlertNotification; enabled: boolean }) {
  const bad = (field: string, message: string): never => {
    throw new UsageError('invalid_alert', message, { field });
  };
  const name = input.name === undefined ? base?.name : input.name;
  // No control characters: the name goes into e-mail subjects and the page.
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200 || /[\u0000-\u001f\u007f]/.test(name)) {
    bad('name', 'name must be a non-empty string of at most 200 characters without control characters');
  }
  if (input.type !== undefined && input.type !== 'threshold') bad('type', "type must be 'threshold'");
  const c = input.condition ?? {};
  const metric = c.metric === undefined ? base?.condition.metric : c.metric;
  if (typeof metric !== 'string' || !(metric in ALERT_METRICS)) bad('condition.metric', `condition.metric must be one of ${Object.keys(ALERT_METRICS).join(', ')}`);
  const rawOp = c.operator === undefined ? base?.condition.operator : c.operator;
  const operator = typeof rawOp === 'string' ? ((rawOp in ALERT_OPERATORS ? rawOp : OPERATOR_ALIASES[rawOp]) as AlertOperator | undefined) : undefined;
  if (!operator) bad('condition.operator', `condition.operator must be one of ${Object.keys(ALERT_OPERATORS).join(', ')} (or ${Object.values(ALERT_OPERATORS).join(' ')})`);
  const value = c.value === undefined ? base?.condition.value : c.value;
  if (typeof value !== 'number' || !Number.isFinite(value)) bad('condition.value', 'condition.value must be a finite number');
  const windowed = metric === 'error_rate' || metric === 'avg_response_time';
  const rawWindow = c.window === undefined ? (base?.condition.metric === metric ? base?.condition.window : undefined) : c.window;
  let window: AlertWindow | undefined;
  if (windowed) {
    window = (rawWindow ?? '1h') as AlertWindow;
    if (typeof window !== 'string' || !(window in ALERT_WINDOWS)) bad('condition.window', `condition.window must be one of ${Object.keys(ALERT_WINDOWS).join(', ')}`);
  } else if (c.window !== undefined) bad('condition.window', `condition.window applies only to error_rate and avg_response_time`);
  const n = input.notification;
  const webhook = n && 'webhook_url' in n ? n.webhook_url : (base?.notification.webhook_url ?? null);
  const email = n && 'email' in n ? n.email : (base?.notification.email ?? null);
  if (webhook !== null && webhook !== undefined && (typeof webhook !== 'string' || !webhook.startsWith('https://') || webhook.length > 2048)) {
    bad('notification.webhook_url', 'notification.webhook_url must be an https:// URL');
  }
  if (email !== null && email !== undefined && (typeof email !== 'string' || !EMAIL.test(email) || email.length > 254)) bad('notification.email', 'notification.email must be an e-mail address');
  if ((webhook ?? null) === null && (email ?? null) === null) bad('notification', 'notification needs a webhook_url, an email or both');
  const enabled = input.enabled === undefined ? (base?.enabled ?? true) : input.enabled;
  if (typeof enabled !== 'boolean') bad('enabled', 'enabled must be a boolean');
  return {
    name: (name as string).trim(),
    condition: { metric: metric as AlertMetric, operator: operator!, value: value as number, ...(window ? { window } : {}) } as AlertCondition,
    notification: { webhook_url: (webhook as string | null | undefined) ?? null, email: (email as string | null | undefined) ?? null },
    enabled: enabled as boolean,
  };
}

/** True when `value` satisfies the condition; a null value (no data, unlimited credits) never does. */
export function conditionHolds(condition: AlertCondition, value: number | null): boolean {
  if (value === null) return false;
  switch (condition.operator) {
    case 'lt':
      return value < condition.value;
    case 'lte':
      return value <= condition.value;
    case 'gt':
      return value > condition.value;
    case 'gte':
      return value >= condition.value;
    case 'eq':
      return value === condition.value;
    default: {
      const never: never = condition.operator;
      return never;
    }
  }
}

/**
 * Hysteresis: from `armed`, a true condition fires and moves to `triggered`; from `triggered`, only a
 * false condition re-arms. Returns the new state and whether this evaluation fires.
 */
export function stepAlert(state: 'armed' | 'triggered', holds: boolean): { state: 'armed' | 'triggered'; fire: boolean } {
  if (state === 'armed') return holds ? { state: 'triggered', fire: true } : { state, fire: false };
  return holds ? { state, fire: false } : { state: 'armed', fire: false };
}

/** The webhook event type of a firing: the catalog's `user.credits.low` for credit alerts. */
export const alertEventType = (metric: AlertMetric): string => (metric === 'credits_remaining' ? 'user.credits.low' : 'usage.alert.triggered');
