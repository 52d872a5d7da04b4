/**
 * Usage alerts: the commands (create, update, delete on the tenant's `usage-alerts-<tenantId>` stream,
 * appended with the expected revision so the plan's cap holds under concurrent requests), the
 * notification activities, and the dispatcher that starts one `usage-alert-notification` workflow per
 * firing the projection wrote to its outbox.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { EventStore } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import type { Mailer } from '../../infra/ports/mail.ts';
import type { Activity, Clock, RegisteredProcessManager, WorkflowEngine } from '../../infra/ports/workflows.ts';
import { bindProcessManager } from '../../infra/ports/workflows.ts';
import {
  ALERT_METRICS,
  alertCap,
  alertEventType,
  alertsStream,
  evolveAlerts,
  initialAlertsState,
  normaliseAlert,
  type AlertInput,
  type AlertsState,
  type UsageAlertEvent,
} from '../../domain/usage/alerts.ts';
import { UsageError } from '../../domain/usage/errors.ts';
import type { PlanName } from '../../domain/plans/plans.ts';
import { createSecretBox, generateEndpointSecret, type SecretBox } from '../../domain/webhooks/secret-box.ts';
import { deliveryHeaders } from '../../domain/webhooks/signature.ts';
import { WebhookError } from '../../domain/webhooks/errors.ts';
import { createWebhookSender, type WebhookSender, type WebhookSenderOptions } from '../webhook-delivery/sender.ts';
import { usageCollections, type AlertDoc, type AlertOutboxDoc } from '../../projections/usage-analytics/model.ts';
import { ALERT_ACTIVITIES, alertNotificationProcess, type AlertNotificationState, type WebhookAttemptResult } from './process.ts';

export interface UsageAlertsDeps {
  events: EventStore;
  readModels: ReadModelStore;
  engine: WorkflowEngine;
  mailer: Mailer;
  clock: Clock;
  log: Logger;
  catchUp: () => Promise<void>;
  /** The 32-byte key sealing alert signing secrets (the webhook secret key). */
  secretKey: Buffer;
  mailFrom: string;
  sender: WebhookSenderOptions;
  /** Outbox poll interval, ms (the outbox query is one indexed lookup; default 200). */
  dispatchIntervalMs?: number;
}

/** The alert record of the API: the projection's document without internal fields, plus the secret once. */
export function alertRecord(doc: AlertDoc, secret?: string) {
  const { tenant_id: _t, ...rest } = doc;
  return secret === undefined ? rest : { ...rest, secret };
}

