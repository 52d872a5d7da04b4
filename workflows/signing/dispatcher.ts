/**
 * Feeds the signing lifecycle from the log (an outbox processor with a checkpoint, like the webhook
 * fan-out): `document_created` starts the document's workflow (idempotent by document id); every later
 * event of the document is signalled to it with its stream revision (the process manager ignores a
 * revision it has seen, so re-processing after a crash is harmless). The checkpoint is saved after each
 * batch, so a restart resumes where the last run stopped.
 */
import type { EventStore, RecordedEvent } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import type { WorkflowEngine } from '../../infra/ports/workflows.ts';
import { SIGNING_EVENT_TYPES, eventName } from '../../domain/signing/document.ts';
import { SIGNING_WORKFLOW, type LifecycleSignal, type LifecycleStart } from './process.ts';

export const SIGNING_DISPATCH_CHECKPOINT = 'signing-dispatch';

export interface SigningDispatcher {
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

export async function startSigningDispatcher(deps: { events: EventStore; readModels: ReadModelStore; engine: WorkflowEngine }): Promise<SigningDispatcher> {
  const from = await deps.readModels.getCheckpoint(SIGNING_DISPATCH_CHECKPOINT);
  async function onEvents(batch: RecordedEvent[]): Promise<void> {
    for (const e of batch) {
      const documentId = e.streamName.slice('signing-'.length);
      const name = eventName(e.type);
      const d = e.data as Record<string, unknown>;
      if (name === 'document_created') {
        const start: LifecycleStart = { documentId, tenantId: String(d.tenant_id), expiresAt: Date.parse(String(d.expiry_date)) };
        await deps.engine.start(SIGNING_WORKFLOW, documentId, start, { tenantId: start.tenantId, summary: `Signing lifecycle of document ${documentId}: invitations, reminders, expiry` });
      } else {
        // Only what the process manager reads travels in the signal (no personal data in workflow rows).
        const data: Record<string, unknown> = {};
        if (Array.isArray(d.signer_ids)) data.signer_ids = d.signer_ids;
        if (d.reminder_days !== undefined) data.reminder_days = d.reminder_days;
        const signal: LifecycleSignal = { revision: e.streamRevision, name, data };
        await deps.engine.signal(documentId, 'event', signal);
      }
    }
    const last = batch.at(-1);
    if (last) await deps.readModels.setCheckpoint(SIGNING_DISPATCH_CHECKPOINT, last.globalPosition);
  }
  const sub = deps.events.subscribeToAll({ fromPosition: from, types: SIGNING_EVENT_TYPES, batchSize: 200, onEvents });
  return { caughtUp: () => sub.caughtUp(), stop: () => sub.stop() };
}
