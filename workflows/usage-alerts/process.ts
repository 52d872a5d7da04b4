/**
 * The `usage-alert-notification` process manager: one workflow per alert firing (workflow id = fire id).
 * It sends the signed POST to `notification.webhook_url` (retried on the webhook schedule: 5 attempts,
 * then 1 min, 5 min, 30 min, 2 h apart; spec, Limits) and the e-mail through the mail port, then records
 * the outcome (`UsageAlertNotified`) in the alert's history. Engine-neutral: no IO here.
 */
import type { ProcessManager, Transition, WorkflowEffect } from '../../infra/ports/workflows.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../domain/webhooks/delivery.ts';
import type { AlertOutboxDoc } from '../../projections/usage-analytics/model.ts';

export interface WebhookAttemptResult {
  outcome: 'success' | 'failed' | 'gone';
  response_status: number | null;
  error_message: string | null;
}

export interface AlertNotificationState {
  firing: AlertOutboxDoc;
  webhook: { attempts: number; done: boolean; status: 'success' | 'failed' | null; response_status: number | null; error_message: string | null } | null;
  email: { done: boolean; status: 'sent' | 'failed' | null; message_id: string | null; error_message: string | null } | null;
  recording: boolean;
}

export const ALERT_ACTIVITIES = { webhook: 'usage-alert.webhook', email: 'usage-alert.email', record: 'usage-alert.record' } as const;

function maybeRecord(state: AlertNotificationState): Transition<AlertNotificationState> {
  const webhookDone = state.webhook === null || state.webhook.done;
  const emailDone = state.email === null || state.email.done;
  if (!webhookDone || !emailDone || state.recording) return { state, effects: [] };
  state.recording = true;
  return { state, effects: [{ type: 'activity', id: 'record', name: ALERT_ACTIVITIES.record, input: state }] };
}

function webhookAttempt(state: AlertNotificationState): WorkflowEffect {
  const n = state.webhook!.attempts + 1;
  return {
    type: 'activity',
    id: `webhook-${n}`,
    name: ALERT_ACTIVITIES.webhook,
    input: { firing: state.firing, attempt: n },
    concurrency: { key: `alert-webhook:${state.firing.alert_id}`, limit: 2 },
  };
}

function webhookOutcome(state: AlertNotificationState, r: WebhookAttemptResult, now: number): Transition<AlertNotificationState> {
  const w = state.webhook!;
  w.attempts += 1;
  w.response_status = r.response_status;
  w.error_message = r.error_message;
  if (r.outcome === 'success' || r.outcome === 'gone' || w.attempts >= MAX_ATTEMPTS) {
    w.done = true;
    w.status = r.outcome === 'success' ? 'success' : 'failed';
    return maybeRecord(state);
  }
  return { state, effects: [{ type: 'timer', id: `retry-${w.attempts}`, at: now + RETRY_DELAYS_MS[w.attempts - 1]! }] };
}

export const alertNotificationProcess: ProcessManager<AlertNotificationState> = {
  name: 'usage-alert-notification',
  handle(state, input, { now }) {
    if (input.type === 'started') {
      const firing = input.input as AlertOutboxDoc;
      const s: AlertNotificationState = {
        firing,
        webhook: firing.notification.webhook_url ? { attempts: 0, done: false, status: null, response_status: null, error_message: null } : null,
        email: firing.notification.email ? { done: false, status: null, message_id: null, error_message: null } : null,
        recording: false,
      };
      const effects: WorkflowEffect[] = [];
      if (s.webhook) effects.push(webhookAttempt(s));
      if (s.email) effects.push({ type: 'activity', id: 'email', name: ALERT_ACTIVITIES.email, input: firing });
      if (effects.length === 0) return maybeRecord(s);
      return { state: s, effects };
    }
    if (!state) return { state: state!, effects: [], done: true };
    switch (input.type) {
      case 'timer.fired':
        if (input.id === 'record-retry') return maybeRecord(state);
        return { state, effects: [webhookAttempt(state)] };
      case 'activity.completed':
        if (input.id === 'record') return { state, effects: [], done: true };
        if (input.id === 'email') {
          const r = input.result as { message_id: string };
          Object.assign(state.email!, { done: true, status: 'sent', message_id: r.message_id });
          return maybeRecord(state);
        }
        return webhookOutcome(state, input.result as WebhookAttemptResult, now);
      case 'activity.failed':
        if (input.id === 'record') {
          state.recording = false;
          return { state, effects: [{ type: 'timer', id: 'record-retry', at: now + 60_000 }] };
        }
        if (input.id === 'email') {
          Object.assign(state.email!, { done: true, status: 'failed', error_message: input.error });
          return maybeRecord(state);
        }
        return webhookOutcome(state, { outcome: 'failed', response_status: null, error_message: input.error }, now);
      default:
        return { state, effects: [] };
    }
  },
};
