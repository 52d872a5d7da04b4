import path from 'node:path';
import { SqliteEventStore } from '../../infra/event-store/sqlite/sqlite-event-store.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import type { Clock } from '../../infra/ports/workflows.ts';
import { SqliteReadModelStore } from '../../infra/read-models/sqlite/sqlite-read-models.ts';
import { createEmbeddedWorkflowEngine, type EmbeddedWorkflowEngine } from '../../infra/workflows/embedded/index.ts';
import { webhookEventsStream } from '../../domain/webhooks/catalog.ts';
import { webhooksProjection } from '../../projections/webhooks/index.ts';
import { createWebhooksRuntime, type WebhooksConfig, type WebhooksRuntime } from '../../workflows/webhook-delivery/runtime.ts';

/**
 * The webhooks capability on the real embedded adapters (SQLite event store, read models, workflow
 * engine) in `dir`, without the HTTP edge: used by the delivery and restart tests and the benchmark.
 * The `webhooks` projection runs in the platform's `ProjectionRunner`.
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
  // The platform's projection runner, running only the webhooks projection.
  const runner = new ProjectionRunner(events, [webhooksProjection], { store: readModels, vectorIndex: undefined as never });
  await runner.start();
  const runtime = createWebhooksRuntime({
    eventStore: events,
    readModels,
    engine,
    clock,
    catchUp: () => runner.catchUp(),
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
      await runner.catchUp();
    },
    async close() {
      await runtime.stop();
      await engine.stop(200);
      await runner.stop();
      await events.close();
      await readModels.close();
    },
  };
}
