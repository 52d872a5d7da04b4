import path from 'node:path';
import { SqliteEventStore } from '../../infra/event-store/sqlite/sqlite-event-store.ts';
import type { Subscription } from '../../infra/ports/event-store.ts';
import type { Clock } from '../../infra/ports/workflows.ts';
import { SqliteReadModelStore } from '../../infra/read-models/sqlite/sqlite-read-models.ts';
import { createEmbeddedWorkflowEngine, type EmbeddedWorkflowEngine } from '../../infra/workflows/embedded/index.ts';
import { webhookEventsStream } from '../../domain/webhooks/catalog.ts';
import { webhooksProjection } from '../../projections/webhooks/index.ts';
import { createWebhooksRuntime, type WebhooksConfig, type WebhooksRuntime } from '../../workflows/webhook-delivery/runtime.ts';

/**
 * The webhooks capability on the real embedded adapters (SQLite event store, read models, workflow
 * engine) in `dir`, without the HTTP edge: used by the delivery and restart tests and the benchmark.
 * The `webhooks` projection runs through a checkpointed subscription like the platform's runner.
 */
export interface WebhookStack {
  events: SqliteEventStore;
  readModels: SqliteReadModelStore;
  engine: EmbeddedWorkflowEngine;
  runtime: WebhooksRuntime;
  /** Appends a catalog event as an emitter would (`ctx.publishWebhookEvent`). */
  publish(tenantId: string, type: string, data: unknown): Promise<void>;
  /** Fans out every published event and applies the projection. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export async function openWebhookStack(dir: string, clock: Clock, config: WebhooksConfig, opts: { pollMs?: number; maxConcurrentActivities?: number } = {}): Promise<WebhookStack> {
  const events = new SqliteEventStore(path.join(dir, 'events.sqlite'), opts.pollMs ?? 20);
  const readModels = new SqliteReadModelStore(path.join(dir, 'read-models.sqlite'));
  const engine = createEmbeddedWorkflowEngine({
    path: path.join(dir, 'workflows.sqlite'),
    clock,
    pollIntervalMs: opts.pollMs ?? 20,
    maxConcurrentActivities: opts.maxConcurrentActivities,
  });
  const p = webhooksProjection;
  const from = await readModels.getCheckpoint(p.name);
  const sub: Subscription = events.subscribeToAll({
    fromPosition: from,
    types: p.eventTypes,
    batchSize: 500,
    onEvents: async (batch) => {
      await readModels.transaction(async (tx) => {
        await p.apply(batch, { store: tx, vectorIndex: undefined as never });
        await tx.setCheckpoint(p.name, batch.at(-1)!.globalPosition);
      });
    },
  });
  const runtime = createWebhooksRuntime({
    eventStore: events,
    readModels,
    engine,
    clock,
    catchUp: () => sub.caughtUp(),
    config: { dataDir: dir, ...config },
  });
  runtime.register();
  await engine.run();
  await runtime.start();
  return {
    events,
    readModels,
    engine,
    runtime,
    async publish(tenantId, type, data) {
      await events.append(webhookEventsStream(tenantId), [{ type, data, metadata: { tenant_id: tenantId } }]);
    },
    async settle() {
      await runtime.fanoutCaughtUp();
      await engine.drain();
      await sub.caughtUp();
    },
    async close() {
      await runtime.stop();
      await engine.stop(200);
      await sub.stop();
      await events.close();
      await readModels.close();
    },
  };
}
