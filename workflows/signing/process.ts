/**
 * The signing lifecycle process manager (engine-neutral: no Node built-ins, activities by type only).
 *
 * One workflow per document (id = document id), started when `document_created` is logged. It is fed
 * every later event of the document as a signal (`event`, with the stream revision: a re-delivered
 * signal, after a restart, is ignored), and reacts:
 * - `invitations_sent` (first order by the API, later orders by the signature that completed the
 *   previous order): one `signing.notify` activity per invited signer (a fresh link, then the e-mail);
 *   the reminder timer is (re)armed `reminder_days` ahead;
 * - reminder timer: a `signing.remind` activity (it appends `reminder_sent` and mails the invited signers
 *   who have not signed), and the next reminder; none after the document is signed, declined, cancelled
 *   or expired, nor when `reminder_days` is 0;
 * - the durable expiry timer, armed at start for `expiry_date`: a `signing.expire` activity appends
 *   `document_expired` unless the document was signed or closed first;
 * - `document_signed`, `document_completed`, `document_expired`, `document_declined`: a `signing.webhook`
 *   activity publishes `document.signed`, `document.completed`, `document.expired`, `document.declined`
 *   (the decline is also mailed to the owner's `notify_email`);
 * - `document_finalized`, `document_cancelled`, `document_deleted`, `document_expired`, a decline: the
 *   workflow closes; it ends (done) once its last activity has reported.
 * A failed or interrupted activity is retried under a new id after 5 s, 30 s, 2 min, 10 min, then given up.
 */
import type { ProcessManager, WorkflowEffect, WorkflowInput } from '../../infra/ports/workflows.ts';

export const SIGNING_WORKFLOW = 'signing-lifecycle';

/** Input of `engine.start(SIGNING_WORKFLOW, documentId, input)`. */
export interface LifecycleStart {
  documentId: string;
  tenantId: string;
  /** Epoch ms of `expiry_date`. */
  expiresAt: number;
}

/** Payload of the `event` signal: one logged event of the document. */
export interface LifecycleSignal {
  revision: number;
  name: string;
  data: Record<string, unknown>;
}

export type NotifyInput = { documentId: string; signerId: string; purpose: 'invitation' };
export type RemindInput = { documentId: string };
export type ExpireInput = { documentId: string };
export type WebhookInput = { documentId: string; tenantId: string; name: string; revision: number };

interface PendingActivity {
  name: string;
  input: unknown;
  attempt: number;
}

export interface LifecycleState {
  documentId: string;
  tenantId: string;
  expiresAt: number;
  lastRevision: number;
  reminderDays: number;
  reminderSeq: number;
  /** False once signed, closed or expired: no more reminders. */
  remindersOn: boolean;
  closed: boolean;
  pending: Record<string, PendingActivity>;
}

const DAY_MS = 86_400_000;
const RETRY_MS = [5_000, 30_000, 120_000, 600_000];

const WEBHOOK_OF: Record<string, string> = {
  document_signed: 'document.signed',
  document_completed: 'document.completed',
  document_expired: 'document.expired',
  document_declined: 'document.declined',
};

export const signingLifecycle: ProcessManager<LifecycleState> = {
  name: SIGNING_WORKFLOW,
  handle(state, input: WorkflowInput, { now }) {
    if (input.type === 'started') {
      const s = input.input as LifecycleStart;
      const st: LifecycleState = {
        documentId: s.documentId,
        tenantId: s.tenantId,
        expiresAt: s.expiresAt,
        lastRevision: 0,
        reminderDays: 0,
        reminderSeq: 0,
        remindersOn: false,
        closed: false,
        pending: {},
      };
      return { state: st, effects: [{ type: 'timer', id: 'expiry', at: s.expiresAt }] };
    }
    if (!state) return { state: state as never, effects: [] };
    const st: LifecycleState = { ...state, pending: { ...state.pending } };
    const effects: WorkflowEffect[] = [];
    const run = (id: string, name: string, activityInput: unknown, attempt = 1) => {
      st.pending[id] = { name, input: activityInput, attempt };
      effects.push({ type: 'activity', id, name, input: activityInput });
    };
    const finish = () => ({ state: st, effects, done: st.closed && Object.keys(st.pending).length === 0 && effects.length === 0 });

    switch (input.type) {
      case 'signal': {
        if (input.name !== 'event') return finish();
        const sig = input.payload as LifecycleSignal;
        if (sig.revision <= st.lastRevision) return finish(); // re-delivered after a restart
        st.lastRevision = sig.revision;
        const webhook = WEBHOOK_OF[sig.name];
        if (webhook) run(`webhook-${sig.revision}`, 'signing.webhook', { documentId: st.documentId, tenantId: st.tenantId, name: webhook, revision: sig.revision } satisfies WebhookInput);
        switch (sig.name) {
          case 'invitations_sent': {
            for (const signerId of (sig.data.signer_ids as string[]) ?? []) {
              run(`notify-${sig.revision}-${signerId}`, 'signing.notify', { documentId: st.documentId, signerId, purpose: 'invitation' } satisfies NotifyInput);
            }
            st.reminderDays = Number(sig.data.reminder_days ?? 0);
            st.remindersOn = st.reminderDays > 0 && !st.closed;
            if (st.remindersOn) effects.push({ type: 'timer', id: 'reminder', at: now + st.reminderDays * DAY_MS });
            break;
          }
          case 'document_completed':
            st.remindersOn = false;
            break;
          case 'document_finalized':
          case 'document_cancelled':
          case 'document_deleted':
          case 'document_expired':
          case 'document_declined':
            st.remindersOn = false;
            st.closed = true;
            break;
        }
        return finish();
      }
      case 'timer.fired': {
        if (input.id === 'expiry') {
          if (!st.closed) run('expire', 'signing.expire', { documentId: st.documentId } satisfies ExpireInput);
        } else if (input.id === 'reminder') {
          if (st.remindersOn && !st.closed && now < st.expiresAt) {
            st.reminderSeq += 1;
            run(`remind-${st.reminderSeq}`, 'signing.remind', { documentId: st.documentId } satisfies RemindInput);
            effects.push({ type: 'timer', id: 'reminder', at: now + st.reminderDays * DAY_MS });
          }
        } else if (input.id.startsWith('retry:')) {
          const id = input.id.slice('retry:'.length);
          const p = st.pending[id];
          if (p) {
            delete st.pending[id];
            const base = id.replace(/~\d+$/, '');
            run(`${base}~${p.attempt + 1}`, p.name, p.input, p.attempt + 1);
          }
        }
        return finish();
      }
      case 'activity.completed':
        delete st.pending[input.id];
        return finish();
      case 'activity.failed': {
        const p = st.pending[input.id];
        if (p && p.attempt <= RETRY_MS.length) {
          effects.push({ type: 'timer', id: `retry:${input.id}`, at: now + RETRY_MS[p.attempt - 1]! });
        } else {
          delete st.pending[input.id];
        }
        return finish();
      }
      default:
        return finish();
    }
  },
};