export interface UsageAlerts {
  create(tenantId: string, plan: PlanName, input: AlertInput): Promise<ReturnType<typeof alertRecord>>;
  list(tenantId: string): Promise<ReturnType<typeof alertRecord>[]>;
  get(tenantId: string, alertId: string): Promise<ReturnType<typeof alertRecord>>;
  update(tenantId: string, alertId: string, input: AlertInput): Promise<ReturnType<typeof alertRecord>>;
  remove(tenantId: string, alertId: string): Promise<void>;
  processManagers: RegisteredProcessManager[];
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Starts the notification workflows of pending firings now (the dispatcher's tick). */
  dispatch(): Promise<number>;
}

export function createUsageAlerts(deps: UsageAlertsDeps): UsageAlerts {
  let box: SecretBox | null = null;
  const secretBox = () => (box ??= createSecretBox(deps.secretKey));
  let sender: WebhookSender | null = null;
  const webhookSender = () => (sender ??= createWebhookSender(deps.sender));
  const nowIso = () => new Date(deps.clock.now()).toISOString();

  async function load(tenantId: string): Promise<{ state: AlertsState; revision: number | null }> {
    const { events, currentRevision } = await deps.events.readStream(alertsStream(tenantId));
    const state = events.reduce((s, e) => evolveAlerts(s, e as unknown as UsageAlertEvent), initialAlertsState());
    return { state, revision: currentRevision };
  }

  async function checkWebhook(url: string | null): Promise<void> {
    if (!url) return;
    try {
      await webhookSender().checkUrl(url);
    } catch (err) {
      if (err instanceof WebhookError) throw new UsageError('invalid_alert', err.message, { field: 'notification.webhook_url', reason: err.code });
      throw err;
    }
  }

  async function read(tenantId: string, alertId: string): Promise<AlertDoc> {
    const cols = await usageCollections(deps.readModels);
    const doc = await cols.alerts.get(alertId);
    if (!doc || doc.tenant_id !== tenantId) throw new UsageError('alert_not_found', `alert ${alertId} not found`, { alert_id: alertId });
    return doc;
  }

  const activities: Record<string, Activity> = {
    [ALERT_ACTIVITIES.webhook]: async (input: { firing: AlertOutboxDoc; attempt: number }): Promise<WebhookAttemptResult> => {
      const f = input.firing;
      const { state } = await load(f.tenant_id);
      const alert = state.alerts.get(f.alert_id);
      if (!alert) return { outcome: 'gone', response_status: null, error_message: 'alert deleted' };
      const secret = secretBox().open(alert.secretSealed, f.alert_id);
      const type = alertEventType(f.condition.metric);
      const body = JSON.stringify({
        id: f.id,
        type,
        created: Math.floor(Date.parse(f.fired_at) / 1000),
        data: {
          alert_id: f.alert_id,
          alert_name: f.alert_name,
          metric: f.condition.metric,
          unit: ALERT_METRICS[f.condition.metric],
          operator: f.condition.operator,
          threshold: f.condition.value,
          window: f.condition.window ?? null,
          value: f.value,
          fired_at: f.fired_at,
        },
      });
      const headers = deliveryHeaders({ secret, body, eventType: type, deliveryId: f.id, timestampSeconds: Math.floor(deps.clock.now() / 1000) });
      const r = await webhookSender().send(f.notification.webhook_url!, headers, body);
      return { outcome: r.outcome, response_status: r.responseStatus, error_message: r.errorMessage };
    },
    [ALERT_ACTIVITIES.email]: async (f: AlertOutboxDoc) => {
      const c = f.condition;
      const r = await deps.mailer.send({
        from: deps.mailFrom,
        to: { address: f.notification.email! },
        subject: `Usage alert: ${f.alert_name}`,
        text:
          `Your usage alert "${f.alert_name}" fired at ${f.fired_at}.\n\n` +
          `Condition: ${c.metric} ${c.operator} ${c.value}${c.window ? ` over ${c.window}` : ''}\n` +
          `Value: ${f.value} (${ALERT_METRICS[c.metric]})\n\n` +
          `It fires again only after the condition has cleared.\n`,
        headers: { 'X-Sello-Alert': f.alert_id },
      });
      return { message_id: r.messageId };
    },
    [ALERT_ACTIVITIES.record]: async (s: AlertNotificationState) => {
      const f = s.firing;
      await deps.events.append(alertsStream(f.tenant_id), [
        {
          type: 'UsageAlertNotified',
          data: {
            alert_id: f.alert_id,
            tenant_id: f.tenant_id,
            fire_id: f.id,
            webhook: s.webhook ? { status: s.webhook.status!, attempts: s.webhook.attempts, response_status: s.webhook.response_status, error_message: s.webhook.error_message } : null,
            email: s.email ? { status: s.email.status!, message_id: s.email.message_id, error_message: s.email.error_message } : null,
            notified_at: nowIso(),
          },
          metadata: { tenant_id: f.tenant_id },
        },
      ]);
      return null;
    },
  };

  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;

  const service: UsageAlerts = {
    async create(tenantId, plan, input) {
      const a = normaliseAlert(input);
      await checkWebhook(a.notification.webhook_url);
      const { state, revision } = await load(tenantId);
      const cap = alertCap(plan);
      if (cap !== null && state.alerts.size >= cap) {
        throw new UsageError('alert_limit_reached', `the ${plan} plan allows ${cap} alert${cap === 1 ? '' : 's'}`, { limit: cap, plan });
      }
      const alertId = `alr_${randomBytes(12).toString('hex')}`;
      const secret = generateEndpointSecret();
      await deps.events.append(
        alertsStream(tenantId),
        [
          {
            type: 'UsageAlertCreated',
            data: { alert_id: alertId, tenant_id: tenantId, name: a.name, type: 'threshold', condition: a.condition, notification: a.notification, enabled: a.enabled, secret_sealed: secretBox().seal(secret, alertId), created_at: nowIso() },
            metadata: { tenant_id: tenantId },
          },
        ],
        { expectedRevision: revision ?? 'no_stream' },
      );
      await deps.catchUp();
      return alertRecord(await read(tenantId, alertId), secret);
    },
    async list(tenantId) {
      const cols = await usageCollections(deps.readModels);
      return (await cols.alerts.find({ tenant_id: tenantId }, { sort: [{ field: 'created_at', order: 'asc' }] })).map((d) => alertRecord(d));
    },
    async get(tenantId, alertId) {
      return alertRecord(await read(tenantId, alertId));
    },
    async update(tenantId, alertId, input) {
      const { state, revision } = await load(tenantId);
      const base = state.alerts.get(alertId);
      if (!base) throw new UsageError('alert_not_found', `alert ${alertId} not found`, { alert_id: alertId });
      const a = normaliseAlert(input, base);
      if (a.notification.webhook_url !== base.notification.webhook_url) await checkWebhook(a.notification.webhook_url);
      await deps.events.append(
        alertsStream(tenantId),
        [{ type: 'UsageAlertUpdated', data: { alert_id: alertId, tenant_id: tenantId, ...a, updated_at: nowIso() }, metadata: { tenant_id: tenantId } }],
        { expectedRevision: revision ?? 'no_stream' },
      );
      await deps.catchUp();
      return alertRecord(await read(tenantId, alertId));
    },
    async remove(tenantId, alertId) {
      const { state, revision } = await load(tenantId);
      if (!state.alerts.has(alertId)) throw new UsageError('alert_not_found', `alert ${alertId} not found`, { alert_id: alertId });
      await deps.events.append(
        alertsStream(tenantId),
        [{ type: 'UsageAlertDeleted', data: { alert_id: alertId, tenant_id: tenantId, deleted_at: nowIso() }, metadata: { tenant_id: tenantId } }],
        { expectedRevision: revision ?? 'no_stream' },
      );
      await deps.catchUp();
    },
    processManagers: [bindProcessManager(alertNotificationProcess, activities)],
    dispatch() {
      running ??= (async () => {
        const cols = await usageCollections(deps.readModels);
        const pending = await cols.outbox.find({ status: 'pending' }, { limit: 200 });
        for (const f of pending) {
          await deps.engine.start(alertNotificationProcess.name, f.id, f, { tenantId: f.tenant_id, summary: `Notification of usage alert ${f.alert_id} fired at ${f.fired_at}` });
          await cols.outbox.put(f.id, { ...f, status: 'dispatched' });
        }
        return pending.length;
      })().finally(() => {
        running = null;
      });
      return running;
    },
    async start() {
      const tick = () => {
        timer = setTimeout(() => {
          service
            .dispatch()
            .catch((err: unknown) => deps.log.error({ err }, 'usage alert dispatch failed'))
            .finally(() => {
              if (timer) tick();
            });
        }, deps.dispatchIntervalMs ?? 200);
        timer.unref();
      };
      tick();
    },
    async stop() {
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
      await sender?.close();
    },
  };
  return service;
}
